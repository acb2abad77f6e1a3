import type { ReadQuery } from '../../db/client.js';
import { keysetClauses, type KeysetOrder } from '../../db/keyset.js';
import { type Page, pageOf, type PageRequest } from './pagination.js';
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
  const text =
    `SELECT ${select.list} FROM ${list.from}${list.selectJoins ? ` ${list.selectJoins}` : ''}${c.where()} ORDER BY ${keyset.orderBy} ` +
    // A fixed OFFSET clause (0 when unused) keeps one statement text, so one prepared statement, per shape.
    `LIMIT ${c.param(request.size + 1, 'int')} OFFSET ${c.param(offset, 'int')}`;
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
