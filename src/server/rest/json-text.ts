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

const isCapital = (code: number) => code >= 0x41 && code <= 0x5a;
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

/**
 * The text of the value at `path` (object keys, from the root), or undefined where a key is
 * missing or a value on the way is not an object (null, say).
 */
export function textAt(json: string, path: readonly string[]): string | undefined {
  let start = skipSpace(json, 0);
  for (const key of path) {
    if (json.charCodeAt(start) !== OPEN_OBJECT) return undefined;
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
    if (found < 0) return undefined;
    start = found;
  }
  return json.slice(start, valueEnd(json, start));
}

const NODES_KEY = '"nodes"';

/**
 * `json` in the REST form: every key in snake_case, and an object whose only key is `nodes`
 * holding an array (a connection selected as `{ nodes }`) replaced by that array. Equal to
 * `JSON.stringify(toSnakeCase(JSON.parse(json)))` for JSON written without spaces; the text
 * between keys is copied as it is.
 */
export function restFormOf(json: string): string {
  const out: string[] = [];
  let copiedTo = 0;
  const copyTo = (end: number) => {
    if (end > copiedTo) out.push(json.slice(copiedTo, end));
    copiedTo = end;
  };

  /** Writes the value at `i`; returns the index past it. */
  const value = (i: number): number => {
    const first = json.charCodeAt(i);
    if (first === OPEN_ARRAY) {
      let at = skipSpace(json, i + 1);
      if (json.charCodeAt(at) === CLOSE_ARRAY) return at + 1;
      for (;;) {
        at = skipSpace(json, value(at));
        if (json.charCodeAt(at) !== COMMA) return at + 1;
        at = skipSpace(json, at + 1);
      }
    }
    if (first !== OPEN_OBJECT) return valueEnd(json, i);
    let at = skipSpace(json, i + 1);
    if (json.startsWith(NODES_KEY, at)) {
      // Perhaps a connection as `{ nodes }`: written as its array, unless another key follows.
      const arrayAt = skipSpace(json, skipSpace(json, at + NODES_KEY.length) + 1);
      if (json.charCodeAt(arrayAt) === OPEN_ARRAY) {
        copyTo(i);
        const mark = out.length;
        copiedTo = arrayAt;
        const arrayEnd = value(arrayAt);
        const next = skipSpace(json, arrayEnd);
        if (json.charCodeAt(next) === CLOSE_OBJECT) {
          copyTo(arrayEnd);
          copiedTo = next + 1;
          return next + 1;
        }
        // Not alone: the object is written as it was, from its brace to the array.
        out.splice(mark, 0, json.slice(i, arrayAt));
        at = next;
        if (json.charCodeAt(at) === COMMA) at = skipSpace(json, at + 1);
      }
    }
    while (json.charCodeAt(at) === QUOTE) {
      const keyEnd = stringEnd(json, at);
      // Most keys are copied as they are: only one with a capital letter is sliced and renamed.
      let capital = false;
      for (let c = at + 1; c < keyEnd - 1 && !capital; c++) capital = isCapital(json.charCodeAt(c));
      if (capital) {
        copyTo(at + 1);
        out.push(snakeCaseKey(json.slice(at + 1, keyEnd - 1)));
        copiedTo = keyEnd - 1;
      }
      at = skipSpace(json, value(skipSpace(json, skipSpace(json, keyEnd) + 1)));
      if (json.charCodeAt(at) === COMMA) at = skipSpace(json, at + 1);
    }
    return at + 1;
  };

  const end = value(skipSpace(json, 0));
  copyTo(end);
  return out.join('');
}

/** A REST answer's body already written as JSON text: sent as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * An object whose members may be JSON text: written as text when one is (keys as given),
 * else the plain object, which the route's response schema serializes.
 */
export function objectOf(members: Record<string, unknown>): Record<string, unknown> | JsonText {
  const values = Object.values(members);
  if (!values.some((member) => member instanceof JsonText)) return members;
  const parts = Object.entries(members).map(
    ([key, member]) => `${JSON.stringify(key)}:${member instanceof JsonText ? member.text : JSON.stringify(member)}`,
  );
  return new JsonText(`{${parts.join(',')}}`);
}
