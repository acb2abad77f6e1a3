import DataLoader from 'dataloader';
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

/** The page's select list, conditions (the filter's, then the cursor's) and order over `c`. */
function pageClauses<T extends { id: string }>(list: KeysetList<T>, request: PageRequest, c: Conditions) {
  const select = list.select(c);
  list.filter(c);
  const keyset = keysetClauses(list.order, request.backward, request.cursor, (value, type) => c.param(value, type));
  if (keyset.past) c.add(keyset.past);
  const rowsFrom = `${list.from}${list.selectJoins ? ` ${list.selectJoins}` : ''}`;
  return { select, rowsFrom, orderBy: keyset.orderBy, limit: `LIMIT ${pageLimit(request.size + 1)}` };
}

/** The conditions on `c` of the list's rows matching its filter (with `beyondCursorOf`, on the far side of that page's cursor), for a count or a probe. */
function matching<T extends { id: string }>(list: KeysetList<T>, c: Conditions, beyondCursorOf?: PageRequest): Conditions {
  list.filter(c);
  if (beyondCursorOf) {
    const { backward, cursor } = beyondCursorOf;
    c.add(keysetClauses(list.order, backward, cursor, (value, type) => c.param(value, type)).beyond!);
  }
  return c;
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
  const { select, rowsFrom, orderBy, limit } = pageClauses(list, request, c);
  // Past an offset, the page's keys are chosen first and only its rows are written: in one
  // select with the select list, Postgres computes the list (the rendered JSON and its
  // subqueries) for every skipped row too, so a deep page cost its whole offset.
  const text = offset
    ? `SELECT ${select.list} FROM ${rowsFrom} WHERE ${list.order.id} = ANY (ARRAY(SELECT ${list.order.id} FROM ${list.from}${c.where()} ` +
      `ORDER BY ${orderBy} ${limit} OFFSET ${c.param(offset, 'int')})) ORDER BY ${orderBy}`
    : `SELECT ${select.list} FROM ${rowsFrom}${c.where()} ORDER BY ${orderBy} ${limit}`;
  const rows = (await query<Record<string, unknown>>(text, c.params)).map(select.decode);
  const countAll = async () => {
    const m = matching(list, new Conditions());
    const [row] = await query<{ total: number }>(`SELECT count(*)::int AS "total" FROM ${list.from}${m.where()}`, m.params);
    return row?.total ?? 0;
  };
  const beyondCursor = async () => {
    const m = matching(list, new Conditions(), request);
    const [row] = await query<{ found: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${list.from}${m.where()}) AS "found"`, m.params);
    return row?.found === true;
  };
  return pageOf(rows, request, list.cursorOf, countAll, beyondCursor, offset);
}

/**
 * A keyset list kept per parent: `ofParent(parentId)` (SQL of the parent's id) is the
 * condition making a row the parent's, and `parentOf` reads that id from a decoded row.
 */
export interface ParentedList<T extends { id: string }> extends KeysetList<T> {
  ofParent: (parentId: string) => string;
  parentOf: (row: T) => string;
}

/** The batch's parents, their ids the statement's first parameter, and the SQL of one's id. */
const PARENTS = 'unnest($1::uuid[]) AS parents(parent_id)';
const PARENT_ID = 'parents.parent_id';

/**
 * One value per parent, written by `value` over the conditions of the parent's rows of `list`
 * (with `beyondCursorOf`, those on the far side of that page's cursor): one statement per batch.
 */
function perParentLoader<V, T extends { id: string }>(
  query: ReadQuery,
  list: ParentedList<T>,
  value: (where: string) => string,
  beyondCursorOf?: PageRequest,
): DataLoader<string, V> {
  return new DataLoader<string, V>(async (parentIds) => {
    const c = matching(list, new Conditions([parentIds]), beyondCursorOf);
    c.add(list.ofParent(PARENT_ID));
    const rows = await query<{ parentId: string; value: V }>(
      `SELECT ${PARENT_ID}::text AS "parentId", ${value(c.where())} AS "value" FROM ${PARENTS}`,
      c.params,
    );
    const byParent = new Map(rows.map((row) => [row.parentId, row.value]));
    return parentIds.map((id) => byParent.get(id)!);
  });
}

/** How many rows of `list` each parent has: one statement per batch. */
export function parentCountLoader<T extends { id: string }>(query: ReadQuery, list: ParentedList<T>): DataLoader<string, number> {
  return perParentLoader<number, T>(query, list, (where) => `(SELECT count(*)::int FROM ${list.from}${where})`);
}

/**
 * The page `request` of each parent's rows of `list`, for every parent a request asks in one
 * tick: one statement per batch (a lateral join over the parents' ids, each parent's page
 * read on its own index path and stopped after the page), where a resolver calling
 * {@link keysetPage} per parent cost one per row of the list above it. totalCount and the
 * far-side page flag, when selected, are one batched statement each.
 */
export function keysetPageLoader<T extends { id: string }>(
  query: ReadQuery,
  list: ParentedList<T>,
  request: PageRequest,
  /** The loader answering totalCount, when another counts the same rows (so they share its cache). */
  counts?: DataLoader<string, number>,
): DataLoader<string, Page<T>> {
  const totals = counts ?? parentCountLoader(query, list);
  const beyond = perParentLoader<boolean, T>(query, list, (where) => `EXISTS (SELECT 1 FROM ${list.from}${where})`, request);
  return new DataLoader<string, Page<T>>(async (parentIds) => {
    const c = new Conditions([parentIds]);
    const { select, rowsFrom, orderBy, limit } = pageClauses(list, request, c);
    c.add(list.ofParent(PARENT_ID));
    // The rows come parent by parent, each parent's in its subquery's order (a nested loop over the parents).
    const text = `SELECT l.* FROM ${PARENTS} CROSS JOIN LATERAL (SELECT ${select.list} FROM ${rowsFrom}${c.where()} ORDER BY ${orderBy} ${limit}) l`;
    const byParent = new Map<string, T[]>();
    for (const raw of await query<Record<string, unknown>>(text, c.params)) {
      const row = select.decode(raw);
      const parentId = list.parentOf(row);
      const rows = byParent.get(parentId);
      if (rows) rows.push(row);
      else byParent.set(parentId, [row]);
    }
    return parentIds.map((id) =>
      pageOf(
        byParent.get(id) ?? [],
        request,
        list.cursorOf,
        () => totals.load(id),
        () => beyond.load(id),
      ),
    );
  });
}
