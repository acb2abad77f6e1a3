import { and, count, desc, eq, getTableColumns, inArray, lt, or, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db } from './client.js';

/**
 * Batched reads behind the DataLoaders: each function answers many parents with one
 * statement, so the statements a query runs depend on its shape, not on its rows.
 */

type TableWithKeys = PgTable & { id: PgColumn; createdAt: PgColumn };

/** Rows whose `column` is one of `keys`, grouped by that column's value. */
export async function rowsByKeys<TRow extends Record<string, unknown>>(
  db: Db,
  table: PgTable,
  column: PgColumn,
  keys: readonly string[],
): Promise<Map<string, TRow[]>> {
  const rows = (await db.select().from(table).where(inArray(column, [...keys]))) as TRow[];
  return groupBy(rows, column);
}

/** A newest-first keyset position: rows strictly older than (createdAt, id). */
export interface NewestFirstAfter {
  createdAt: Date;
  id: string;
}

/**
 * The newest `limit` rows of each parent, optionally after a cursor and restricted by
 * `where`, in one statement: a lateral join over the parent ids lets each parent use the
 * (parent, created_at, id) index and stop after `limit` rows however large it grows.
 */
export async function newestChildrenByParent<TRow extends Record<string, unknown>>(
  db: Db,
  table: TableWithKeys,
  parentColumn: PgColumn,
  parentIds: readonly string[],
  limit: number,
  after: NewestFirstAfter | null,
  where?: SQL,
): Promise<Map<string, TRow[]>> {
  const conditions: SQL[] = [eq(parentColumn, sql`parents.parent_id`)];
  if (where) conditions.push(where);
  if (after) {
    conditions.push(
      or(
        lt(table.createdAt, after.createdAt),
        and(eq(table.createdAt, after.createdAt), lt(table.id, after.id)),
      )!,
    );
  }
  const page = db
    .select()
    .from(table)
    .where(and(...conditions))
    .orderBy(desc(table.createdAt), desc(table.id))
    .limit(limit)
    .as('page');
  const joined = (await db
    .select()
    .from(sql`unnest(ARRAY[${uuidList(parentIds)}]::uuid[]) AS parents(parent_id)`)
    .crossJoinLateral(page)) as unknown as Array<{ page: TRow }>;
  return groupBy(
    joined.map((row) => row.page),
    parentColumn,
  );
}

/** How many rows each parent has (of those matching `where`), in one statement. */
export async function countByParent(
  db: Db,
  table: PgTable,
  parentColumn: PgColumn,
  parentIds: readonly string[],
  where?: SQL,
): Promise<Map<string, number>> {
  const rows = await db
    .select({ parentId: parentColumn, total: count() })
    .from(table)
    .where(and(inArray(parentColumn, [...parentIds]), where))
    .groupBy(parentColumn);
  return new Map(rows.map((row) => [row.parentId as string, row.total]));
}

function uuidList(ids: readonly string[]): SQL {
  return sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );
}

function groupBy<TRow extends Record<string, unknown>>(rows: TRow[], column: PgColumn): Map<string, TRow[]> {
  const key = columnKey(column);
  const groups = new Map<string, TRow[]>();
  for (const row of rows) {
    const value = row[key] as string;
    const group = groups.get(value);
    if (group) group.push(row);
    else groups.set(value, [row]);
  }
  return groups;
}

const columnKeys = new WeakMap<PgColumn, string>();

/** The property name Drizzle gives a column in selected rows. */
function columnKey(column: PgColumn): string {
  let key = columnKeys.get(column);
  if (key === undefined) {
    const columns = getTableColumns(column.table);
    key = Object.keys(columns).find((name) => columns[name] === column)!;
    columnKeys.set(column, key);
  }
  return key;
}
