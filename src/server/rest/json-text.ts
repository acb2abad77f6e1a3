/**
 * A rendered read's answer is JSON text written by SQL (pipeline/planned-read.ts,
 * RenderedData), in the REST form for a REST route's operation (read/answer-form.ts). A route
 * answers part of it: these find the text at a path without parsing the whole. They assume
 * well-formed, compact JSON, as JSON.stringify and Postgres write it.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

function skipSpace(json: string, i: number): number {
  while (isSpace(json.charCodeAt(i))) i++;
  return i;
}

/** The index just past the string that opens at `i`. */
function stringEnd(json: string, i: number): number {
  for (let at = i + 1; ;) {
    const close = json.indexOf('"', at);
    if (close < 0) throw new SyntaxError('unterminated string in JSON text');
    // Escaped when an odd number of backslashes precede it.
    let slashes = 0;
    while (json.charCodeAt(close - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return close + 1;
    at = close + 1;
  }
}

/**
 * Finds where an object or array ends, a slice at a time: `step` scans up to `chars` more
 * characters, and answers the index just past the value once it is found (else -1).
 */
class ValueScan {
  private depth = 0;

  constructor(
    private readonly json: string,
    private at: number,
  ) {}

  step(chars: number): number {
    const { json } = this;
    const until = Math.min(json.length, this.at + chars);
    let at = this.at;
    while (at < until) {
      const code = json.charCodeAt(at);
      if (code === QUOTE) {
        at = stringEnd(json, at);
        continue;
      }
      if (code === OPEN_OBJECT || code === OPEN_ARRAY) this.depth++;
      else if ((code === CLOSE_OBJECT || code === CLOSE_ARRAY) && --this.depth === 0) return at + 1;
      at++;
    }
    if (at >= json.length) throw new SyntaxError('unterminated value in JSON text');
    this.at = at;
    return -1;
  }
}

/** The index just past the value that starts at `i` (after any space). */
function valueEnd(json: string, i: number): number {
  const first = json.charCodeAt(i);
  if (first === QUOTE) return stringEnd(json, i);
  if (first === OPEN_OBJECT || first === OPEN_ARRAY) return new ValueScan(json, i).step(Infinity);
  // A number, true, false or null: up to the next delimiter.
  let at = i;
  for (let code = json.charCodeAt(at); at < json.length; code = json.charCodeAt(++at))
    if (code === COMMA || code === CLOSE_OBJECT || code === CLOSE_ARRAY || isSpace(code)) break;
  return at;
}

/** Where the value at `path` (object keys, from the root) starts, or -1 where a key is missing or a value on the way is not an object. */
function startAt(json: string, path: readonly string[]): number {
  let start = skipSpace(json, 0);
  for (const key of path) {
    if (json.charCodeAt(start) !== OPEN_OBJECT) return -1;
    let at = skipSpace(json, start + 1);
    let found = -1;
    while (json.charCodeAt(at) === QUOTE) {
      const keyEnd = stringEnd(json, at);
      const valueStart = skipSpace(json, skipSpace(json, keyEnd) + 1);
      if (JSON.parse(json.slice(at, keyEnd)) === key) {
        found = valueStart;
        break;
      }
      at = skipSpace(json, valueEnd(json, valueStart));
      if (json.charCodeAt(at) === COMMA) at = skipSpace(json, at + 1);
    }
    if (found < 0) return -1;
    start = found;
  }
  return start;
}

/** The text of the value at `path`, or undefined where the path leaves the data (see startAt). */
export function textAt(json: string, path: readonly string[]): string | undefined {
  const start = startAt(json, path);
  return start < 0 ? undefined : json.slice(start, valueEnd(json, start));
}

/**
 * Characters scanned between two turns of the event loop: well under a millisecond's work, so
 * the largest answer allowed (about 9 MB) holds no other request for tens of milliseconds.
 */
const SLICE_CHARS = 128 * 1024;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The text at `path`, encoded, as {@link textAt} finds it; undefined where the path leaves the
 * data. A large value's end is found a slice at a time, letting other requests run between.
 */
export async function encodedTextAt(json: string, path: readonly string[]): Promise<JsonText | undefined> {
  const start = startAt(json, path);
  if (start < 0) return undefined;
  const first = json.charCodeAt(start);
  let end: number;
  if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
    const scan = new ValueScan(json, start);
    while ((end = scan.step(SLICE_CHARS)) < 0) await nextTurn();
  } else end = valueEnd(json, start);
  return new JsonText(Buffer.from(json.slice(start, end)));
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
