import { getTableColumns, getTableName } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { keysetClauses, newestFirstOrder } from './keyset.js';
import { type Db, readQueryOf } from '../db/client.js';

/**
 * Batched reads behind the DataLoaders: each function answers many parents with one
 * statement, so the statements a query runs depend on its shape, not on its rows. Every
 * statement text is built once per process (see `statement`), takes its keys as ONE array
 * parameter and runs through the database's read query (prepared on Postgres); rows come
 * back under their property names and are typed by `TableReader.decode`, not by the ORM.
 */

/**
 * How one table is read: its columns as a select list (`"created_at" AS "createdAt"`,
 * int8 as exact text, numeric as float8, generated search vectors left out), and the
 * decoder turning int8 text back into bigint. Drizzle's table definition supplies the
 * names and types once; the ORM takes no part in the reads themselves.
 */
export interface TableReader {
  name: string;
  /** The select list, with every column qualified by `alias`. */
  columns(alias: string): string;
  /** Turns a driver row into the table's row type, in place. */
  decode<T>(row: Record<string, unknown>): T;
}

/** What the reader selects of a column, and how it converts the value (null when unchanged). */
export function columnRead(column: PgColumn): { cast: string; convert: ((value: unknown) => unknown) | null } | null {
  switch (column.columnType) {
    case 'PgCustomColumn':
      return null; // tsvector: only ever searched, never read
    case 'PgBigInt64':
      return { cast: '::text', convert: (value) => BigInt(value as string) };
    case 'PgNumeric':
    case 'PgNumericNumber':
      // float8 of a numeric rounds its decimal text once, as Number() of that text does.
      return { cast: '::float8', convert: null };
    case 'PgEnumColumn':
      return { cast: '::text', convert: null };
    case 'PgTimestamp':
      // Text on postgres.js (Drizzle's driver turns its date parser off) and in JSON; Date on PGlite.
      return { cast: '', convert: toDate };
    default:
      return { cast: '', convert: null };
  }
}

const toDate = (value: unknown) => (value instanceof Date ? value : new Date(value as string));

const readers = new WeakMap<PgTable, TableReader>();

export function tableReader(table: PgTable): TableReader {
  let reader = readers.get(table);
  if (reader) return reader;
  const parts: string[] = [];
  const conversions: Array<[string, (value: unknown) => unknown]> = [];
  for (const [property, column] of Object.entries(getTableColumns(table)) as Array<[string, PgColumn]>) {
    const read = columnRead(column);
    if (!read) continue;
    parts.push(`{a}."${column.name}"${read.cast} AS "${property}"`);
    if (read.convert) conversions.push([property, read.convert]);
  }
  const list = parts.join(', ');
  reader = {
    name: getTableName(table),
    columns: (alias) => list.replaceAll('{a}', alias),
    decode<T>(row: Record<string, unknown>): T {
      for (const [property, convert] of conversions) {
        const value = row[property];
        if (value !== null && value !== undefined) row[property] = convert(value);
      }
      return row as T;
    },
  };
  readers.set(table, reader);
  return reader;
}

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

/** A keyset position in the newest-first order of a parent's children: the row's (createdAt, id). */
export interface ChildPosition {
  createdAt: Date;
  id: string;
}

/**
 * A condition on a child table, as SQL over the alias `c` (e.g. `c."read_at" IS NULL`),
 * with a name that keys its statements. Written by hand, never from input.
 */
export interface ChildCondition {
  name: string;
  sql: string;
}

/** Which children of each parent a page reads, in the newest-first order of every child list. */
export interface ChildPageRead {
  /** Rows per parent (the page's size + 1, to tell whether more exist). */
  limit: number;
  /** Read oldest first: the page ends at `cursor`, or at the list's end (`last`/`before`). */
  backward: boolean;
  /** Rows strictly past this position in the reading direction. */
  cursor: ChildPosition | null;
}

