import { getTableColumns } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';

/**
 * Columns as a rendered read writes them (db/nested-read.ts, RenderedObject): the JSON
 * value the response would hold after the row decoder (db/batch.ts, columnRead) and
 * GraphQL's serializers, written by Postgres instead.
 */

/**
 * The SQL of a column as the response writes it, over `alias`, and its kind, or null when
 * no rendering writes what the row decoder and GraphQL's serializers would (int8, json,
 * real, a timestamp without time zone). Timestamps as `Date.toISOString()` writes them: UTC,
 * milliseconds truncated (as `new Date()` of the driver's microsecond text truncates).
 */
export function renderedColumn(table: PgTable, property: string): { kind: RenderedColumnKind; sql: (alias: string) => string } | null {
  const column = (getTableColumns(table) as Record<string, PgColumn>)[property];
  if (!column) return null;
  const name = `"${column.name}"`;
  switch (column.columnType) {
    case 'PgUUID':
    case 'PgText':
    case 'PgVarchar':
      return { kind: 'text', sql: (a) => `${a}.${name}` };
    case 'PgInteger':
    case 'PgSmallInt':
      return { kind: 'int', sql: (a) => `${a}.${name}` };
    case 'PgBoolean':
      return { kind: 'boolean', sql: (a) => `${a}.${name}` };
    case 'PgNumeric':
    case 'PgNumericNumber':
    case 'PgDoublePrecision':
      return { kind: 'float', sql: (a) => `${a}.${name}::float8` };
    case 'PgEnumColumn':
      return { kind: 'enum', sql: (a) => `${a}.${name}::text` };
    case 'PgTimestamp':
      if (!(column as PgColumn & { withTimezone?: boolean }).withTimezone) return null;
      return { kind: 'timestamp', sql: (a) => `to_char(${a}.${name} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` };
    default:
      return null;
  }
}

export type RenderedColumnKind = 'text' | 'int' | 'boolean' | 'float' | 'enum' | 'timestamp';

/**
 * A token amount in whole tokens as toTokens (modules/common/amounts.ts) computes it: base
 * units times 10^-decimals is an exact numeric, and its float8 cast rounds that decimal
 * once, as Number() of the exact decimal string does (bench/lib/floor.ts writes the same).
 */
export function renderedTokens(table: PgTable, unitsProperty: string): ((alias: string) => string) | null {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const units = columns[unitsProperty];
  const decimals = columns.decimals;
  if (!units || !decimals || units.columnType !== 'PgBigInt64') return null;
  return (a) => `(${a}."${units.name}"::numeric * power(10::numeric, -${a}."${decimals.name}"))::float8`;
}
