import DataLoader from 'dataloader';
import type { ReadQuery } from '../../db/client.js';
import {
  beyondCursorSql,
  type ChildList,
  type ChildPage,
  childPage,
  childRowsSql,
  countSql,
  keysetClauses,
  type KeysetOrder,
  orderBySql,
  type PagePosition,
} from '../../read/keyset.js';
import { type PageRendering, renderedSelect, renderedTextColumn, renderedTexts } from '../../read/nested-read.js';
import { encodeCursor, MAX_PAGE_SIZE, type Page, pageOf, type PageRequest } from './pagination.js';
import { Conditions } from './sql-conditions.js';

/** A root list read by a hand-written statement: its rows (FROM, with the joins its filter needs), their conditions and order. */
export interface KeysetRows {
  from: string;
  filter: (c: Conditions) => void;
  order: KeysetOrder;
}

/** A list {@link keysetPage} reads: its rows, the select list of each and its decoder, and a row's cursor. */
export interface KeysetList<T extends { id: string }> extends KeysetRows {
  select: string;
  decode: (row: Record<string, unknown>) => T;
  cursorOf: (row: T) => string;
}

/**
 * A page's LIMIT, written into the text: with `LIMIT $n` (or `OFFSET $n`) Postgres' generic plan guesses a tenth of the table and
 * replans at every execution (half a pools page's Postgres time). Sizes are bounded, so each (list shape, size) is planned once; an
 * unbounded offset stays a parameter.
 */
function pageLimit(rows: number): number {
  if (!Number.isSafeInteger(rows) || rows < 1 || rows > MAX_PAGE_SIZE + 1) throw new Error(`a page of ${rows} rows`);
  return rows;
}

/** The statement reading a page's rows as `selectList` writes them, `offset` rows skipped when paging forward by position. */
function pageRowsSql(list: KeysetRows, selectList: string, request: PageRequest, offset: number, c: Conditions): string {
  list.filter(c);
  const keyset = keysetClauses(list.order, request.backward, request.cursor, (value, type) => c.param(value, type));
  if (keyset.past) c.add(keyset.past);
  const { orderBy } = keyset;
  const limit = `LIMIT ${pageLimit(request.size + 1)}`;
  // Past an offset, pick the page's keys first, then write only its rows: in one select, Postgres computes the select list (rendered
  // JSON and its subqueries) for every skipped row too.
  return offset
    ? `SELECT ${selectList} FROM ${list.from} WHERE ${list.order.id} = ANY (ARRAY(SELECT ${list.order.id} FROM ${list.from}${c.where()} ` +
        `ORDER BY ${orderBy} ${limit} OFFSET ${c.param(offset, 'int')})) ORDER BY ${orderBy}`
    : `SELECT ${selectList} FROM ${list.from}${c.where()} ORDER BY ${orderBy} ${limit}`;
}

