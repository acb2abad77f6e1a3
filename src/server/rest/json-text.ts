/**
 * A rendered read's answer is JSON text written by SQL (pipeline/planned-read.ts,
 * RenderedData). A REST route answers part of it in the interface's form; parsing the text,
 * renaming a copy of every object and serializing it again cost a large page about three
 * times what the rest of the request did. These read the text instead: the part at a path,
 * and that part with its keys in snake_case and its connections as arrays, as toSnakeCase
 * (mapping.ts) maps a value. They assume well-formed JSON, as JSON.stringify and Postgres
 * write it.
 */
import { snakeCaseKey } from './mapping.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

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

/** The index just past the value that starts at `i` (after any space). */
function valueEnd(json: string, i: number): number {
  const first = json.charCodeAt(i);
  if (first === QUOTE) return stringEnd(json, i);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    // A number, true, false or null: up to the next delimiter.
    let at = i;
    for (let code = json.charCodeAt(at); at < json.length; code = json.charCodeAt(++at))
      if (code === COMMA || code === CLOSE_OBJECT || code === CLOSE_ARRAY || isSpace(code)) break;
    return at;
  }
  let depth = 0;
  for (let at = i; at < json.length;) {
    const code = json.charCodeAt(at);
    if (code === QUOTE) {
      at = stringEnd(json, at);
      continue;
    }
    if (code === OPEN_OBJECT || code === OPEN_ARRAY) depth++;
    else if ((code === CLOSE_OBJECT || code === CLOSE_ARRAY) && --depth === 0) return at + 1;
    at++;
  }
  throw new SyntaxError('unterminated value in JSON text');
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

/** After an object's brace, the start of a connection selected as `{ nodes }`. */
const NODES_MEMBER = '"nodes":[';

// What each open object or array is, on restFormOf's stack.
const OBJECT = 0;
/** An object that opened with `"nodes":[`: written as its array if nothing follows it. */
const CONNECTION = 1;
/** Such an object with another member: written as it was. */
const CONNECTION_WITH_MORE = 2;
const ARRAY = 3;

/**
 * Writes the value at `start` of `json` in the REST form: every key in snake_case, and an
 * object whose only key is `nodes` holding an array (a connection selected as `{ nodes }`)
 * replaced by that array. Equal to `JSON.stringify(toSnakeCase(JSON.parse(json)))` for
 * compact JSON (no space between tokens, as JSON.stringify and Postgres write it). One
 * pass: strings are skipped with indexOf, and only renamed keys and unwrapped connections
 * break the copy of the text. It goes a slice at a time (step), so a large answer can let
 * the event loop run between slices.
 */
class RestFormWriter {
  private readonly out: string[] = [];
  private copiedTo: number;
  private readonly stack: number[] = [];
  /** Per CONNECTION on the stack: where its `{"nodes":` was left out, to put back if another member follows. */
  private readonly openings: Array<{ outIndex: number; start: number }> = [];
  private at: number;
  private end = -1;

  constructor(
    private readonly json: string,
    private readonly start: number,
  ) {
    this.at = this.copiedTo = start;
  }

