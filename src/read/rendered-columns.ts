import { getTableColumns } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';

/**
 * Columns as a rendered read writes them (read/nested-read.ts, RenderedObject): the JSON
 * value the response would hold after the row decoder (read/batch.ts, columnRead) and
 * GraphQL's serializers, written by Postgres instead.
 */

/**
 * The SQL of a column as the response writes it, over `alias`: JSON text with exactly the
 * bytes JSON.stringify writes for the value the row decoder and GraphQL's serializers would
 * give (`null` for SQL NULL), and its kind; or null when no rendering writes that (int8,
 * json, real, a timestamp without time zone). Timestamps as `Date.toISOString()` writes
 * them: UTC, milliseconds truncated (as `new Date()` of the driver's microsecond text truncates).
 */
export function renderedColumn(table: PgTable, property: string): { kind: RenderedColumnKind; sql: (alias: string) => string } | null {
  const column = (getTableColumns(table) as Record<string, PgColumn>)[property];
  if (!column) return null;
  const name = `"${column.name}"`;
  const orNull = (json: (a: string) => string) => (column.notNull ? json : (a: string) => `coalesce(${json(a)}, 'null')`);
  switch (column.columnType) {
    case 'PgUUID':
      return { kind: 'text', sql: orNull((a) => `'"' || ${a}.${name}::text || '"'`) };
    case 'PgText':
    case 'PgVarchar':
      return { kind: 'text', sql: orNull((a) => `to_json(${a}.${name})::text`) };
    case 'PgInteger':
    case 'PgSmallInt':
      return { kind: 'int', sql: orNull((a) => `${a}.${name}::text`) };
    case 'PgBoolean':
      return { kind: 'boolean', sql: orNull((a) => `${a}.${name}::text`) };
    case 'PgNumeric':
    case 'PgNumericNumber':
    case 'PgDoublePrecision':
      return { kind: 'float', sql: orNull((a) => jsonNumber(`${a}.${name}::float8`)) };
    case 'PgEnumColumn':
      return { kind: 'enum', sql: orNull((a) => `'"' || ${a}.${name}::text || '"'`) };
    case 'PgTimestamp':
      if (!(column as PgColumn & { withTimezone?: boolean }).withTimezone) return null;
      return {
        kind: 'timestamp',
        sql: orNull((a) => `'"' || ${isoTimestampSql(`${a}.${name}`)} || '"'`),
      };
    default:
      return null;
  }
}

/** A timestamptz as `Date.toISOString()` writes it (text, unquoted). */
export const isoTimestampSql = (sql: string) => `to_char(${sql} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export type RenderedColumnKind = 'text' | 'int' | 'boolean' | 'float' | 'enum' | 'timestamp';

/**
 * A float8 as JSON text, its digits Postgres' shortest round-trip form. Postgres switches
 * to exponent form outside [1e-4, 1e15) and pads the exponent (`1e-08`, `1.5e+15`), where
 * JavaScript writes decimals down to 1e-7 and up to 1e21 and exponents unpadded (`1e-8`);
 * from 2^52 up the two may also pick different digits for one double. So an exponent form
 * is marked ({@link EXPONENT_MARK} before its `e`) and {@link writeNumbersAsJavaScript}
 * rewrites it in Node, where it is rare. One call, no CASE: the statement is planned at
 * every execution (a limit as parameter keeps Postgres on custom plans), and planning time
 * grows with the expression tree: rewriting the exponent form in SQL (a CASE over a regular
 * expression's match) made a 20-pool read cost twice what its JSON costs to build.
 * NaN and infinities never reach here: the columns are numerics, checked.
 */
export function jsonNumber(float8: string): string {
  return `replace((${float8})::text, 'e', E'\\x01e')`;
}

/**
 * Marks a number Postgres wrote in exponent form, just before its `e`: a raw control
 * character, which no JSON text the statement writes can hold otherwise (strings escape them).
 */
export const EXPONENT_MARK = '\u0001';

/** A character of a number Postgres writes before its exponent: digits, its sign and point. */
const isMantissaChar = (code: number) => (code >= 0x30 && code <= 0x39) || code === 0x2e || code === 0x2d;
const isDigit = (code: number) => code >= 0x30 && code <= 0x39;

/**
 * `json` with every marked number written as JSON.stringify writes it: Postgres' digits
 * round-trip, so `Number()` of them is the very double, and `String()` its JavaScript form.
 * The marks are found with indexOf (a scan of raw memory), not a regular expression over
 * the whole text: a page of several megabytes with a few marks costs a millisecond, not tens.
 */
export function writeNumbersAsJavaScript(json: string): string {
  let mark = json.indexOf(EXPONENT_MARK);
  if (mark < 0) return json;
  const out: string[] = [];
  let copied = 0;
  while (mark >= 0) {
    let start = mark;
    while (start > copied && isMantissaChar(json.charCodeAt(start - 1))) start--;
    // After the mark: `e`, the exponent's sign, its digits.
    let end = mark + 3;
    while (isDigit(json.charCodeAt(end))) end++;
    out.push(json.slice(copied, start), String(Number(json.slice(start, mark) + json.slice(mark + 1, end))));
    copied = end;
    mark = json.indexOf(EXPONENT_MARK, end);
  }
  out.push(json.slice(copied));
  return out.join('');
}

/**
 * A token amount in whole tokens as toTokens (modules/common/amounts.ts) computes it, as
 * JSON text: the float8 input of `<units>e-<decimals>` rounds that exact decimal once, as
 * Number() of the exact decimal string does. (Numeric arithmetic would not: Postgres gives
 * power(10::numeric, -17) only 16 decimal places, so 17 or 18 decimals came out as 0.)
 * The decimals are the row's `decimals` column, or what `decimalsOf` writes over the row's alias.
 */
export function renderedTokens(
  table: PgTable,
  unitsProperty: string,
  decimalsOf?: (alias: string) => string,
): ((alias: string) => string) | null {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const units = columns[unitsProperty];
  const decimals = columns.decimals;
  if (!units || units.columnType !== 'PgBigInt64') return null;
  if (decimalsOf) return (a) => tokensJson(`${a}."${units.name}"`, decimalsOf(a));
  return decimals ? (a) => tokensJson(`${a}."${units.name}"`, `${a}."${decimals.name}"`) : null;
}

/** Base units (SQL: an integer or an exact numeric sum) in whole tokens as JSON text, as toTokens computes them (see renderedTokens). */
export const tokensJson = (units: string, decimals: string) => jsonNumber(`((${units})::text || 'e-' || (${decimals})::text)::float8`);
