import { pools, type PoolRow } from '../../../schema/index.js';
import { NEWEST_FIRST } from '../../read/keyset.js';
import { isoTimestampSql, tableReader } from '../../read/columns.js';
import type { PageRendering } from '../../read/nested-read.js';
import type { ServiceContext } from '../context.js';
import { parseId } from '../common/ids.js';
import { requireStorableDate } from '../common/input.js';
import { badInput } from '../../errors.js';
import { keysetPage, type KeysetList, renderedKeysetPage, type RenderedKeysetList, type WrittenRow } from '../common/keyset-page.js';
import type { Conditions } from '../common/sql-conditions.js';
import { type PoolStatusFilter, statusCondition } from './pool-status.js';
import {
  encodeCursor,
  isIntegerString,
  isIsoDate,
  type Page,
  type PageArguments,
  type PageRequest,
  parseOffset,
  parsePageRequest,
} from '../common/pagination.js';

export const POOL_SORTS = ['END_DATE', 'CREATION_DATE', 'OLD_CREATION_DATE', 'VOLUME_HIGH', 'VOLUME_LOW'] as const;
export type PoolSort = (typeof POOL_SORTS)[number];

export interface PoolFilter {
  status?: PoolStatusFilter[] | null;
  streakId?: string | null;
  referenceDate?: Date | null;
  createdBy?: string | null;
}

export interface ListPoolsInput extends PageArguments {
  filter?: PoolFilter | null;
  sort?: PoolSort | null;
  search?: string | null;
  offset?: number | null;
}

/** A keyset ordering: its column and direction, ties broken by id in the same direction. */
interface Ordering {
  name: string;
  /** The key's column (SQL name). */
  column: string;
  descending: boolean;
  keyOf: (row: PoolRow) => string;
  /** keyOf as SQL over the list's alias `p`: the key as a cursor holds it, read with a rendered page's rows. */
  keySql: string;
  isValidKey: (key: string) => boolean;
  /** The Postgres type of a cursor's key. */
  keyType: 'timestamptz' | 'bigint';
}

const byDate = (name: string, property: 'predictionEndDate' | 'createdAt', column: string, descending: boolean): Ordering => ({
  name,
  column,
  descending,
  keyOf: (row) => row[property].toISOString(),
  keySql: isoTimestampSql(`p."${column}"`),
  isValidKey: isIsoDate,
  keyType: 'timestamptz',
});

const byVolume = (name: string, descending: boolean): Ordering => ({
  name,
  column: 'total_volume',
  descending,
  keyOf: (row) => row.totalVolume.toString(),
  keySql: 'p."total_volume"::text',
  isValidKey: isIntegerString,
  keyType: 'bigint',
});

const ORDERINGS: Record<PoolSort | typeof NEWEST_FIRST, Ordering> = {
  END_DATE: byDate('END_DATE', 'predictionEndDate', 'prediction_end_date', false),
  CREATION_DATE: byDate('CREATION_DATE', 'createdAt', 'created_at', true),
  OLD_CREATION_DATE: byDate('OLD_CREATION_DATE', 'createdAt', 'created_at', false),
  VOLUME_HIGH: byVolume('VOLUME_HIGH', true),
  VOLUME_LOW: byVolume('VOLUME_LOW', false),
  // Streak pools share the cursor format of every other newest-first child list.
  [NEWEST_FIRST]: byDate(NEWEST_FIRST, 'createdAt', 'created_at', true),
};

export const MAX_SEARCH_LENGTH = 200;
export const MAX_SEARCH_WORDS = 8;

/**
 * Turns free text into a prefix tsquery: every word (letters and digits) must match the
 * start of a word of the title or description. Null when the text has no words.
 */
export function searchQuery(text: string): string | null {
  // Each word is a prefix match the database expands over the index: the caps keep one
  // search's cost bounded (20,000 words once exhausted Postgres's stack).
  if (text.length > MAX_SEARCH_LENGTH) throw badInput('search', `search must be at most ${MAX_SEARCH_LENGTH} characters`);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu);
  if (words && words.length > MAX_SEARCH_WORDS) throw badInput('search', `search must have at most ${MAX_SEARCH_WORDS} words`);
  return words ? words.map((word) => `${word}:*`).join(' & ') : null;
}

function filterConditions(c: Conditions, ctx: ServiceContext, input: ListPoolsInput): void {
  const filter = input.filter ?? {};
  if (filter.status?.length) {
    // A parameter only when a condition uses it: an unused one has no type to infer.
    let nowParam: string | undefined;
    const now = () => (nowParam ??= c.param(ctx.now, 'timestamptz'));
    c.add(`(${filter.status.map((status) => statusCondition(now, status)).join(' OR ')})`);
  }
  if (filter.streakId != null) c.add(`p."streak_id" = ${c.param(parseId(filter.streakId, 'filter.streakId'), 'uuid')}`);
  if (filter.createdBy != null) c.add(`p."created_by" = ${c.param(parseId(filter.createdBy, 'filter.createdBy'), 'uuid')}`);
  if (filter.referenceDate != null) {
    const dayStart = new Date(requireStorableDate(filter.referenceDate, 'filter.referenceDate'));
    dayStart.setUTCHours(0, 0, 0, 0);
    const nextDay = new Date(dayStart.getTime() + 24 * 60 * 60 * 1000);
    c.add(`p."reference_date" >= ${c.param(dayStart, 'timestamptz')} AND p."reference_date" < ${c.param(nextDay, 'timestamptz')}`);
  }
  const query = input.search == null ? null : searchQuery(input.search);
  if (query) c.add(`p."search_vector" @@ to_tsquery('simple', ${c.param(query, 'text')})`);
}

