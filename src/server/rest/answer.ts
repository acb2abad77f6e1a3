import { RenderedData } from '../pipeline/planned-read.js';
import { restFormAt, textAt } from './json-text.js';
import { toSnakeCase } from './mapping.js';

/**
 * An operation's `data` as a REST route reads it: values at a path, or the REST form of
 * the part it answers. A rendered read's data is JSON text (RenderedData), and its REST form
 * is written from the text (json-text.ts) without parsing the whole; an executed read's is
 * a value, mapped by toSnakeCase and serialized by the route's response schema.
 */
export class OperationAnswer {
  constructor(private readonly data: unknown) {}

  /** The value at a dotted path of the data, as GraphQL answered it (undefined where absent). */
  value(path: string): any {
    const keys = path.split('.');
    if (this.data instanceof RenderedData) {
      const text = textAt(this.data.json(), keys);
      return text === undefined ? undefined : JSON.parse(text);
    }
    let value: any = this.data;
    for (const key of keys) value = value?.[key];
    return value;
  }

  /**
   * The REST form of the value at a dotted path: snake_case keys, connections as arrays; null
   * stays null. Written from a rendered read's text a slice at a time (a large answer lets
   * other requests run between slices).
   */
  async rest(path: string): Promise<unknown> {
    if (this.data instanceof RenderedData) {
      const text = await restFormAt(this.data.json(), path.split('.'));
      return text?.isNull() ? null : text;
    }
    return toSnakeCase(this.value(path));
  }
}
