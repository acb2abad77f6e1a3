import { isoTimestampSql } from './columns.js';

/**
 * Keyset paging's SQL, in one place for every list (pools and their sorts, child lists,
 * the nested read, the services' own lists): a page reads the rows strictly past a cursor
 * in its reading direction, and a backward page (`last`/`before`) reads the list's order
 * reversed, so the index serving the list serves it backwards; the caller turns the rows
 * back (pageOf in modules/common/pagination.ts).
 */

/** A list's order: by `key`, ties broken by `id` in the same direction (SQL expressions). */
export interface KeysetOrder {
  key: string;
  id: string;
  descending: boolean;
  /** The Postgres type of a cursor's key. */
  keyType: string;
}

/** The name of that order in its cursors (pagination.ts, encodeCursor). */
export const NEWEST_FIRST = 'NEWEST_FIRST';

/** The order of every child list (and streaks, transactions): newest first over `alias`, its created_at then id. */
export const newestFirstOrder = (alias: string): KeysetOrder => ({
  key: `${alias}."created_at"`,
  id: `${alias}."id"`,
  descending: true,
  keyType: 'timestamptz',
});

/**
 * The keyset clauses of a page over a list ordered by `key` then `id` (both SQL
 * expressions), read forward or `backward` from `cursor`: the condition of the rows the
 * page reads from (strictly past the cursor in the reading direction), the condition of
 * the rows on the cursor's other side (for the far-side page flag), and the ORDER BY of
 * the read (the list's order, or its reverse for a backward page, so the same index serves
 * both). `param(value, type)` returns the SQL of a parameter: the cursor's key, then its id.
 */
export function keysetClauses(
  order: KeysetOrder,
  backward: boolean,
  cursor: { key: unknown; id: string } | null,
  param: (value: unknown, type: string) => string,
): { past: string | null; beyond: string | null; orderBy: string } {
  const readDescending = order.descending !== backward;
  const direction = readDescending ? 'DESC' : 'ASC';
  const orderBy = `${order.key} ${direction}, ${order.id} ${direction}`;
  if (!cursor) return { past: null, beyond: null, orderBy };
  const position = `(${param(cursor.key, order.keyType)}, ${param(cursor.id, 'uuid')})`;
  const row = `(${order.key}, ${order.id})`;
  return {
    past: `${row} ${readDescending ? '<' : '>'} ${position}`,
    beyond: `${row} ${readDescending ? '>=' : '<='} ${position}`,
    orderBy,
  };
}

/** A keyset position in a list's order: the row's key (its order's key, as the cursor holds it) and id. */
export interface KeysetPosition {
  key: unknown;
  id: string;
}

/**
 * How a parent's children are listed (newest first, {@link NEWEST_FIRST_LIST}, unless a field's
 * arguments ask otherwise: a user's predictions by stake, or filtered by their pool's state):
 * the order over a child's alias, its cursors' name and key (encodeCursor's first two
 * elements, the key as SQL writing its text over the alias), and the rows it keeps, as SQL
 * over the alias, its values numbered by `param`.
 */
export interface ChildList {
  name: string;
  order: (alias: string) => KeysetOrder;
  cursorKey: (alias: string) => string;
  where?: (alias: string, param: (value: unknown, type: string) => string) => string;
}

/** Every child list's default: newest first, its cursors' key the row's created_at as toISOString() writes it. */
export const NEWEST_FIRST_LIST: ChildList = {
  name: NEWEST_FIRST,
  order: newestFirstOrder,
  cursorKey: (alias) => isoTimestampSql(`${alias}."created_at"`),
};

/** A page of children in their list's order: `size` rows, forward or backward from `cursor` (a page request as parsed, modules/common/pagination.ts, is one). */
export interface PagePosition {
  size: number;
  backward: boolean;
  cursor: KeysetPosition | null;
}

/**
 * A page of a parent's children as a statement reads it, for the rendered read's correlated
 * subqueries (read/nested-read.ts) and the loaders' batches (read/batch.ts) alike: their
 * table, the condition over a child's alias making it the parent's (and any other the list
 * has), the list's order, the page, and how a value becomes a parameter.
 */
export interface ChildPage {
  table: string;
  ofParent: (child: string) => string;
  order: (child: string) => KeysetOrder;
  page: PagePosition;
  param: (value: unknown, type: string) => string;
}

/**
 * The page's rows as a FROM item aliased `child`: `limit` of the parent's children past the
 * page's cursor, walking the (parent, key, id) index in the reading direction.
 */
export function childRowsSql({ table, ofParent, order, page, param }: ChildPage, child: string, limit: number): string {
  // The page size is written into the text (an integer the page arguments bounded), not a
  // parameter: with LIMIT $n Postgres' generic plan guesses a tenth of the table, judges it
  // dearer than the custom plans and plans the whole statement again at every execution.
  if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`a page of ${limit} rows`);
  const keyset = keysetClauses(order(child), page.backward, page.cursor, param);
  const position = keyset.past ? ` AND ${keyset.past}` : '';
  return `(SELECT * FROM "${table}" ${child} WHERE ${ofParent(child)}${position} ORDER BY ${keyset.orderBy} LIMIT ${limit}) ${child}`;
}

/** How many children the parent has in all (an int). */
export function countSql({ table, ofParent }: Pick<ChildPage, 'table' | 'ofParent'>, child: string): string {
  return `(SELECT count(*)::int FROM "${table}" ${child}c WHERE ${ofParent(`${child}c`)})`;
}

/** Whether the parent has children on the other side of the page's cursor (a boolean); null without a cursor, where there are none. */
export function beyondCursorSql({ table, ofParent, order, page, param }: ChildPage, child: string): string | null {
  if (!page.cursor) return null;
  const beyond = keysetClauses(order(child), page.backward, page.cursor, param).beyond;
  return `EXISTS (SELECT 1 FROM "${table}" ${child} WHERE ${ofParent(child)} AND ${beyond})`;
}
