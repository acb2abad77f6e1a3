import { type PoolRow, streakRewards, streaks, type StreakRewardRow, type StreakRow, userStreaks } from '../../../schema/index.js';
import { columnsOf, pgColumn, tableReader } from '../../read/columns.js';
import { requireViewer } from '../auth/viewer.js';
import { AppError } from '../../errors.js';
import type { ServiceContext } from '../context.js';
import { parseId } from '../common/ids.js';
import {
  type PageRendering,
  readRenderedByIds,
  type RenderedObject,
  renderedRowSql,
  renderedSelect,
  renderedTexts,
} from '../../read/nested-read.js';
import { keysetPage, type KeysetList, renderedKeysetPage, type RenderedKeysetList, type WrittenRow } from '../common/keyset-page.js';
import { NEWEST_FIRST, NEWEST_FIRST_LIST, newestFirstOrder } from '../../read/keyset.js';
import { newestFirstCursor, parseNewestFirstPage } from '../common/loaders.js';
import type { Page, PageArguments } from '../common/pagination.js';
import { listStreakPools, renderedPoolsOfStreak, type StreakPoolsInput } from '../pools/pool.service.js';

/** The streak of `id`, or null, through the request's loader. */
export async function findStreak(ctx: ServiceContext, id: string): Promise<StreakRow | null> {
  return ctx.loaders.streakById.load(parseId(id, 'id'));
}

/** How a decoded read reads a streak's row. */
const STREAK_ROW_READER = tableReader(streaks);

/** The streaks list: every streak, newest first, over `s`. */
const STREAK_ROWS = { from: '"streaks" s', filter: () => {}, order: newestFirstOrder('s') };

/** Every streak, newest first. */
export function listStreaks(ctx: ServiceContext, input: PageArguments): Promise<Page<StreakRow>> {
  const list: KeysetList<StreakRow> = {
    ...STREAK_ROWS,
    select: STREAK_ROW_READER.columns('s'),
    decode: (row) => STREAK_ROW_READER.decode<StreakRow>(row),
    cursorOf: newestFirstCursor,
  };
  return keysetPage(ctx.database.query, list, parseNewestFirstPage(input));
}

/** Every streak, newest first, their rows written as `rendering` renders them (a rendered read). */
export function renderedStreaks(ctx: ServiceContext, input: PageArguments, rendering: PageRendering): Promise<Page<WrittenRow>> {
  const list: RenderedKeysetList = {
    ...STREAK_ROWS,
    alias: 's',
    cursor: { name: NEWEST_FIRST, key: NEWEST_FIRST_LIST.cursorKey('s') },
  };
  return renderedKeysetPage(ctx.database.query, list, parseNewestFirstPage(input), 0, rendering);
}

export interface StreakPoolsResult {
  streak: StreakRow;
  pools: Page<PoolRow>;
}

/** A streak and its pools (all of them, whoever took part), newest first. */
export async function streakPools(ctx: ServiceContext, streakId: string, input: StreakPoolsInput): Promise<StreakPoolsResult> {
  const streak = await ctx.loaders.streakById.load(parseId(streakId, 'streakId'));
  if (!streak) throw noStreak(streakId);
  return { streak, pools: await listStreakPools(ctx, streak.id, input) };
}

/**
 * {@link streakPools} rendered: the streak's JSON as `plans.streak` writes it (an object of no
 * field still says whether the streak exists), the pools' rows as `plans.pools` renders them.
 */
export async function renderedStreakPools(
  ctx: ServiceContext,
  streakId: string,
  input: StreakPoolsInput,
  plans: { streak: [RenderedObject]; pools: PageRendering },
): Promise<{ streak: string; pools: Page<WrittenRow> }> {
  const id = parseId(streakId, 'streakId');
  const [streak] = await readRenderedByIds(ctx.database.query, plans.streak, [id], []);
  if (!streak) throw noStreak(streakId);
  return { streak, pools: await renderedPoolsOfStreak(ctx, id, input, plans.pools) };
}

const noStreak = (streakId: string) => new AppError('NOT_FOUND', `No streak has id ${streakId}`, { argumentName: 'streakId' });

export interface UserStreakDetailsResult {
  streak: StreakRow;
  currentStreakCount: number;
  lastStreakEvent: 'NONE' | 'QUALIFIED' | 'RESET' | 'REWARDED';
  lastPoolParticipatedAt: Date | null;
  /** The rewards' rows; empty when read rendered (their JSON is in `renderedRewards`). */
  streakRewards: StreakRewardRow[];
  currentStreakScores: number[];
  lastProcessedPoolId: string | null;
  /** Read rendered: the streak as each object of the rendering's `streak` writes it. */
  renderedStreak?: string[];
  /** Read rendered: the rewards as each SQL of the rendering's `rewards` writes them, a JSON array per SQL. */
  renderedRewards?: string[];
}

/** What a rendered read writes of the details: the streak as each object of `streak` writes it, the rewards as each SQL of `rewards` ({@link rewardJsonSql}). */
export interface UserStreakDetailsRendering {
  streak: RenderedObject[];
  rewards: string[];
}

/** The SQL writing a reward's JSON as `object` renders it, inside the details' statement; null when it needs parameters of its own. */
export const rewardJsonSql = (object: RenderedObject): string | null => renderedRowSql(object, 'r."id"');

/** The viewer's state in a streak (user_streaks), by property: selected with the streak, decoded as the ORM would. */
export const STATE_COLUMNS = [
  'currentStreakCount',
  'lastStreakEvent',
  'lastPoolParticipatedAt',
  'currentStreakScores',
  'lastProcessedPoolId',
] as const;

