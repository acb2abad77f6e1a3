import { and, asc, count, desc, eq, exists, gt, gte, lt, lte, not, or, type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { pools, type PoolRow, resolutions } from '../../../schema/index.js';
import type { ServiceContext } from '../context.js';
import { parseId } from '../common/ids.js';
import { NEWEST_FIRST } from '../common/loaders.js';
import {
  type CursorKey,
  encodeCursor,
  isIntegerString,
  isIsoDate,
  Page,
  type PageRequest,
  parseOffset,
  parsePageRequest,
  takePage,
} from '../common/pagination.js';

export const POOL_STATUS_FILTERS = ['ACTIVE', 'ENDED', 'RESOLVED', 'NOT_RESOLVED'] as const;
export type PoolStatusFilter = (typeof POOL_STATUS_FILTERS)[number];

export const POOL_SORTS = ['END_DATE', 'CREATION_DATE', 'OLD_CREATION_DATE', 'VOLUME_HIGH', 'VOLUME_LOW'] as const;
export type PoolSort = (typeof POOL_SORTS)[number];

export interface PoolFilter {
  status?: PoolStatusFilter[] | null;
  streakId?: string | null;
  referenceDate?: Date | null;
  createdBy?: string | null;
}

export interface ListPoolsInput {
  filter?: PoolFilter | null;
  sort?: PoolSort | null;
  search?: string | null;
  first?: number | null;
  after?: string | null;
  offset?: number | null;
}

/** A keyset ordering: its column and direction, ties broken by id in the same direction. */
interface Ordering {
  name: string;
  column: PgColumn;
  descending: boolean;
  keyOf: (row: PoolRow) => string;
  isValidKey: (key: string) => boolean;
  /** SQL for a cursor's key, typed like the column. */
  keySql: (key: string) => SQL;
}

const byDate = (name: string, column: PgColumn, descending: boolean, keyOf: (row: PoolRow) => Date): Ordering => ({
  name,
  column,
  descending,
  keyOf: (row) => keyOf(row).toISOString(),
  isValidKey: isIsoDate,
  keySql: (key) => sql`${key}::timestamptz`,
});

const byVolume = (name: string, descending: boolean): Ordering => ({
  name,
  column: pools.totalVolume,
  descending,
  keyOf: (row) => row.totalVolume.toString(),
  isValidKey: isIntegerString,
  keySql: (key) => sql`${key}::bigint`,
});

const ORDERINGS: Record<PoolSort | typeof NEWEST_FIRST, Ordering> = {
  END_DATE: byDate('END_DATE', pools.predictionEndDate, false, (row) => row.predictionEndDate),
  CREATION_DATE: byDate('CREATION_DATE', pools.createdAt, true, (row) => row.createdAt),
  OLD_CREATION_DATE: byDate('OLD_CREATION_DATE', pools.createdAt, false, (row) => row.createdAt),
  VOLUME_HIGH: byVolume('VOLUME_HIGH', true),
  VOLUME_LOW: byVolume('VOLUME_LOW', false),
  // Streak pools share the cursor format of every other newest-first child list.
  [NEWEST_FIRST]: byDate(NEWEST_FIRST, pools.createdAt, true, (row) => row.createdAt),
};

const hasResolution = (ctx: ServiceContext) =>
  exists(ctx.database.db.select({ one: sql`1` }).from(resolutions).where(eq(resolutions.poolId, pools.id)));

function statusCondition(ctx: ServiceContext, status: PoolStatusFilter): SQL {
  switch (status) {
    case 'ACTIVE':
      return and(
        eq(pools.status, 'ACTIVE'),
        eq(pools.isClosed, false),
        lte(pools.predictionStartDate, ctx.now),
        gt(pools.predictionEndDate, ctx.now),
      )!;
    case 'ENDED':
      return lte(pools.predictionEndDate, ctx.now);
    case 'RESOLVED':
      return hasResolution(ctx);
    case 'NOT_RESOLVED':
      return and(lte(pools.predictionEndDate, ctx.now), not(hasResolution(ctx)))!;
  }
}

/**
 * Turns free text into a prefix tsquery: every word (letters and digits) must match the
 * start of a word of the title or description. Null when the text has no words.
 */
export function searchQuery(text: string): string | null {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu);
  return words ? words.map((word) => `${word}:*`).join(' & ') : null;
}

