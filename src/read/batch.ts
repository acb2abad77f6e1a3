import { getTableColumns } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { tableReader } from './columns.js';
import { type Db, readQueryOf } from '../db/client.js';

/**
 * Batched reads behind the DataLoaders: one statement answers many parents, so a query's statements depend on its shape, not its rows.
 * Keys go in as ONE array parameter (prepared on Postgres); rows come back by property name, decoded by `TableReader.decode`
 * (read/columns.ts), not the ORM. Pages of children and their counts: modules/common/keyset-page.ts.
 */

const statements = new Map<string, string>();

/** A statement text built once per process and key: per-request code never assembles SQL. */
export function statement(key: string, build: () => string): string {
  let text = statements.get(key);
  if (text === undefined) statements.set(key, (text = build()));
  return text;
}

/** Rows whose `column` is one of `keys`, grouped by that column's value. */
export async function rowsByKeys<TRow extends Record<string, unknown>>(
  db: Db,
  table: PgTable,
  column: PgColumn,
  keys: readonly string[],
): Promise<Map<string, TRow[]>> {
  const reader = tableReader(table);
  const text = statement(
    `rowsByKeys:${reader.name}.${column.name}`,
    () => `SELECT ${reader.columns('t')} FROM "${reader.name}" t WHERE t."${column.name}" = ANY($1::${column.getSQLType()}[])`,
  );
  const key = propertyOf(column);
  const groups = new Map<string, TRow[]>();
  for (const row of await readQueryOf(db)<Record<string, unknown>>(text, [keys])) {
    const decoded = reader.decode<TRow>(row);
    const group = groups.get(decoded[key] as string);
    if (group) group.push(decoded);
    else groups.set(decoded[key] as string, [decoded]);
  }
  return groups;
}

const columnKeys = new WeakMap<PgColumn, string>();

/** The property name a column has in rows. */
export function propertyOf(column: PgColumn): string {
  let key = columnKeys.get(column);
  if (key === undefined) {
    const columns = getTableColumns(column.table);
    key = Object.keys(columns).find((name) => columns[name] === column)!;
    columnKeys.set(column, key);
  }
  return key;
}