/** Which pools a list holds (its conditions over `p`), in which order, and the page of them asked for. */
interface PoolsPage {
  filter: (c: Conditions) => void;
  ordering: Ordering;
  page: PageRequest;
  offset: number;
}

/** How a decoded pools page reads its rows. */
const POOL_ROW_READER = tableReader(pools);

/** The keyset list of a pools page, but for what its statement selects of each row. */
const poolRows = ({ filter, ordering }: PoolsPage) => ({
  from: '"pools" p',
  filter,
  order: { key: `p."${ordering.column}"`, id: 'p."id"', descending: ordering.descending, keyType: ordering.keyType },
});

/** A page of whole pool rows: one statement, +1 count when selected, +1 for the page flag on the cursor's far side when selected. */
function pageOfPools(ctx: ServiceContext, of: PoolsPage): Promise<Page<PoolRow>> {
  const { ordering } = of;
  const list: KeysetList<PoolRow> = {
    ...poolRows(of),
    select: POOL_ROW_READER.columns('p'),
    decode: (row) => POOL_ROW_READER.decode<PoolRow>(row),
    cursorOf: (row) => encodeCursor(ordering.name, ordering.keyOf(row), row.id),
  };
  return keysetPage(ctx.database.query, list, of.page, of.offset);
}

/** A page of pools as `rendering` renders them (a rendered read): the statement writes each row's JSON; as many statements as {@link pageOfPools}. */
function writtenPageOfPools(ctx: ServiceContext, of: PoolsPage, rendering: PageRendering): Promise<Page<WrittenRow>> {
  const list: RenderedKeysetList = {
    ...poolRows(of),
    alias: 'p',
    cursor: { name: of.ordering.name, key: of.ordering.keySql },
  };
  return renderedKeysetPage(ctx.database.query, list, of.page, of.offset, rendering);
}

/** The page of pools `input` asks for. */
function poolsOf(ctx: ServiceContext, input: ListPoolsInput): PoolsPage {
  return { ...parsePoolsPage(input), filter: (c) => filterConditions(c, ctx, input) };
}

/** A page of pools. */
export function listPools(ctx: ServiceContext, input: ListPoolsInput): Promise<Page<PoolRow>> {
  return pageOfPools(ctx, poolsOf(ctx, input));
}

/** A page of pools, its rows written as `rendering` renders them (see writtenPageOfPools). */
export function renderedPools(ctx: ServiceContext, input: ListPoolsInput, rendering: PageRendering): Promise<Page<WrittenRow>> {
  return writtenPageOfPools(ctx, poolsOf(ctx, input), rendering);
}

/** The page a pool list's arguments ask for, in the order `sort` names (END_DATE by default); throws BAD_USER_INPUT. */
export function parsePoolsPage(input: PageArguments & { sort?: PoolSort | null; offset?: number | null }) {
  return poolsPage(input, ORDERINGS[input.sort ?? 'END_DATE']);
}

/** The page a streak's pool list's arguments ask for (newest first); throws BAD_USER_INPUT. */
export function parseStreakPoolsPage(input: PageArguments & { offset?: number | null }) {
  return poolsPage(input, ORDERINGS[NEWEST_FIRST]);
}

function poolsPage(input: PageArguments & { offset?: number | null }, ordering: Ordering) {
  const offset = parseOffset(input);
  return { ordering, offset, page: parsePageRequest(input, ordering.name, ordering.isValidKey) };
}

/** The pool of `id`, or null when there is none, through the request's loader. */
export async function findPool(ctx: ServiceContext, id: string): Promise<PoolRow | null> {
  return ctx.loaders.poolById.load(parseId(id, 'id'));
}

/** The page of a streak's pools `input` asks for, newest first; `pastOnly` keeps those whose prediction window has ended. */
function streakPoolsOf(ctx: ServiceContext, streakId: string, input: StreakPoolsInput): PoolsPage {
  const filter = (c: Conditions) => {
    c.add(`p."streak_id" = ${c.param(streakId, 'uuid')}`);
    if (input.pastOnly) c.add(`p."prediction_end_date" <= ${c.param(ctx.now, 'timestamptz')}`);
  };
  return { ...parseStreakPoolsPage(input), filter };
}

export type StreakPoolsInput = PageArguments & { pastOnly?: boolean | null; offset?: number | null };

/** The pools of a streak (see streakPoolsOf). */
export function listStreakPools(ctx: ServiceContext, streakId: string, input: StreakPoolsInput): Promise<Page<PoolRow>> {
  return pageOfPools(ctx, streakPoolsOf(ctx, streakId, input));
}

/** The pools of a streak, their rows written as `rendering` renders them (see writtenPageOfPools). */
export function renderedPoolsOfStreak(
  ctx: ServiceContext,
  streakId: string,
  input: StreakPoolsInput,
  rendering: PageRendering,
): Promise<Page<WrittenRow>> {
  return writtenPageOfPools(ctx, streakPoolsOf(ctx, streakId, input), rendering);
}
