import { getTableColumns, getTableName } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';

/**
 * Per column kind: what a decoded read selects and how Node converts it (int8 as exact text, then bigint), and the JSON Postgres
 * writes for a rendered read (read/nested-read.ts, RenderedObject): the bytes JSON.stringify would write for the serialized value.
 */

export interface Column {
  property: string;
  /** Its SQL name. */
  name: string;
  /** Appended to the column in a decoded read's select list (`::text`: int8 exact, enums as text). */
  cast: string;
  /** Driver value to row value (null: as it comes). */
  convert: ((value: unknown) => unknown) | null;
  /**
   * JSON text over a row's alias (`null` for SQL NULL); null where SQL can't match the serializer (int8, json, real, timestamp without
   * time zone). Timestamps as `Date.toISOString()` writes them: UTC, microseconds truncated as `new Date()` of the driver's text does.
   */
  json: { kind: RenderedColumnKind; sql: (alias: string) => string } | null;
}

export type RenderedColumnKind = 'text' | 'int' | 'boolean' | 'float' | 'enum' | 'timestamp';

type Codec = Pick<Column, 'cast' | 'convert'> & { kind: RenderedColumnKind | null; json?: (sql: string) => string };

const toDate = (value: unknown) => (value instanceof Date ? value : new Date(value as string));
const quoted = (sql: string) => `'"' || ${sql}::text || '"'`;
const asText = (sql: string) => `${sql}::text`;
const float = (sql: string) => jsonNumber(`${sql}::float8`);

/** Null for a kind never read (a tsvector: only ever searched). */
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
      return { cast: '::float8', convert: null, kind: 'float', json: float };
    case 'PgDoublePrecision':
      return { cast: '', convert: null, kind: 'float', json: float };
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

/** `property` is Drizzle's name; throws when there is none, as a read graph naming a wrong one must. */
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

/** {@link Column.json}; null for none, or no such column. */
export const renderedColumn = (table: PgTable, property: string) => columnsOf(table).get(property)?.json ?? null;

/**
 * A decoded read of one table: `columns` is the select list qualified by `alias` (`"created_at" AS "createdAt"`); `decode` converts a
 * driver row in place. Drizzle's table definition supplies names and types; the ORM takes no part in the reads.
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
 * A float8 as JSON text in Postgres' shortest round-trip digits. Postgres uses exponents outside [1e-4, 1e15), padded (`1e-08`,
 * `1.5e+15`); JavaScript writes decimals from 1e-7 to 1e21, exponents unpadded (`1e-8`), and from 2^52 may pick other digits for a
 * double. So exponent forms are marked ({@link EXPONENT_MARK} before the `e`) and rewritten, rarely, by {@link writeNumbersAsJavaScript}.
 * One call, no CASE: a statement may be planned at each execution and planning time grows with the expression tree; a CASE over a
 * regex match made a 20-pool read cost twice its JSON building. NaN and infinities never reach here: the columns are numerics, checked.
 */
export function jsonNumber(float8: string): string {
  return `replace((${float8})::text, 'e', E'\\x01e')`;
}

/** Put just before an exponent's `e`: a raw control character, which the statement's JSON cannot otherwise hold (strings escape them). */
export const EXPONENT_MARK = '\u0001';

const isDigit = (code: number) => code >= 0x30 && code <= 0x39;
/** What precedes a number's exponent: digits, sign and point. */
const isMantissaChar = (code: number) => isDigit(code) || code === 0x2e || code === 0x2d;

/**
 * Rewrites each marked number as JSON.stringify would: Postgres' digits round-trip, so `String(Number(digits))` is exact. indexOf,
 * not a regex over the whole text: a multi-megabyte page with a few marks costs a millisecond, not tens.
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
 * Whole tokens as JSON text, as toTokens (modules/common/amounts.ts) computes them: float8 input of `<units>e-<decimals>` rounds the
 * exact decimal once, as Number() does; numeric arithmetic gives 0 (power(10::numeric, -17) has 16 decimal places). Decimals: the
 * row's `decimals` column, or `decimalsOf` over the row's alias.
 */
export function renderedTokens(
  table: PgTable,
  unitsProperty: string,
  decimalsOf?: (alias: string) => string,
): ((alias: string) => string) | null {
  const { [unitsProperty]: units, decimals } = getTableColumns(table) as Record<string, PgColumn>;
  const decimalsSql = decimalsOf ?? (decimals && ((a: string) => `${a}."${decimals.name}"`));
  if (!units || units.columnType !== 'PgBigInt64' || !decimalsSql) return null;
  return (a) => tokensJson(`${a}."${units.name}"`, decimalsSql(a));
}

/** Base units (SQL: an integer or an exact numeric sum) in whole tokens as JSON text; see renderedTokens. */
export const tokensJson = (units: string, decimals: string) => jsonNumber(`((${units})::text || 'e-' || (${decimals})::text)::float8`);
