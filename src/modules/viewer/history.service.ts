import DataLoader from 'dataloader';
import { and, asc, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { type ChainSubmissionRow, chainSubmissions, pools, type PredictionRow, predictions, rewards } from '../../../schema/index.js';
import { badInput } from '../../errors.js';
import { requireViewer } from '../auth/viewer.js';
import { NEWEST_FIRST, parseNewestFirstPage } from '../common/loaders.js';
import { encodeCursor, isIntegerString, isIsoDate, Page, parsePageRequest, takePage } from '../common/pagination.js';
import type { ServiceContext } from '../context.js';
import { statusCondition } from '../pools/pool.service.js';
import { requestScoped } from './request-scoped.js';

/** pools under the alias `p` that the lifecycle conditions name. */
const poolsAsP = alias(pools, 'p');

/** A user's transactions through the service, and their predictions by lifecycle. */

export interface UserTransaction extends Pick<ChainSubmissionRow, 'id' | 'createdAt' | 'updatedAt' | 'operation' | 'userId' | 'signature' | 'status' | 'error' | 'confirmedAt'> {
  /** The change of the user's token balance, in base units (negative: tokens left the wallet); null when unknown. */
  amountUnits: bigint | null;
  decimals: number | null;
  predictionId: string | null;
  rewardId: string | null;
  streakRewardId: string | null;
}

/** The user's chain submissions, newest first: one statement per page, whatever its size. */
export async function userTransactions(ctx: ServiceContext, userId: string, args: { first?: number | null; after?: string | null }): Promise<Page<UserTransaction>> {
  const page = parseNewestFirstPage(args);
  const after = page.after ? sql`AND (s.created_at, s.id) < (${page.after.key}::timestamptz, ${page.after.id}::uuid)` : sql``;
  const result = await ctx.database.db.execute(sql`
    SELECT s.id, s.created_at, s.updated_at, s.operation, s.user_id, s.signature, s.status, s.error, s.confirmed_at,
      (CASE s.operation
        WHEN 'placePrediction' THEN -(s.params->>'stake')::numeric
        WHEN 'updateStake' THEN -(s.params->>'delta')::numeric
        WHEN 'updateValue' THEN 0
        WHEN 'withdraw' THEN -(s.params->>'amount')::numeric
        WHEN 'fundStreak' THEN -(s.params->>'amount')::numeric
        WHEN 'claimReward' THEN r.amount
        WHEN 'claimStreakReward' THEN sr.amount
      END)::text AS amount_units,
      coalesce(p.decimals, r.decimals, st.decimals, fs.decimals) AS decimals,
      coalesce(p.id, r.prediction_id) AS prediction_id, r.id AS reward_id, sr.id AS streak_reward_id
    FROM chain_submissions s
    LEFT JOIN predictions p ON p.prediction_account = s.params->>'predictionAccount'
    LEFT JOIN rewards r ON s.operation = 'claimReward' AND r.id::text = s.params->>'rewardId'
    LEFT JOIN streak_rewards sr ON s.operation = 'claimStreakReward' AND sr.id::text = s.params->>'streakRewardId'
    LEFT JOIN streaks st ON st.id = sr.streak_id
    LEFT JOIN streaks fs ON s.operation = 'fundStreak' AND fs.id::text = s.params->>'streakId'
    WHERE s.user_id = ${userId} ${after}
    ORDER BY s.created_at DESC, s.id DESC
    LIMIT ${page.first + 1}`);
  type Raw = Record<string, any>;
  const rows = (Array.isArray(result) ? result : (result as { rows: Raw[] }).rows) as Raw[];
  const chainDecimals = ctx.chain?.accounts.decimals ?? null;
  const mapped: UserTransaction[] = rows.map((row) => ({
    id: row.id,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    operation: row.operation,
    userId: row.user_id,
    signature: row.signature,
    status: row.status,
    error: row.error,
    confirmedAt: row.confirmed_at ? new Date(row.confirmed_at) : null,
    amountUnits: row.amount_units == null ? null : BigInt(row.amount_units),
    decimals: row.decimals ?? chainDecimals,
    predictionId: row.prediction_id ?? null,
    rewardId: row.reward_id ?? null,
    streakRewardId: row.streak_reward_id ?? null,
  }));
  const { nodes, hasNextPage } = takePage(mapped, page.first);
  const countAll = async () =>
    (await ctx.database.db.select({ n: sql<number>`count(*)::int` }).from(chainSubmissions).where(eq(chainSubmissions.userId, userId)))[0]?.n ?? 0;
  return new Page(nodes, hasNextPage, false, (row) => encodeCursor(NEWEST_FIRST, row.createdAt.toISOString(), row.id), countAll);
}

export const PREDICTION_FILTERS = ['ACTIVE', 'ENDED', 'RESOLVED', 'CLAIMABLE'] as const;
export type PredictionFilter = (typeof PREDICTION_FILTERS)[number];
export const PREDICTION_SORTS = ['NEWEST', 'OLDEST', 'STAKE_HIGH', 'STAKE_LOW'] as const;
export type PredictionSort = (typeof PREDICTION_SORTS)[number];

const SORTS: Record<PredictionSort, { key: SQL; descending: boolean; keyOf: (row: PredictionRow) => string; isValidKey: (key: string) => boolean; cast: string }> = {
  NEWEST: { key: sql`${predictions.createdAt}`, descending: true, keyOf: (row) => row.createdAt.toISOString(), isValidKey: isIsoDate, cast: 'timestamptz' },
  OLDEST: { key: sql`${predictions.createdAt}`, descending: false, keyOf: (row) => row.createdAt.toISOString(), isValidKey: isIsoDate, cast: 'timestamptz' },
  STAKE_HIGH: { key: sql`${predictions.stake}`, descending: true, keyOf: (row) => row.stake.toString(), isValidKey: isIntegerString, cast: 'bigint' },
  STAKE_LOW: { key: sql`${predictions.stake}`, descending: false, keyOf: (row) => row.stake.toString(), isValidKey: isIntegerString, cast: 'bigint' },
};

/**
 * A user's predictions whose pool is in a lifecycle state (the pools' own ACTIVE, ENDED and
 * RESOLVED filters), or whose reward is still to be claimed (CLAIMABLE), in a sort order
 * with keyset cursors.
 */
export async function userPredictions(
  ctx: ServiceContext,
  userId: string,
  args: { first?: number | null; after?: string | null; filter?: PredictionFilter | null; sort?: PredictionSort | null },
): Promise<Page<PredictionRow>> {
  const sortName = args.sort ?? 'NEWEST';
  const sort = SORTS[sortName];
  if (!sort) throw badInput('sort', `sort must be one of ${PREDICTION_SORTS.join(', ')}`);
  // NEWEST shares the cursors of the unfiltered newest-first list.
  const cursorSort = sortName === 'NEWEST' ? NEWEST_FIRST : `PREDICTIONS_${sortName}`;
  const page = parsePageRequest(args, cursorSort, sort.isValidKey);
  const filter = args.filter == null ? undefined : predictionFilter(ctx, args.filter);
  const after = page.after
    ? sort.descending
      ? sql`(${sort.key}, ${predictions.id}) < (${page.after.key}::${sql.raw(sort.cast)}, ${page.after.id}::uuid)`
      : sql`(${sort.key}, ${predictions.id}) > (${page.after.key}::${sql.raw(sort.cast)}, ${page.after.id}::uuid)`
    : undefined;
  const where = and(eq(predictions.userId, userId), filter);
  const order = sort.descending ? [desc(sort.key), desc(predictions.id)] : [asc(sort.key), asc(predictions.id)];
  const rows = await ctx.database.db
    .select({ prediction: predictions })
    .from(predictions)
    .innerJoin(poolsAsP, eq(poolsAsP.id, predictions.poolId))
    .where(and(where, after))
    .orderBy(...order)
    .limit(page.first + 1);
  const { nodes, hasNextPage } = takePage(rows.map((row) => row.prediction), page.first);
  const countAll = async () =>
    (await ctx.database.db.select({ n: sql<number>`count(*)::int` }).from(predictions).innerJoin(poolsAsP, eq(poolsAsP.id, predictions.poolId)).where(where))[0]?.n ?? 0;
  return new Page(nodes, hasNextPage, false, (row) => encodeCursor(cursorSort, sort.keyOf(row), row.id), countAll);
}

function predictionFilter(ctx: ServiceContext, filter: PredictionFilter): SQL {
  if (!PREDICTION_FILTERS.includes(filter)) throw badInput('filter', `filter must be one of ${PREDICTION_FILTERS.join(', ')}`);
  // The pools filters' own definition, over the alias `p` the list joins; the time is the request's, inlined.
  if (filter !== 'CLAIMABLE') return sql.raw(statusCondition(() => `'${ctx.now.toISOString()}'::timestamptz`, filter));
  return sql`EXISTS (SELECT 1 FROM ${rewards} WHERE ${rewards.predictionId} = ${predictions.id} AND NOT ${rewards.isClaimed} AND ${rewards.amount} > 0)`;
}

/** The viewer's prediction in each pool (null where none, or when signed out): one statement per request. */
export function viewerPrediction(ctx: ServiceContext, poolId: string): Promise<PredictionRow | null> | null {
  if (!ctx.viewer) return null;
  const userId = requireViewer(ctx.viewer).userId;
  return requestScoped(ctx, 'pool.viewerPrediction', () =>
    new DataLoader<string, PredictionRow | null>(async (poolIds) => {
      const rows = await ctx.database.db
        .select()
        .from(predictions)
        .where(and(eq(predictions.userId, userId), inArray(predictions.poolId, [...poolIds])));
      return poolIds.map((id) => rows.find((row) => row.poolId === id) ?? null);
    }),
  ).load(poolId);
}
