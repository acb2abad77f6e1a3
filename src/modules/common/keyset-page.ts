import DataLoader from 'dataloader';
import type { ReadQuery } from '../../db/client.js';
import { keysetClauses, type KeysetOrder } from '../../read/keyset.js';
import { type PageRendering, renderedSelect, renderedTexts } from '../../read/nested-read.js';
import { encodeCursor, MAX_PAGE_SIZE, type Page, pageOf, type PageRequest } from './pagination.js';
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

/** What a page reads of a list besides its select list: its rows, their conditions and order. */
type KeysetRows<T extends { id: string }> = Omit<KeysetList<T>, 'select' | 'cursorOf'>;

/** The list's conditions on `c` (the filter's, then the cursor's), its FROM with the select list's joins, its ORDER BY and LIMIT. */
function pageClauses<T extends { id: string }>(list: KeysetRows<T>, request: PageRequest, c: Conditions) {
  list.filter(c);
  const keyset = keysetClauses(list.order, request.backward, request.cursor, (value, type) => c.param(value, type));
  if (keyset.past) c.add(keyset.past);
  const rowsFrom = `${list.from}${list.selectJoins ? ` ${list.selectJoins}` : ''}`;
  return { rowsFrom, orderBy: keyset.orderBy, limit: `LIMIT ${pageLimit(request.size + 1)}` };
}

/** The conditions on `c` of the list's rows matching its filter (with `beyondCursorOf`, on the far side of that page's cursor), for a count or a probe. */
function matching<T extends { id: string }>(list: KeysetRows<T>, c: Conditions, beyondCursorOf?: PageRequest): Conditions {
  list.filter(c);
  if (beyondCursorOf) {
    const { backward, cursor } = beyondCursorOf;
    c.add(keysetClauses(list.order, backward, cursor, (value, type) => c.param(value, type)).beyond!);
  }
  return c;
}

/**
 * The statement reading a page's rows, each as `selectList` writes it, `offset` rows skipped
 * when paging forward by position.
 */
function pageRowsSql<T extends { id: string }>(
  list: KeysetRows<T>,
  selectList: string,
  request: PageRequest,
  offset: number,
  c: Conditions,
): string {
  const { rowsFrom, orderBy, limit } = pageClauses(list, request, c);
  // Past an offset, the page's keys are chosen first and only its rows are written: in one
  // select with the select list, Postgres computes the list (the rendered JSON and its
  // subqueries) for every skipped row too, so a deep page cost its whole offset.
  return offset
    ? `SELECT ${selectList} FROM ${rowsFrom} WHERE ${list.order.id} = ANY (ARRAY(SELECT ${list.order.id} FROM ${list.from}${c.where()} ` +
        `ORDER BY ${orderBy} ${limit} OFFSET ${c.param(offset, 'int')})) ORDER BY ${orderBy}`
    : `SELECT ${selectList} FROM ${rowsFrom}${c.where()} ORDER BY ${orderBy} ${limit}`;
}

/**
 * The page of `rows` (as {@link pageRowsSql} read them, one past the page): totalCount and
 * the page flag on the cursor's far side each cost one more statement, only when a query
 * selects them.
 */
function pageWithCounts<T extends { id: string }, R>(
  query: ReadQuery,
  list: KeysetRows<T>,
  request: PageRequest,
  rows: R[],
  cursorOf: (row: R) => string,
  offset: number,
): Page<R> {
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
  return pageOf(rows, request, cursorOf, countAll, beyondCursor, offset);
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
  const text = pageRowsSql(list, select.list, request, offset, c);
  const rows = (await query<Record<string, unknown>>(text, c.params)).map(select.decode);
  return pageWithCounts(query, list, request, rows, list.cursorOf, offset);
}

/**
 * A keyset list whose page the statement writes (see {@link renderedKeysetPage}), over the
 * rows' `alias`: `cursor` names the list's order in its cursors and writes a row's key as
 * they hold it (SQL of its text).
 */
export interface RenderedKeysetList<T extends { id: string }> extends KeysetRows<T> {
  alias: string;
  cursor: { name: string; key: string };
}

/** A row of a page its statement wrote: its rendered objects' JSON texts in the plan's order, and its position (`key,id`) when cursors were asked for. */
export interface WrittenRow {
  objects: string[];
  position: string;
}

/**
 * Joins the rows' texts of a written page: a control character, which no JSON text the
 * statement writes holds raw (strings escape them; EXPONENT_MARK, read/columns.ts, is the
 * one it does write), nor a position.
 */
const ROW_SEPARATOR = '\u001e';

/**
 * A page of `list` as {@link keysetPage} reads it, its rows written by the statement: each
 * rendered object's texts and, with `cursors`, the rows' positions (else the page's cursors
 * are not known). `joined`, the rows are returned as one, each column's texts joined in the
 * read's order: the driver decodes one row whatever the page's size, and Node splits the
 * texts, where it decoded every row's columns.
 */
export async function renderedKeysetPage<T extends { id: string }>(
  query: ReadQuery,
  list: RenderedKeysetList<T>,
  request: PageRequest,
  offset: number,
  { objects, cursors, joined }: PageRendering,
): Promise<Page<WrittenRow>> {
  const c = new Conditions();
  const columns = objects.map((_, i) => `$j${i}`);
  const selected = [renderedSelect(objects, list.alias, c.params)];
  if (cursors) {
    selected.push(`concat(${list.cursor.key}, ',', ${list.order.id}) AS "$position"`);
    columns.push('$position');
  }
  // A connection selecting only its count or flags writes nothing of its rows.
  const rows = pageRowsSql(list, selected.filter(Boolean).join(', ') || '1', request, offset, c);
  const cursorOf = ({ position }: WrittenRow) => {
    const comma = position.lastIndexOf(',');
    return encodeCursor(list.cursor.name, position.slice(0, comma), position.slice(comma + 1));
  };
  if (!joined) {
    const written = (await query<Record<string, string>>(rows, c.params)).map((row) => ({
      objects: renderedTexts(row, objects.length),
      position: cursors ? row.$position! : '',
    }));
    return pageWithCounts(query, list, request, written, cursorOf, offset);
  }
  // The aggregates take the rows in the subquery's order (a plain aggregate over one
  // subquery, no join to reorder them): an ORDER BY of their own sorted the texts again,
  // and numbering the rows for it cost a window, a tenth of the statement together.
  const aggregates = columns.map((column) => `, string_agg(r."${column}", E'\\x1e') AS "${column}"`);
  const [row] = await query<Record<string, string | number | null>>(
    `SELECT count(*)::int AS "$rows"${aggregates.join('')} FROM (${rows}) r`,
    c.params,
  );
  const texts = (column: string) => (row?.[column] as string | null | undefined)?.split(ROW_SEPARATOR) ?? [];
  const objectTexts = objects.map((_, i) => texts(`$j${i}`));
  const positions = cursors ? texts('$position') : [];
  const written = Array.from({ length: Number(row?.$rows ?? 0) }, (_, i) => ({
    objects: objectTexts.map((column) => column[i]!),
    position: positions[i] ?? '',
  }));
  return pageWithCounts(query, list, request, written, cursorOf, offset);
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
    const select = list.select(c);
    const { rowsFrom, orderBy, limit } = pageClauses(list, request, c);
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
