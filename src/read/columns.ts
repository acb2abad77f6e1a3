import { getTableColumns, getTableName } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';

/**
 * How each kind of column is read, in one place: what a decoded read selects of it and how
 * Node turns that into the row's value (int8 as exact text, then bigint), and how a rendered
 * read (read/nested-read.ts, RenderedObject) writes it as JSON: the bytes JSON.stringify
 * writes for the value the decoder and GraphQL's serializers would give, written by Postgres.
 */

/** One readable column of a table. */
export interface Column {
  property: string;
  /** Its SQL name. */
  name: string;
  /** What a decoded read appends to the column in its select list (`::text`: int8 exact, enums as text). */
  cast: string;
  /** Turns the driver's value into the row's (null: as it comes). */
  convert: ((value: unknown) => unknown) | null;
  /**
   * Its JSON text over a row's alias, with the kind of value it is (`null` for SQL NULL); null
   * where no rendering writes what the serializer would (int8, json, real, a timestamp
   * without time zone). Timestamps as `Date.toISOString()` writes them: UTC, milliseconds
   * truncated (as `new Date()` of the driver's microsecond text truncates).
   */
  json: { kind: RenderedColumnKind; sql: (alias: string) => string } | null;
}

export type RenderedColumnKind = 'text' | 'int' | 'boolean' | 'float' | 'enum' | 'timestamp';

type Codec = Pick<Column, 'cast' | 'convert'> & { kind: RenderedColumnKind | null; json?: (sql: string) => string };

const toDate = (value: unknown) => (value instanceof Date ? value : new Date(value as string));
const quoted = (sql: string) => `'"' || ${sql}::text || '"'`;
const asText = (sql: string) => `${sql}::text`;

/** The codec of a column kind; null for one never read (a tsvector: only ever searched). */
function codecOf(column: PgColumn): Codec | null {
  switch (column.columnType) {
    case 'PgCustomColumn':
      return null;
    case 'PgUUID':
      return { cast: '', convert: null, kind: 'text', json: quoted };
    case 'PgText':
    case 'PgVarchar':
      return { cast: '', convert: null, kind: 'text', json: (sql) => `to_json(${sql})::text` };
    case 'PgInteger':
    case 'PgSmallInt':
      return { cast: '', convert: null, kind: 'int', json: asText };
    case 'PgBoolean':
      return { cast: '', convert: null, kind: 'boolean', json: asText };
    case 'PgBigInt64':
      return { cast: '::text', convert: (value) => BigInt(value as string), kind: null };
    case 'PgNumeric':
    case 'PgNumericNumber':
      // float8 of a numeric rounds its decimal text once, as Number() of that text does.
      return { cast: '::float8', convert: null, kind: 'float', json: (sql) => jsonNumber(`${sql}::float8`) };
    case 'PgDoublePrecision':
      return { cast: '', convert: null, kind: 'float', json: (sql) => jsonNumber(`${sql}::float8`) };
    case 'PgEnumColumn':
      return { cast: '::text', convert: null, kind: 'enum', json: quoted };
    case 'PgTimestamp':
      // Text on postgres.js (Drizzle's driver turns its date parser off) and in JSON; Date on PGlite.
      return (column as PgColumn & { withTimezone?: boolean }).withTimezone
        ? { cast: '', convert: toDate, kind: 'timestamp', json: (sql) => `'"' || ${isoTimestampSql(sql)} || '"'` }
        : { cast: '', convert: toDate, kind: null };
    default:
      return { cast: '', convert: null, kind: null };
  }
}

/** `table`'s column `property` (Drizzle's); throws when it has none, as a read graph naming a wrong one must. */
export function pgColumn(table: PgTable, property: string): PgColumn {
  const column = (getTableColumns(table) as Record<string, PgColumn>)[property];
  if (!column) throw new Error(`${getTableName(table)} has no column ${property}`);
  return column;
}

const columnsByTable = new WeakMap<PgTable, Map<string, Column>>();

/** A table's readable columns, by property. */
export function columnsOf(table: PgTable): ReadonlyMap<string, Column> {
  let columns = columnsByTable.get(table);
  if (columns) return columns;
  columns = new Map();
  for (const [property, column] of Object.entries(getTableColumns(table)) as Array<[string, PgColumn]>) {
    const codec = codecOf(column);
    if (!codec) continue;
    const { cast, convert, kind, json } = codec;
    const name = `"${column.name}"`;
    const write = json && ((alias: string) => json(`${alias}.${name}`));
    const sql = write && (column.notNull ? write : (alias: string) => `coalesce(${write(alias)}, 'null')`);
    columns.set(property, { property, name: column.name, cast, convert, json: kind && sql ? { kind, sql } : null });
  }
  columnsByTable.set(table, columns);
  return columns;
}

/** A column's rendering (see {@link Column.json}); null for none, or no such column. */
export const renderedColumn = (table: PgTable, property: string) => columnsOf(table).get(property)?.json ?? null;

/**
 * How a decoded read reads one table: its columns as a select list (`"created_at" AS
 * "createdAt"`), every column qualified by `alias`, and the decoder turning a driver row into
 * the table's row type, in place. Drizzle's table definition supplies the names and types
 * once; the ORM takes no part in the reads themselves.
 */
export interface TableReader {
  name: string;
  columns(alias: string): string;
  decode<T>(row: Record<string, unknown>): T;
}

const readers = new WeakMap<PgTable, TableReader>();

export function tableReader(table: PgTable): TableReader {
  let reader = readers.get(table);
  if (reader) return reader;
  const columns = [...columnsOf(table).values()];
  const list = columns.map((c) => `{a}."${c.name}"${c.cast} AS "${c.property}"`).join(', ');
  const conversions = columns.filter((c) => c.convert);
  reader = {
    name: getTableName(table),
    columns: (alias) => list.replaceAll('{a}', alias),
    decode<T>(row: Record<string, unknown>): T {
      for (const { property, convert } of conversions) {
        const value = row[property];
        if (value !== null && value !== undefined) row[property] = convert!(value);
      }
      return row as T;
    },
  };
  readers.set(table, reader);
  return reader;
}

/** A timestamptz as `Date.toISOString()` writes it (text, unquoted). */
export const isoTimestampSql = (sql: string) => `to_char(${sql} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

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
