import type { ReadQuery } from '../../db/client.js';
import { keysetClauses, type KeysetOrder } from '../../read/keyset.js';
import { MAX_PAGE_SIZE, type Page, pageOf, type PageRequest } from './pagination.js';
import { Conditions } from './sql-conditions.js';

/** One keyset-paged list read by a hand-written statement (see {@link keysetPage}). */
export interface KeysetList<T extends { id: string }> {
  /**
   * The select list and the decoder of its rows; the list may add parameters (a read
   * plan's relations do), ahead of the conditions'.
   */
  select: (c: Conditions) => { list: string; decode: (row: Record<string, unknown>) => T };
  /** FROM, with the joins the filter needs (also counted and probed). */
  from: string;
  /** Joins only the page's select list needs (left joins adding columns), after `from`. */
  selectJoins?: string;
  /** The list's conditions. */
  filter: (c: Conditions) => void;
  order: KeysetOrder;
  cursorOf: (row: T) => string;
}

/**
 * The LIMIT of a page, written into the statement's text: with `LIMIT $n` (or an `OFFSET $n`)
 * Postgres' generic plan guesses a tenth of the table, judges itself dearer than a custom
 * plan, and so the statement was planned again at every execution (about half of a pools
 * page's Postgres time, its text being long). A page size is an integer the page arguments
 * bound (at most MAX_PAGE_SIZE + 1 texts per list shape), so each (shape, size) is prepared
 * once and planned once; an offset, unbounded, stays a parameter, written only when paging
 * by position.
 */
function pageLimit(rows: number): string {
  if (!Number.isSafeInteger(rows) || rows < 1 || rows > MAX_PAGE_SIZE + 1) throw new Error(`a page of ${rows} rows`);
  return String(rows);
}

/**
 * A page of `list` for `request`: one statement, forward or backward (the reversed order,
 * LIMIT size + 1, turned back by pageOf), `offset` rows skipped when paging forward by
 * position. totalCount and the page flag on the cursor's far side each cost one more
 * statement, only when a query selects them.
 */
export async function keysetPage<T extends { id: string }>(
  query: ReadQuery,
  list: KeysetList<T>,
  request: PageRequest,
  offset = 0,
): Promise<Page<T>> {
  const c = new Conditions();
  const select = list.select(c);
  list.filter(c);
  const keyset = keysetClauses(list.order, request.backward, request.cursor, (value, type) => c.param(value, type));
  if (keyset.past) c.add(keyset.past);
  const rowsFrom = `${list.from}${list.selectJoins ? ` ${list.selectJoins}` : ''}`;
  const limit = `LIMIT ${pageLimit(request.size + 1)}`;
  // Past an offset, the page's keys are chosen first and only its rows are written: in one
  // select with the select list, Postgres computes the list (the rendered JSON and its
  // subqueries) for every skipped row too, so a deep page cost its whole offset.
  const text = offset
    ? `SELECT ${select.list} FROM ${rowsFrom} WHERE ${list.order.id} = ANY (ARRAY(SELECT ${list.order.id} FROM ${list.from}${c.where()} ` +
      `ORDER BY ${keyset.orderBy} ${limit} OFFSET ${c.param(offset, 'int')})) ORDER BY ${keyset.orderBy}`
    : `SELECT ${select.list} FROM ${rowsFrom}${c.where()} ORDER BY ${keyset.orderBy} ${limit}`;
  const rows = (await query<Record<string, unknown>>(text, c.params)).map(select.decode);
  const matching = (extra?: (c: Conditions) => void) => {
    const m = new Conditions();
    list.filter(m);
    extra?.(m);
    return m;
  };
  const countAll = async () => {
    const m = matching();
    const [row] = await query<{ total: number }>(`SELECT count(*)::int AS "total" FROM ${list.from}${m.where()}`, m.params);
    return row?.total ?? 0;
  };
  const beyondCursor = async () => {
    const m = matching((m) =>
      m.add(keysetClauses(list.order, request.backward, request.cursor, (value, type) => m.param(value, type)).beyond!),
    );
    const [row] = await query<{ found: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${list.from}${m.where()}) AS "found"`, m.params);
    return row?.found === true;
  };
  return pageOf(rows, request, list.cursorOf, countAll, beyondCursor, offset);
}
