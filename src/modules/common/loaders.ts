import DataLoader from 'dataloader';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { propertyOf, rowsByKeys } from '../../read/batch.js';
import { type Db, readQueryOf } from '../../db/client.js';
import { type ChildCondition, NEWEST_FIRST, newestFirstOrder } from '../../read/keyset.js';
import { pgColumn, tableReader } from '../../read/columns.js';
import { keysetPageLoader, parentCountLoader, type ParentedList } from './keyset-page.js';
import type { ObjectSpec, OneRelationSpec } from '../../read/nested-read.js';
import { encodeCursor, isIsoDate, type Page, type PageArguments, type PageRequest, parsePageRequest } from './pagination.js';

/** Loaders shared by the modules: each made per request (caches must never outlive one), batching a tick's keys into one statement. */

/** One row (or null) per key, looked up by a unique column. */
export function uniqueLoader<TRow extends Record<string, unknown>>(db: Db, table: PgTable, column: PgColumn) {
  return new DataLoader<string, TRow | null>(async (keys) => {
    const groups = await rowsByKeys<TRow>(db, table, column, keys);
    return keys.map((key) => groups.get(key)?.[0] ?? null);
  });
}

/** Every row whose `column` is the key, oldest first, ties by id. */
export function groupLoader<TRow extends Record<string, unknown> & { id: string; createdAt: Date }>(
  db: Db,
  table: PgTable,
  column: PgColumn,
) {
  const oldestFirst = (a: TRow, b: TRow) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return new DataLoader<string, TRow[]>(async (keys) => {
    const groups = await rowsByKeys<TRow>(db, table, column, keys);
    return keys.map((key) => (groups.get(key) ?? []).sort(oldestFirst));
  });
}

/** A page request of a child connection, in its one order: newest first, ties broken by id. */
export function parseNewestFirstPage(args: PageArguments): PageRequest {
  return parsePageRequest(args, NEWEST_FIRST, isIsoDate);
}

/** How many rows (of those matching `where`) each parent has: one statement per batch. */
export function countLoader(db: Db, table: ChildTable, parentColumn: PgColumn, where?: ChildCondition) {
  return parentCountLoader(readQueryOf(db), childList(table, parentColumn, where));
}

type ChildRow = Record<string, unknown> & { id: string; createdAt: Date };
type ChildTable = PgTable & { id: PgColumn; createdAt: PgColumn };

/** A parent's children (alias `c`) whose `parentColumn` is its id, `where` holding too, newest first. */
function childList<TRow extends ChildRow>(table: ChildTable, parentColumn: PgColumn, where?: ChildCondition): ParentedList<TRow> {
  const reader = tableReader(table);
  const parent = propertyOf(parentColumn);
  return {
    table: reader.name,
    parentColumn: parentColumn.name,
    alias: 'c',
    list: { order: newestFirstOrder, where },
    select: { list: reader.columns('c'), decode: (row) => reader.decode<TRow>(row) },
    parentOf: (row) => row[parent] as string,
    cursorOf: newestFirstCursor,
  };
}

/**
 * One keyset-page loader (common/keyset-page.ts) per distinct page request, so aliases with different arguments still batch per
 * argument set; totalCount and the far-side page flag are one more batched statement each, run only when selected. Cursors are
 * positions, so they survive changes before them and, with a `where`, skip to the next matching row.
 */
export function childPageLoader<TRow extends ChildRow>(
  db: Db,
  table: ChildTable,
  parentColumn: PgColumn,
  { where, counts = countLoader(db, table, parentColumn, where) }: { where?: ChildCondition; counts?: DataLoader<string, number> } = {},
) {
  const list = childList<TRow>(table, parentColumn, where);
  const loaders = new Map<string, DataLoader<string, Page<TRow>>>();
  const pageLoader = (page: PageRequest): DataLoader<string, Page<TRow>> => {
    const signature = pageSignature(page);
    let loader = loaders.get(signature);
    if (!loader) loaders.set(signature, (loader = keysetPageLoader(readQueryOf(db), list, page, counts)));
    return loader;
  };
  return Object.assign(pageLoader, {
    clearAll: () => {
      loaders.clear();
      counts.clearAll();
    },
  });
}

