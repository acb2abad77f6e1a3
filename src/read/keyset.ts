import { isoTimestampSql } from './columns.js';

/**
 * Keyset paging's SQL for every list. A page reads rows strictly past its cursor; a backward page (`last`/`before`) reads the order
 * reversed, so the same index serves it backwards, and the caller turns the rows back (pageOf in modules/common/pagination.ts).
 */

/** A list's order: by `key`, ties broken by `id` in the same direction (SQL expressions); `keyType`: a cursor key's Postgres type. */
export interface KeysetOrder {
  key: string;
  id: string;
  descending: boolean;
  keyType: string;
}

/** The name of that order in its cursors (pagination.ts, encodeCursor). */
export const NEWEST_FIRST = 'NEWEST_FIRST';

/** The order of every child list, and of streaks and transactions. */
export const newestFirstOrder = (alias: string): KeysetOrder => ({
  key: `${alias}."created_at"`,
  id: `${alias}."id"`,
  descending: true,
  keyType: 'timestamptz',
});

/**
 * `past`: the rows the page reads; `beyond`: those on the cursor's other side (for the far-side page flag); `orderBy`: reversed for
 * a backward page. `param` is called for the cursor's key, then its id.
 */
export function keysetClauses(
  order: KeysetOrder,
  backward: boolean,
  cursor: PagePosition['cursor'],
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

/**
 * How a parent's children are listed: {@link NEWEST_FIRST_LIST} unless a field's arguments ask otherwise (a user's predictions by
 * stake, or filtered by their pool's state). All SQL over a child's alias: `name` and `cursorKey` are encodeCursor's first two
 * elements (the key as SQL writing its text); `where` keeps rows, its values numbered by `param`.
 */
export interface ChildList {
  name: string;
  order: (alias: string) => KeysetOrder;
  cursorKey: (alias: string) => string;
  where?: ChildCondition;
}

/** Rows a list keeps besides its parent's (SQL over a child's alias, values numbered by `param`): hand-written, never from input. */
export type ChildCondition = (alias: string, param: (value: unknown, type: string) => string) => string;

/** Cursors hold created_at as toISOString() writes it. */
export const NEWEST_FIRST_LIST: ChildList = {
  name: NEWEST_FIRST,
  order: newestFirstOrder,
  cursorKey: (alias) => isoTimestampSql(`${alias}."created_at"`),
};

/** `size` rows forward or backward from `cursor` (a row's key, as the cursor holds it, and id); a parsed page request is one. */
export interface PagePosition {
  size: number;
  backward: boolean;
  cursor: { key: unknown; id: string } | null;
}

/**
 * A page of a parent's children, for the rendered read's correlated subqueries (read/nested-read.ts) and the loaders' batches
 * (modules/common/keyset-page.ts) alike, so both write the same SQL. `ofParent` also holds any other condition the list has.
 */
export interface ChildPage {
  table: string;
  ofParent: (child: string) => string;
  order: (child: string) => KeysetOrder;
  page: PagePosition;
  param: (value: unknown, type: string) => string;
}

/** Each value pushed onto `params`, its placeholder `$n::type`. */
export const paramOf = (params: unknown[]) => (value: unknown, type: string) => {
  params.push(value);
  return `$${params.length}::${type}`;
};

/** The page of `list`'s rows of `table` whose `parentColumn` is `parentId` (SQL: a parent row's id, or a batch's parent). */
export function childPage(
  table: string,
  parentColumn: string,
  parentId: string,
  { where, order }: Pick<ChildList, 'order' | 'where'>,
  page: PagePosition,
  params: unknown[],
): ChildPage {
  const param = paramOf(params);
  const ofParent = (child: string) => `${child}."${parentColumn}" = ${parentId}${where ? ` AND ${where(child, param)}` : ''}`;
  return { table, ofParent, order, page, param };
}

/** The list's order over `child`, or (`reverse`) the order a backward page reads it in. */
export const orderBySql = (of: ChildPage, child: string, reverse: boolean) =>
  keysetClauses(of.order(child), reverse, null, () => '').orderBy;

/** The page's rows as a FROM item aliased `child`, walking the (parent, key, id) index in the reading direction. */
export function childRowsSql({ table, ofParent, order, page, param }: ChildPage, child: string, limit: number): string {
  // The limit is written into the text (page arguments bound it), not a parameter: with LIMIT $n Postgres' generic plan guesses
  // a tenth of the table, judges it dearer than the custom plans and replans the whole statement at every execution.
  if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`a page of ${limit} rows`);
  const keyset = keysetClauses(order(child), page.backward, page.cursor, param);
  const position = keyset.past ? ` AND ${keyset.past}` : '';
  return `(SELECT * FROM "${table}" ${child} WHERE ${ofParent(child)}${position} ORDER BY ${keyset.orderBy} LIMIT ${limit}) ${child}`;
}

/** How many children the parent has in all (an int). */
export function countSql({ table, ofParent }: Pick<ChildPage, 'table' | 'ofParent'>, child: string): string {
  return `(SELECT count(*)::int FROM "${table}" ${child}c WHERE ${ofParent(`${child}c`)})`;
}

/** Whether the parent has children beyond the page's cursor (a boolean); null without a cursor, where there are none. */
export function beyondCursorSql({ table, ofParent, order, page, param }: ChildPage, child: string): string | null {
  if (!page.cursor) return null;
  const beyond = keysetClauses(order(child), page.backward, page.cursor, param).beyond;
  return `EXISTS (SELECT 1 FROM "${table}" ${child} WHERE ${ofParent(child)} AND ${beyond})`;
}