function filterConditions(ctx: ServiceContext, input: ListPoolsInput): SQL[] {
  const conditions: SQL[] = [];
  const filter = input.filter ?? {};
  if (filter.status?.length) conditions.push(or(...filter.status.map((s) => statusCondition(ctx, s)))!);
  if (filter.streakId != null) conditions.push(eq(pools.streakId, parseId(filter.streakId, 'filter.streakId')));
  if (filter.createdBy != null) conditions.push(eq(pools.createdBy, parseId(filter.createdBy, 'filter.createdBy')));
  if (filter.referenceDate != null) {
    const dayStart = new Date(filter.referenceDate);
    dayStart.setUTCHours(0, 0, 0, 0);
    const nextDay = new Date(dayStart.getTime() + 24 * 60 * 60 * 1000);
    conditions.push(gte(pools.referenceDate, dayStart), lt(pools.referenceDate, nextDay));
  }
  const query = input.search == null ? null : searchQuery(input.search);
  if (query) conditions.push(sql`${pools.searchVector} @@ to_tsquery('simple', ${query})`);
  return conditions;
}

/** Rows of `conditions` in `ordering`, from the page's cursor on, as one statement (+1 count when selected). */
async function pageOfPools(ctx: ServiceContext, conditions: SQL[], ordering: Ordering, page: PageRequest, offset = 0) {
  const where = [...conditions];
  if (page.after) where.push(afterCursor(ordering, page.after));
  const direction = ordering.descending ? desc : asc;
  const rows = await ctx.database.db
    .select()
    .from(pools)
    .where(and(...where))
    .orderBy(direction(ordering.column), direction(pools.id))
    .limit(page.first + 1)
    .offset(offset);
  const { nodes, hasNextPage } = takePage(rows, page.first);
  const countAll = async () => {
    const [row] = await ctx.database.db.select({ total: count() }).from(pools).where(and(...conditions));
    return row?.total ?? 0;
  };
  return new Page(nodes, hasNextPage, false, (row) => encodeCursor(ordering.name, ordering.keyOf(row), row.id), countAll);
}

function afterCursor(ordering: Ordering, after: CursorKey): SQL {
  const comparison = ordering.descending ? sql`<` : sql`>`;
  return sql`(${ordering.column}, ${pools.id}) ${comparison} (${ordering.keySql(after.key)}, ${after.id}::uuid)`;
}

export async function listPools(ctx: ServiceContext, input: ListPoolsInput): Promise<Page<PoolRow>> {
  const ordering = ORDERINGS[input.sort ?? 'END_DATE'];
  const page = parsePageRequest(input, ordering.name, ordering.isValidKey);
  return pageOfPools(ctx, filterConditions(ctx, input), ordering, page, parseOffset(input));
}

export async function findPool(ctx: ServiceContext, id: string): Promise<PoolRow | null> {
  return ctx.loaders.poolById.load(parseId(id, 'id'));
}

/** The pools of a streak, newest first; `pastOnly` keeps those whose prediction window has ended. */
export async function listStreakPools(
  ctx: ServiceContext,
  streakId: string,
  input: { pastOnly?: boolean | null; first?: number | null; after?: string | null; offset?: number | null },
): Promise<Page<PoolRow>> {
  const ordering = ORDERINGS[NEWEST_FIRST];
  const page = parsePageRequest(input, ordering.name, ordering.isValidKey);
  const conditions = [eq(pools.streakId, streakId)];
  if (input.pastOnly) conditions.push(lte(pools.predictionEndDate, ctx.now));
  return pageOfPools(ctx, conditions, ordering, page, parseOffset(input));
}