/**
 * The viewer's state in a streak, as the streak processor left it, with their streak
 * rewards (only claimed or only unclaimed ones when `isClaimed` is given). A viewer the
 * processor has not met yet is at NONE with an empty run. One statement reads the streak
 * and the state; the rewards' rows a second, or, with a `rendering`, the first writes the
 * streak's and the rewards' JSON itself.
 */
export async function userStreakDetails(
  ctx: ServiceContext,
  streakId: string,
  isClaimed: boolean | null | undefined,
  rendering?: UserStreakDetailsRendering,
): Promise<UserStreakDetailsResult> {
  const viewer = requireViewer(ctx.viewer);
  const id = parseId(streakId, 'streakId');
  const params: unknown[] = [];
  // First: a rendered select list brings its own parameters, numbered from $1.
  const rendered = rendering?.streak.length ? [renderedSelect(rendering.streak, 's', params)] : [];
  const param = (value: unknown, type: string) => `$${params.push(value)}::${type}`;
  const viewerId = param(viewer.userId, 'uuid');
  // Only where a rendered reward list reads it: a parameter no clause uses has no type.
  const claimed = isClaimed == null || !rendering?.rewards.length ? null : param(isClaimed, 'boolean');
  const state = STATE_COLUMNS.map((property) => {
    const column = pgColumn(userStreaks, property);
    // The array as JSON, which both drivers parse (postgres.js runs without array types).
    if (column.columnType === 'PgArray') return { property, sql: `to_json(us."${column.name}")`, convert: null };
    const { cast, convert } = columnsOf(userStreaks).get(property)!;
    return { property, sql: `us."${column.name}"${cast}`, convert };
  });
  // Each rendered reward list as JSON text, its rows joined as JSON.stringify joins them.
  const rewards = (rendering?.rewards ?? []).map(
    (json, index) =>
      `(SELECT '[' || coalesce(string_agg(${json}, ',' ORDER BY ${REWARDS_ORDER}), '') || ']' ` +
      `FROM ${viewerRewardsSql('s."id"', viewerId, claimed)}) AS "$rewards${index}"`,
  );
  const where = param(id, 'uuid');
  const [row] = await ctx.database.query<Record<string, unknown>>(
    `SELECT ${[STREAK_ROW_READER.columns('s'), ...rendered, ...state.map((c) => `${c.sql} AS "us.${c.property}"`), ...rewards].join(', ')} FROM "streaks" s ` +
      `LEFT JOIN "user_streaks" us ON us."streak_id" = s."id" AND us."user_id" = ${viewerId} WHERE s."id" = ${where}`,
    params,
  );
  if (!row) throw new AppError('NOT_FOUND', `No streak has id ${streakId}`, { argumentName: 'streakId' });
  // Null where the processor has not met the viewer in this streak: the defaults below.
  const value = Object.fromEntries(
    state.map(({ property, convert }) => {
      const raw = row[`us.${property}`];
      return [property, raw != null && convert ? convert(raw) : raw];
    }),
  );
  const streakRow = STREAK_ROW_READER.decode<StreakRow>(row);
  // Executed, each reward's amount asks its streak: this one, read already.
  if (!rendering) ctx.loaders.streakById.prime(id, streakRow);
  return {
    streak: streakRow,
    currentStreakCount: (value.currentStreakCount as number | null) ?? 0,
    lastStreakEvent: (value.lastStreakEvent as UserStreakDetailsResult['lastStreakEvent'] | null) ?? 'NONE',
    lastPoolParticipatedAt: (value.lastPoolParticipatedAt as Date | null) ?? null,
    streakRewards: rendering ? [] : await viewerRewards(ctx, id, viewer.userId, isClaimed),
    currentStreakScores: (value.currentStreakScores as number[] | null) ?? [],
    lastProcessedPoolId: (value.lastProcessedPoolId as string | null) ?? null,
    ...(rendering && {
      renderedStreak: renderedTexts(row, rendering.streak.length),
      renderedRewards: rewards.map((_, index) => row[`$rewards${index}`] as string),
    }),
  };
}

/** The viewer's rewards of a streak, newest first (ties by id). */
const REWARDS_ORDER = 'r."created_at" DESC, r."id" DESC';

/** FROM and WHERE of the rewards of streak `streakSql` to the wallet of user `viewerSql` (SQL both), claimed or not when `claimedSql` says. */
const viewerRewardsSql = (streakSql: string, viewerSql: string, claimedSql: string | null) =>
  `"streak_rewards" r WHERE r."streak_id" = ${streakSql} ` +
  `AND r."user_wallet_address" = (SELECT u."wallet_address" FROM "users" u WHERE u."id" = ${viewerSql})` +
  (claimedSql ? ` AND r."is_claimed" = ${claimedSql}` : '');

/** The rows of the viewer's rewards of a streak, newest first. */
async function viewerRewards(ctx: ServiceContext, streakId: string, userId: string, isClaimed: boolean | null | undefined) {
  const reader = tableReader(streakRewards);
  const params: unknown[] = [streakId, userId];
  const claimed = isClaimed == null ? null : `$${params.push(isClaimed)}::boolean`;
  const rows = await ctx.database.query<Record<string, unknown>>(
    `SELECT ${reader.columns('r')} FROM ${viewerRewardsSql('$1::uuid', '$2::uuid', claimed)} ORDER BY ${REWARDS_ORDER}`,
    params,
  );
  return rows.map((row) => reader.decode<StreakRewardRow>(row));
}
