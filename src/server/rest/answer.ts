import { encodePieces, RenderedData } from '../pipeline/planned-read.js';
import { encodedTextAt, JsonText, textAt } from './json-text.js';
import { toSnakeCase } from './mapping.js';

/**
 * An operation's `data` as a REST route reads it: values at a path, or the REST form of
 * the part it answers. A rendered read's data is JSON text (RenderedData) SQL wrote in the
 * REST form, and the part is found in the text (json-text.ts) without parsing the whole; an
 * executed read's is a value, mapped by toSnakeCase and serialized by the route's response schema.
 */
export class OperationAnswer {
  constructor(private readonly data: unknown) {}

  /**
   * The value at a dotted path of the data (undefined where absent). The root fields and a
   * root connection's members (totalCount, pageInfo, nodes) have their GraphQL names in either form.
   */
  value(path: string): any {
    if (this.data instanceof RenderedData) {
      const pieces = this.data.piecesAt(path);
      const text = pieces ? pieces.join('') : textAt(this.data.json(), path.split('.'));
      return text === undefined ? undefined : JSON.parse(text);
    }
    let value: any = this.data;
    for (const key of path.split('.')) value = value?.[key];
    return value;
  }

  /**
   * The REST form of the value at a dotted path (an object of the read graph, or a root
   * connection's nodes): snake_case keys, connections as arrays; null stays null. A rendered
   * read of a REST route's operation is in that form already (SQL wrote it:
   * read/answer-form.ts), so its text at the path is sent as it is; an executed read's value
   * (or one a response cache kept) is mapped by toSnakeCase.
   */
  async rest(path: string): Promise<unknown> {
    if (this.data instanceof RenderedData && this.data.form === 'rest') {
      // Where the read says where the value lies (a root field, a root connection's nodes), taken from its pieces; else found in the text.
      const pieces = this.data.piecesAt(path);
      const text = pieces ? new JsonText(encodePieces(pieces)) : await encodedTextAt(this.data.json(), path.split('.'));
      return text?.isNull() ? null : text;
    }
    return toSnakeCase(this.value(path));
  }
}
