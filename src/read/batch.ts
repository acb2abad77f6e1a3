import { getTableColumns, getTableName } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { beyondCursorSql, type ChildPage, childRowsSql, countSql, newestFirstOrder, type PagePosition } from './keyset.js';
import { tableReader } from './columns.js';
import { type Db, readQueryOf } from '../db/client.js';

/**
 * Batched reads behind the DataLoaders: each function answers many parents with one
 * statement, so the statements a query runs depend on its shape, not on its rows. Every
 * statement text is built once per process (see `statement`), takes its keys as ONE array
 * parameter and runs through the database's read query (prepared on Postgres); rows come
 * back under their property names and are typed by `TableReader.decode` (read/columns.ts),
 * not by the ORM. A page's rows, count and far-side flag are the planned read's own SQL
 * (read/keyset.ts), over the batch's parents rather than one parent row.
 */

const statements = new Map<string, string>();

/** A statement text built once per process and key: per-request code never assembles SQL. */
export function statement(key: string, build: () => string): string {
  let text = statements.get(key);
  if (text === undefined) {
    text = build();
    statements.set(key, text);
  }
  return text;
}

/** The Postgres array type of a key column's values, for `= ANY($1::<type>[])`. */
const arrayType = (column: PgColumn) => `${column.getSQLType()}[]`;

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
    () => `SELECT ${reader.columns('t')} FROM "${reader.name}" t WHERE t."${column.name}" = ANY($1::${arrayType(column)})`,
  );
  const rows = await readQueryOf(db)<Record<string, unknown>>(text, [keys]);
  return groupBy(
    rows.map((row) => reader.decode<TRow>(row)),
    propertyOf(column),
  );
}

/**
 * A condition on a child table besides its parent, as SQL over the child's alias (e.g.
 * `read_at IS NULL`), with a name that keys its statements. Written by hand, never from input.
 */
export interface ChildCondition {
  name: string;
  sql: (child: string) => string;
}

/** The children of a batch's parents (`parents.parent_id`, unnested from $1), `where` holding too. */
function batchChildren(table: PgTable, parentColumn: PgColumn, where: ChildCondition | undefined): Pick<ChildPage, 'table' | 'ofParent'> {
  return {
    table: getTableName(table),
    ofParent: (child) => `${child}."${parentColumn.name}" = parents.parent_id${where ? ` AND ${where.sql(child)}` : ''}`,
  };
}

/** A page of them newest first, as the rendered read pages children; the statement's parameters after $1 are numbered by `param`. */
function batchChildPage(table: PgTable, parentColumn: PgColumn, page: PagePosition, where: ChildCondition | undefined): ChildPage {
  let next = 1;
  return { ...batchChildren(table, parentColumn, where), order: newestFirstOrder, page, param: (_value, type) => `$${++next}::${type}` };
}

const PARENTS = 'unnest($1::uuid[]) AS parents(parent_id)';
const statementKey = (kind: string, table: PgTable, parentColumn: PgColumn, where: ChildCondition | undefined, ...rest: unknown[]) =>
  [kind, getTableName(table), parentColumn.name, where?.name ?? '', ...rest].join(':');

/**
 * A page of each parent's children (the first `page.size + 1` rows in the reading direction,
 * to tell whether more exist), in one statement: a lateral join over the parent ids lets
 * each parent use the (parent, created_at, id) index, forwards or backwards, and stop after
 * the page however large it grows.
 */
export async function childrenByParent<TRow extends Record<string, unknown>>(
  db: Db,
  table: PgTable,
  parentColumn: PgColumn,
  parentIds: readonly string[],
  page: PagePosition,
  where?: ChildCondition,
): Promise<Map<string, TRow[]>> {
  const reader = tableReader(table);
  const key = statementKey('children', table, parentColumn, where, page.size, page.backward, page.cursor !== null);
  const text = statement(key, () => {
    const from = childRowsSql(batchChildPage(table, parentColumn, page, where), 'c', page.size + 1);
    return `SELECT ${reader.columns('c')} FROM ${PARENTS} CROSS JOIN LATERAL ${from}`;
  });
  const rows = await readQueryOf(db)<Record<string, unknown>>(text, [parentIds, ...cursorValues(page)]);
  return groupBy(
    rows.map((row) => reader.decode<TRow>(row)),
    propertyOf(parentColumn),
  );
}

/**
 * Which parents have a child (matching `where`) on the far side of the page's cursor: at or
 * before it going forward, at or after it going backward. One statement per batch; each
 * parent stops at its first such row.
 */
export async function parentsWithChildBeyond(
  db: Db,
  table: PgTable,
  parentColumn: PgColumn,
  parentIds: readonly string[],
  page: PagePosition,
  where?: ChildCondition,
): Promise<Set<string>> {
  const text = statement(statementKey('childBeyond', table, parentColumn, where, page.backward), () => {
    const beyond = beyondCursorSql(batchChildPage(table, parentColumn, page, where), 'c')!;
    return `SELECT parents.parent_id::text AS "parentId" FROM ${PARENTS} WHERE ${beyond}`;
  });
  const rows = await readQueryOf(db)<{ parentId: string }>(text, [parentIds, ...cursorValues(page)]);
  return new Set(rows.map((row) => row.parentId));
}

/** How many rows each parent has (of those matching `where`), in one statement. */
export async function countByParent(
  db: Db,
  table: PgTable,
  parentColumn: PgColumn,
  parentIds: readonly string[],
  where?: ChildCondition,
): Promise<Map<string, number>> {
  const text = statement(statementKey('countByParent', table, parentColumn, where), () => {
    const count = countSql(batchChildren(table, parentColumn, where), 'c');
    return `SELECT parents.parent_id::text AS "parentId", ${count} AS "total" FROM ${PARENTS}`;
  });
  const rows = await readQueryOf(db)<{ parentId: string; total: number }>(text, [parentIds]);
  return new Map(rows.map((row) => [row.parentId, row.total]));
}

/** The values of a page's cursor parameters, in the order keysetClauses numbers them: its key, then its id. */
const cursorValues = (page: PagePosition) => (page.cursor ? [page.cursor.key, page.cursor.id] : []);

function groupBy<TRow extends Record<string, unknown>>(rows: TRow[], key: string): Map<string, TRow[]> {
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