  /** Writes up to `chars` more characters of the text; true once the value is written. */
  step(chars: number): boolean {
    const { json, out, stack, openings } = this;
    const length = json.length;
    const until = Math.min(length, this.at + chars);
    let copiedTo = this.copiedTo;
    let i = this.at;
    while (i < until) {
      const code = json.charCodeAt(i);
      if (code === QUOTE) {
        const end = stringEnd(json, i);
        if (json.charCodeAt(end) === COLON) {
          // A key: renamed when it has a capital letter.
          for (let c = i + 1; c < end - 1; c++) {
            const letter = json.charCodeAt(c);
            if (letter >= 0x41 && letter <= 0x5a) {
              if (i + 1 > copiedTo) out.push(json.slice(copiedTo, i + 1));
              out.push(snakeCaseKey(json.slice(i + 1, end - 1)));
              copiedTo = end - 1;
              break;
            }
          }
        }
        i = end;
      } else if (code === OPEN_OBJECT) {
        if (json.startsWith(NODES_MEMBER, i + 1)) {
          // Left out for now: the array alone is written unless another member follows.
          if (i > copiedTo) out.push(json.slice(copiedTo, i));
          openings.push({ outIndex: out.length, start: i });
          copiedTo = i + 1 + NODES_MEMBER.length - 1;
          stack.push(CONNECTION);
          i = copiedTo;
        } else {
          stack.push(OBJECT);
          i++;
        }
      } else if (code === OPEN_ARRAY) {
        stack.push(ARRAY);
        i++;
      } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
        const kind = stack.pop();
        if (kind === CONNECTION) {
          // Its array was its only member: its brace is left out too.
          if (i > copiedTo) out.push(json.slice(copiedTo, i));
          copiedTo = i + 1;
          openings.pop();
        } else if (kind === CONNECTION_WITH_MORE) openings.pop();
        i++;
        if (stack.length === 0) {
          this.end = i;
          break;
        }
      } else if (code === COMMA && stack[stack.length - 1] === CONNECTION) {
        // A member after `nodes`: the object is written as it was, from its brace to the array.
        const opening = openings[openings.length - 1]!;
        out.splice(opening.outIndex, 0, json.slice(opening.start, opening.start + NODES_MEMBER.length));
        stack[stack.length - 1] = CONNECTION_WITH_MORE;
        i++;
      } else i++;
    }
    this.at = i;
    this.copiedTo = copiedTo;
    if (this.end < 0 && i >= length) throw new SyntaxError('unterminated value in JSON text');
    return this.end >= 0;
  }

  /** The written text. */
  result(): string {
    this.finish();
    return this.out.join('');
  }

  /**
   * The written text encoded. A large answer's pieces are encoded a few thousand at a time
   * between turns of the event loop, straight into the body: joining them into one string
   * held the loop for tens of ms. A smaller one is joined and encoded at once, which costs
   * less than piece by piece.
   */
  async encoded(): Promise<Buffer> {
    this.finish();
    const { out } = this;
    if (this.end - this.start <= SLICE_CHARS * 4) return Buffer.from(out.join(''));
    let length = 0;
    for (let i = 0; i < out.length; i++) length += Buffer.byteLength(out[i]!);
    const body = Buffer.allocUnsafe(length);
    let offset = 0;
    for (let i = 0; i < out.length; i++) {
      offset += body.write(out[i]!, offset);
      if (i % PIECES_PER_TURN === PIECES_PER_TURN - 1) await nextTurn();
    }
    return body;
  }

  private finish(): void {
    if (this.end > this.copiedTo) this.out.push(this.json.slice(this.copiedTo, this.end));
    this.copiedTo = this.end;
  }
}

/** The value at `start` of `json` (all of it by default) in the REST form (see RestFormWriter). */
export function restFormOf(json: string, start = 0): string {
  start = skipSpace(json, start);
  const first = json.charCodeAt(start);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) return json.slice(start, valueEnd(json, start));
  const writer = new RestFormWriter(json, start);
  writer.step(Infinity);
  return writer.result();
}

/**
 * Characters written between two turns of the event loop: about a millisecond's work, so
 * the largest answer allowed (about 9 MB) holds no other request for tens of milliseconds.
 */
const SLICE_CHARS = 128 * 1024;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Pieces of a written answer encoded between two turns of the event loop. */
const PIECES_PER_TURN = 4096;

/**
 * The REST form of the value at `path`, encoded; undefined where the path leaves the data.
 * Written and encoded a slice at a time past SLICE_CHARS, so the largest answer lets other
 * requests run between slices.
 */
export async function restFormAt(json: string, path: readonly string[]): Promise<JsonText | undefined> {
  const start = startAt(json, path);
  if (start < 0) return undefined;
  const first = json.charCodeAt(start);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) return new JsonText(Buffer.from(json.slice(start, valueEnd(json, start))));
  const writer = new RestFormWriter(json, start);
  while (!writer.step(SLICE_CHARS)) await nextTurn();
  return new JsonText(await writer.encoded());
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