/** A page request as a key: its size, direction and cursor. */
export const pageSignature = (page: PageRequest) =>
  `${page.size}:${page.backward ? 'b' : 'f'}:${page.cursor ? `${page.cursor.key}/${page.cursor.id}` : ''}`;

export const newestFirstCursor = (row: { id: string; createdAt: Date }) => encodeCursor(NEWEST_FIRST, row.createdAt.toISOString(), row.id);

/**
 * The request's loaders by column, made on first use. The read graph's relations (common/read-specs.ts) and the modules' named
 * loaders (userById, poolById, ...) share these instances, so a key asked for by both is batched and cached once.
 */
export function loaderGraph(db: Db) {
  const uniques = new Map<PgColumn, DataLoader<string, any>>();
  const pages = new Map<PgColumn, ReturnType<typeof childPageLoader<any>>>();
  return {
    /** Forgets every row, count and page read so far (a mutation's answer is read after its write). */
    clearAll(): void {
      for (const loader of uniques.values()) loader.clearAll();
      for (const loader of pages.values()) loader.clearAll();
    },
    unique<TRow extends Record<string, unknown>>(table: PgTable, column: PgColumn): DataLoader<string, TRow | null> {
      let loader = uniques.get(column);
      if (!loader) uniques.set(column, (loader = uniqueLoader<TRow>(db, table, column)));
      return loader;
    },
    pages<TRow extends ChildRow>(table: ChildTable, parentColumn: PgColumn): ReturnType<typeof childPageLoader<TRow>> {
      let loader = pages.get(parentColumn);
      if (!loader) pages.set(parentColumn, (loader = childPageLoader<TRow>(db, table, parentColumn)));
      return loader;
    },
  };
}

export type LoaderGraph = ReturnType<typeof loaderGraph>;

/** Relation `field` of `row` (a row of `spec`'s table) through its loader; null when the key is null. */
export function relationOne<T>(graph: LoaderGraph, row: object, spec: ObjectSpec, field: string): T | null | Promise<T | null> {
  const relation = spec.relations[field];
  if (relation?.kind !== 'one') throw new Error(`${field} is no one-to-one relation of the read graph`);
  return loadOne<T>(graph, row, relation);
}

/** The row `relation` finds for `row` (first the row it goes through, if any); null when a key is null. */
function loadOne<T>(graph: LoaderGraph, row: object, relation: OneRelationSpec): T | null | Promise<T | null> {
  const byKey = (holder: object | null) => {
    const key = (holder as Record<string, unknown> | null)?.[relation.parentKey] as string | null | undefined;
    if (key == null) return null;
    const target = relation.target().table;
    return graph.unique<Record<string, unknown>>(target, pgColumn(target, relation.childKey)).load(key) as Promise<T | null>;
  };
  if (!relation.through) return byKey(row);
  const via = loadOne<object>(graph, row, relation.through);
  return via instanceof Promise ? via.then(byKey) : byKey(via);
}

/** A page of relation `field` of `row` for `args`, as the read graph defines it, through its loader. */
export function relationPage<T extends ChildRow>(
  graph: LoaderGraph,
  row: { id: string },
  spec: ObjectSpec,
  field: string,
  args: PageArguments,
): Promise<Page<T>> {
  const relation = spec.relations[field];
  if (relation?.kind !== 'page') throw new Error(`${field} is no page relation of the read graph`);
  const table = relation.target().table as ChildTable;
  const column = pgColumn(table, relation.parentKey);
  return graph.pages<T>(table, column)(parseNewestFirstPage(args)).load(row.id);
}

/** Whether `args` ask relation `field` of `spec` for its plain page (the one the read graph defines and plans). */
export function isPlainPage(spec: ObjectSpec, field: string, args: object): boolean {
  const relation = spec.relations[field];
  return relation?.kind === 'page' && (relation.plain?.(args as Record<string, unknown>) ?? true);
}
