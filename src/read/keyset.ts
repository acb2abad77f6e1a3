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