/** The page of `rows` (as {@link pageRowsSql} read them, one past the page), with the lazy totalCount and far-side flag statements. */
function pageWithCounts<R>(
  query: ReadQuery,
  list: KeysetRows,
  request: PageRequest,
  rows: R[],
  cursorOf: (row: R) => string,
  offset: number,
): Page<R> {
  const matching = (beyondCursor: boolean) => {
    const c = new Conditions();
    list.filter(c);
    if (beyondCursor) c.add(keysetClauses(list.order, request.backward, request.cursor, (value, type) => c.param(value, type)).beyond!);
    return c;
  };
  const countAll = async () => {
    const m = matching(false);
    const [row] = await query<{ total: number }>(`SELECT count(*)::int AS "total" FROM ${list.from}${m.where()}`, m.params);
    return row?.total ?? 0;
  };
  const beyondCursor = async () => {
    const m = matching(true);
    const [row] = await query<{ found: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${list.from}${m.where()}) AS "found"`, m.params);
    return row?.found === true;
  };
  return pageOf(rows, request, cursorOf, countAll, beyondCursor, offset);
}

/**
 * A page of `list` in one statement, forward or backward (reversed order, LIMIT size + 1, turned back by pageOf). totalCount and the
 * page flag on the cursor's far side each cost one more statement, only when a query selects them.
 */
export async function keysetPage<T extends { id: string }>(
  query: ReadQuery,
  list: KeysetList<T>,
  request: PageRequest,
  offset = 0,
): Promise<Page<T>> {
  const c = new Conditions();
  const rows = await query<Record<string, unknown>>(pageRowsSql(list, list.select, request, offset, c), c.params);
  return pageWithCounts(query, list, request, rows.map(list.decode), list.cursorOf, offset);
}

/** A list for {@link renderedKeysetPage}, rows over `alias`: `cursor` names its order in cursors and writes a row's key as SQL text. */
export interface RenderedKeysetList extends KeysetRows {
  alias: string;
  cursor: { name: string; key: string };
}

/** A written page row: its objects' JSON texts in the plan's order, and its position (`key,id`) when cursors were asked for. */
export interface WrittenRow {
  objects: string[];
  position: string;
}

/**
 * Joins a written page's row texts: a control character no position holds, nor any JSON text the statement writes (strings escape
 * them; EXPONENT_MARK, read/columns.ts, is the one it writes raw).
 */
const ROW_SEPARATOR = '\u001e';

/**
 * A page of `list` as {@link keysetPage} reads it, rows written by the statement (positions only with `cursors`, else its cursors are
 * unknown). `joined` aggregates the rows into one, so the driver decodes one row whatever the page size and Node just splits texts.
 */
export async function renderedKeysetPage(
  query: ReadQuery,
  list: RenderedKeysetList,
  request: PageRequest,
  offset: number,
  { objects, cursors, joined }: PageRendering,
): Promise<Page<WrittenRow>> {
  const c = new Conditions();
  const columns = objects.map((_, i) => renderedTextColumn(i));
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
  // string_agg keeps the subquery's order (a plain aggregate over one subquery, no join to reorder it); an ORDER BY of its
  // own, with a window numbering the rows, would cost a tenth of the statement.
  const aggregates = columns.map((column) => `, string_agg(r."${column}", E'\\x1e') AS "${column}"`);
  const [row] = await query<Record<string, string | number | null>>(
    `SELECT count(*)::int AS "$rows"${aggregates.join('')} FROM (${rows}) r`,
    c.params,
  );
  const texts = columns.map((column) => (row?.[column] as string | null | undefined)?.split(ROW_SEPARATOR) ?? []);
  const objectTexts = texts.slice(0, objects.length);
  const written = Array.from({ length: Number(row?.$rows ?? 0) }, (_, i) => ({
    objects: objectTexts.map((column) => column[i]!),
    position: cursors ? texts[objects.length]![i]! : '',
  }));
  return pageWithCounts(query, list, request, written, cursorOf, offset);
}

/**
 * A list per parent, read as the planner reads a relation's page (read/keyset.ts, ChildPage, so both write the same SQL): the
 * `table`'s rows (alias `alias`) whose `parentColumn` is the parent's id, kept and ordered as `list` says. `select` is the decoded
 * select list over the row, with the left joins it needs; `parentOf` reads the parent's id back from a decoded row.
 */
export interface ParentedList<T extends { id: string }> {
  table: string;
  parentColumn: string;
  alias: string;
  list: Pick<ChildList, 'order' | 'where'>;
  select: { list: string; joins?: string; decode: (row: Record<string, unknown>) => T };
  parentOf: (row: T) => string;
  cursorOf: (row: T) => string;
}

/** The batch's parents, their ids the statement's first parameter. */
const PARENTS = 'unnest($1::uuid[]) AS parents(parent_id)';

/** The list's page of the batch's parent `parents.parent_id`, its values numbered on `params` (after the parents' ids). */
const parentPage = <T extends { id: string }>(list: ParentedList<T>, page: PagePosition, params: unknown[]) =>
  childPage(list.table, list.parentColumn, 'parents.parent_id', list.list, page, params);

/** One value per parent, `value`'s SQL over the parent's page (ChildPage): one statement per batch. */
function perParentLoader<V, T extends { id: string }>(
  query: ReadQuery,
  list: ParentedList<T>,
  page: PagePosition,
  value: (of: ChildPage) => string,
): DataLoader<string, V> {
  return new DataLoader<string, V>(async (parentIds) => {
    const params: unknown[] = [parentIds];
    const sql = value(parentPage(list, page, params));
    const rows = await query<{ parentId: string; value: V }>(
      `SELECT parents.parent_id::text AS "parentId", ${sql} AS "value" FROM ${PARENTS}`,
      params,
    );
    const byParent = new Map(rows.map((row) => [row.parentId, row.value]));
    return parentIds.map((id) => byParent.get(id)!);
  });
}

/** How many rows of `list` each parent has: one statement per batch. */
export function parentCountLoader<T extends { id: string }>(query: ReadQuery, list: ParentedList<T>): DataLoader<string, number> {
  // Any page: a count reads no cursor.
  return perParentLoader<number, T>(query, list, { size: 0, backward: false, cursor: null }, (of) => countSql(of, list.alias));
}

/**
 * Each parent's page of `list`, for every parent asked in one tick, in one statement (a lateral join over the parents, each page read
 * on its own index path and stopped after the page), not one {@link keysetPage} per row of the list above. totalCount and the far-side
 * flag, when selected, are one batched statement each.
 */
export function keysetPageLoader<T extends { id: string }>(
  query: ReadQuery,
  list: ParentedList<T>,
  request: PageRequest,
  /** The loader answering totalCount, when another counts the same rows (so they share its cache). */
  counts?: DataLoader<string, number>,
): DataLoader<string, Page<T>> {
  const totals = counts ?? parentCountLoader(query, list);
  // Asked only of a page with a cursor (pageOf), where beyondCursorSql writes a condition.
  const beyond = perParentLoader<boolean, T>(query, list, request, (of) => beyondCursorSql(of, list.alias)!);
  const { alias, select } = list;
  return new DataLoader<string, Page<T>>(async (parentIds) => {
    const params: unknown[] = [parentIds];
    const of = parentPage(list, request, params);
    const rows = childRowsSql(of, alias, pageLimit(request.size + 1));
    // The rows come parent by parent (a nested loop over the parents), each parent's in its page's order: ordered again past the
    // select list's joins, which need not keep it (with none, Postgres sees the page already ordered and sorts nothing).
    const text = `SELECT l.* FROM ${PARENTS} CROSS JOIN LATERAL (SELECT ${select.list} FROM ${rows}${select.joins ? ` ${select.joins}` : ''} ORDER BY ${orderBySql(of, alias, request.backward)}) l`;
    const byParent = new Map<string, T[]>();
    for (const raw of await query<Record<string, unknown>>(text, params)) {
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
