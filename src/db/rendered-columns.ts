import { getTableColumns } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';

/**
 * Columns as a rendered read writes them (db/nested-read.ts, RenderedObject): the JSON
 * value the response would hold after the row decoder (db/batch.ts, columnRead) and
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
        sql: orNull((a) => `'"' || to_char(${a}.${name} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'`),
      };
    default:
      return null;
  }
}

export type RenderedColumnKind = 'text' | 'int' | 'boolean' | 'float' | 'enum' | 'timestamp';

/**
 * A float8 as JSON.stringify writes a number. Postgres writes the same shortest digits but
 * switches to exponent form outside [1e-4, 1e15) with a two-digit exponent (`1e-08`,
 * `1.5e+15`), where JavaScript writes decimals down to 1e-7 and up to 1e21, and exponents
 * without padding (`1e-8`). Plain text is the common case; only an exponent form is
 * rewritten. From 2^52 up, a decimal can lie exactly halfway between two doubles, and
 * there Postgres' digits differ from JavaScript's (`3.9999999999999997e+23` for `4e+23`):
 * such a value writes {@link NOT_RENDERED} instead, and the read is executed. NaN and
 * infinities never reach here: the columns are numerics, checked.
 */
export function jsonNumber(float8: string): string {
  const text = `(${float8})::text`;
  return `CASE WHEN strpos(${text}, 'e') = 0 THEN ${text} ELSE (${JS_EXPONENT.replaceAll('$TEXT', () => text)}) END`;
}

/**
 * What a rendering writes for a value it cannot write as JSON.stringify would: a raw
 * control character, which no JSON text the statement writes can hold otherwise (strings
 * escape them). A rendered read whose text holds it is executed instead.
 */
export const NOT_RENDERED = '\u0001';

const JS_EXPONENT =
  `SELECT CASE WHEN abs($TEXT::float8) >= 4503599627370496 THEN chr(1) ` +
  `WHEN x.e <= -7 OR x.e >= 21 THEN x.s || x.d || coalesce('.' || x.f, '') || 'e' || CASE WHEN x.e < 0 THEN '-' ELSE '+' END || abs(x.e) ` +
  `WHEN x.e < 0 THEN x.s || '0.' || repeat('0', -x.e - 1) || x.d || coalesce(x.f, '') ` +
  `WHEN length(coalesce(x.f, '')) <= x.e THEN x.s || x.d || coalesce(x.f, '') || repeat('0', x.e - length(coalesce(x.f, ''))) ` +
  `ELSE x.s || x.d || substr(x.f, 1, x.e) || '.' || substr(x.f, x.e + 1) END ` +
  `FROM (SELECT m[1] AS s, m[2] AS d, m[3] AS f, m[4]::int AS e FROM regexp_match($TEXT, '^(-?)(\\d)(?:\\.(\\d+))?e([+-]\\d+)$') m) x`;

/**
 * A token amount in whole tokens as toTokens (modules/common/amounts.ts) computes it, as
 * JSON text: the float8 input of `<units>e-<decimals>` rounds that exact decimal once, as
 * Number() of the exact decimal string does. (Numeric arithmetic would not: Postgres gives
 * power(10::numeric, -17) only 16 decimal places, so 17 or 18 decimals came out as 0.)
 */
export function renderedTokens(table: PgTable, unitsProperty: string): ((alias: string) => string) | null {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const units = columns[unitsProperty];
  const decimals = columns.decimals;
  if (!units || !decimals || units.columnType !== 'PgBigInt64') return null;
  return (a) => tokensJson(`${a}."${units.name}"`, `${a}."${decimals.name}"`);
}

/** Base units (SQL: an integer or an exact numeric sum) in whole tokens as JSON text, as toTokens computes them (see renderedTokens). */
export const tokensJson = (units: string, decimals: string) => jsonNumber(`((${units})::text || 'e-' || (${decimals})::text)::float8`);