/**
 * The first `limit` rows of each parent in the read's direction, optionally past a cursor
 * and restricted by `where`, in one statement: a lateral join over the parent ids (one array
 * parameter) lets each parent use the (parent, created_at, id) index, forwards or backwards,
 * and stop after `limit` rows however large it grows.
 */
export async function childrenByParent<TRow extends Record<string, unknown>>(
  db: Db,
  table: PgTable,
  parentColumn: PgColumn,
  parentIds: readonly string[],
  read: ChildPageRead,
  where?: ChildCondition,
): Promise<Map<string, TRow[]>> {
  const reader = tableReader(table);
  const key = `children:${reader.name}.${parentColumn.name}:${where?.name ?? ''}:${read.backward ? 'backward' : ''}:${read.cursor ? 'cursor' : ''}`;
  const text = statement(key, () => {
    let next = 2; // $1 parent ids, $2 limit, then the cursor's key and id
    const keyset = keysetClauses(
      newestFirstOrder('c'),
      read.backward,
      read.cursor && { key: null, id: '' },
      (_value, type) => `$${++next}::${type}`,
    );
    const conditions = [`c."${parentColumn.name}" = parents.parent_id`];
    if (where) conditions.push(where.sql);
    if (keyset.past) conditions.push(keyset.past);
    return (
      `SELECT ${reader.columns('c')} FROM unnest($1::uuid[]) AS parents(parent_id) CROSS JOIN LATERAL ` +
      `(SELECT * FROM "${reader.name}" c WHERE ${conditions.join(' AND ')} ORDER BY ${keyset.orderBy} LIMIT $2) c`
    );
  });
  const params: unknown[] = [parentIds, read.limit];
  if (read.cursor) params.push(read.cursor.createdAt, read.cursor.id);
  const rows = await readQueryOf(db)<Record<string, unknown>>(text, params);
  return groupBy(
    rows.map((row) => reader.decode<TRow>(row)),
    propertyOf(parentColumn),
  );
}

/**
 * Which parents have a child (matching `where`) on the far side of `cursor` from a page read
 * in `backward`'s direction: at or before it going forward, at or after it going backward.
 * One statement per batch; each parent stops at its first such row.
 */
export async function parentsWithChildBeyond(
  db: Db,
  table: PgTable,
  parentColumn: PgColumn,
  parentIds: readonly string[],
  backward: boolean,
  cursor: ChildPosition,
  where?: ChildCondition,
): Promise<Set<string>> {
  const name = getTableName(table);
  const text = statement(`childBeyond:${name}.${parentColumn.name}:${where?.name ?? ''}:${backward ? 'backward' : ''}`, () => {
    let next = 1; // $1 parent ids, then the cursor's key and id
    const keyset = keysetClauses(newestFirstOrder('c'), backward, { key: null, id: '' }, (_value, type) => `$${++next}::${type}`);
    const conditions = [`c."${parentColumn.name}" = parents.parent_id`, keyset.beyond!];
    if (where) conditions.push(where.sql);
    return (
      `SELECT parents.parent_id::text AS "parentId" FROM unnest($1::uuid[]) AS parents(parent_id) WHERE EXISTS ` +
      `(SELECT 1 FROM "${name}" c WHERE ${conditions.join(' AND ')})`
    );
  });
  const rows = await readQueryOf(db)<{ parentId: string }>(text, [parentIds, cursor.createdAt, cursor.id]);
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
  const name = getTableName(table);
  const text = statement(`countByParent:${name}.${parentColumn.name}:${where?.name ?? ''}`, () => {
    const condition = where ? ` AND ${where.sql}` : '';
    return (
      `SELECT c."${parentColumn.name}" AS "parentId", count(*)::int AS "total" FROM "${name}" c ` +
      `WHERE c."${parentColumn.name}" = ANY($1::uuid[])${condition} GROUP BY c."${parentColumn.name}"`
    );
  });
  const rows = await readQueryOf(db)<{ parentId: string; total: number }>(text, [parentIds]);
  return new Map(rows.map((row) => [row.parentId, row.total]));
}

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
