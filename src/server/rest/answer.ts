import { encodePieces, RenderedData } from '../pipeline/planned-read.js';
import { toSnakeCase } from './mapping.js';

/**
 * An operation's `data` as a REST route reads it: values at a path, or the REST form of
 * the part it answers. A rendered read's data is JSON text (RenderedData) SQL wrote in the
 * REST form, and the part is taken from its pieces where the read located it (every root
 * field, and every member of a root connection); an executed read's is a value, mapped by
 * toSnakeCase and serialized by the route's response schema.
 */
export class OperationAnswer {
  constructor(private readonly data: unknown) {}

  /**
   * The value at a dotted path of the data (undefined where absent). The root fields and a
   * root connection's members (totalCount, pageInfo, nodes) have their GraphQL names in either form.
   */
  value(path: string): any {
    let value: any = this.data;
    if (value instanceof RenderedData) {
      const pieces = value.piecesAt(path);
      if (pieces) return JSON.parse(pieces.join(''));
      // A path the read did not locate: read from the whole data (no route asks one today).
      value = value.toJSON();
    }
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
  rest(path: string): unknown {
    if (this.data instanceof RenderedData && this.data.form === 'rest') {
      const pieces = this.data.piecesAt(path);
      if (pieces) {
        const text = new JsonText(encodePieces(pieces));
        return text.isNull() ? null : text;
      }
    }
    return toSnakeCase(this.value(path));
  }
}

/** A REST answer's body already written as JSON, encoded: sent as it is. */
export class JsonText {
  constructor(readonly body: Buffer) {}

  /** JSON's `null`: no record. */
  isNull(): boolean {
    return this.body.length === 4 && this.body.toString() === 'null';
  }
}

/**
 * An object whose members may be JSON text: written as text when one is (keys as given),
 * else the plain object, which the route's response schema serializes.
 */
export function objectOf(members: Record<string, unknown>): Record<string, unknown> | JsonText {
  const values = Object.values(members);
  if (!values.some((member) => member instanceof JsonText)) return members;
  const parts = Object.entries(members).flatMap(([key, member], index) => [
    Buffer.from(`${index === 0 ? '{' : ','}${JSON.stringify(key)}:`),
    member instanceof JsonText ? member.body : Buffer.from(JSON.stringify(member)),
  ]);
  return new JsonText(Buffer.concat([...parts, Buffer.from('}')]));
}
