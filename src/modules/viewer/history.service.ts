import DataLoader from 'dataloader';
import { and, eq, inArray } from 'drizzle-orm';
import { type ChainSubmissionRow, type PredictionRow, predictions } from '../../../schema/index.js';
import { tableReader } from '../../read/columns.js';
import { newestFirstOrder } from '../../read/keyset.js';
import { requireViewer } from '../auth/viewer.js';
import { keysetPageLoader } from '../common/keyset-page.js';
import { newestFirstCursor, pageSignature, parseNewestFirstPage } from '../common/loaders.js';
import { encodeCursor, type Page, type PageArguments } from '../common/pagination.js';
import type { ServiceContext } from '../context.js';
import { type UserPredictionsArguments, userPredictionsList } from '../predictions/prediction-lists.js';
import { requestScoped } from './request-scoped.js';

/** A user's transactions through the service, and their predictions by lifecycle. */

export interface UserTransaction extends Pick<
  ChainSubmissionRow,
  'id' | 'createdAt' | 'updatedAt' | 'operation' | 'userId' | 'signature' | 'status' | 'error' | 'confirmedAt'
> {
  /** The change of the user's token balance, in base units (negative: tokens left the wallet); null when unknown. */
  amountUnits: bigint | null;
  decimals: number | null;
  predictionId: string | null;
  rewardId: string | null;
  streakRewardId: string | null;
}

/**
 * The user's chain submissions, newest first: one statement per page, whatever its size,
 * and for every user a request lists (an admin's), batched into one.
 */
export function userTransactions(ctx: ServiceContext, userId: string, args: PageArguments): Promise<Page<UserTransaction>> {
  const page = parseNewestFirstPage(args);
  const chainDecimals = ctx.chain?.accounts.decimals ?? null;
  const pages = requestScoped(ctx, `userTransactions:${pageSignature(page)}`, () =>
    keysetPageLoader(
      ctx.database.query,
      {
        table: 'chain_submissions',
        parentColumn: 'user_id',
        alias: 's',
        list: { order: newestFirstOrder },
        select: { list: TRANSACTION_COLUMNS, joins: TRANSACTION_JOINS, decode: (row) => transactionOf(row, chainDecimals) },
        parentOf: (row) => row.userId,
        cursorOf: newestFirstCursor,
      },
      page,
    ),
  );
  return pages.load(userId);
}

/** What a transaction's record shows, and the records it produced, over the submission `s` and TRANSACTION_JOINS. */
const TRANSACTION_COLUMNS = `s.id, s.created_at, s.updated_at, s.operation, s.user_id, s.signature, s.status, s.error, s.confirmed_at,
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
      coalesce(p.id, r.prediction_id) AS prediction_id, r.id AS reward_id, sr.id AS streak_reward_id`;
const TRANSACTION_JOINS = `LEFT JOIN predictions p ON p.prediction_account = s.params->>'predictionAccount'
    LEFT JOIN rewards r ON s.operation = 'claimReward' AND r.id::text = s.params->>'rewardId'
    LEFT JOIN streak_rewards sr ON s.operation = 'claimStreakReward' AND sr.id::text = s.params->>'streakRewardId'
    LEFT JOIN streaks st ON st.id = sr.streak_id
    LEFT JOIN streaks fs ON s.operation = 'fundStreak' AND fs.id::text = s.params->>'streakId'`;

function transactionOf(row: Record<string, any>, chainDecimals: number | null): UserTransaction {
  return {
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
  };
}

/** Transactions by id (for `node`): one statement for all of them, in key order, null where none. */
export async function transactionsByIds(ctx: ServiceContext, ids: readonly string[]): Promise<Array<UserTransaction | null>> {
  const chainDecimals = ctx.chain?.accounts.decimals ?? null;
  const rows = await ctx.database.query<Record<string, unknown>>(
    `SELECT ${TRANSACTION_COLUMNS} FROM "chain_submissions" s ${TRANSACTION_JOINS} WHERE s."id" = ANY($1::uuid[])`,
    [ids],
  );
  const byId = new Map(rows.map((row) => [String(row.id), transactionOf(row, chainDecimals)]));
  return ids.map((id) => byId.get(id) ?? null);
}

/**
 * A user's predictions, filtered and sorted as the arguments ask (predictions/prediction-lists.ts),
 * with keyset cursors, forward or backward: one statement for every user a request lists
 * with the same arguments.
 */
export function userPredictions(ctx: ServiceContext, userId: string, args: UserPredictionsArguments): Promise<Page<PredictionRow>> {
  const { list, sort, page } = userPredictionsList(args, ctx.now);
  const reader = tableReader(predictions);
  const pages = requestScoped(ctx, `userPredictions:${args.filter ?? ''}:${list.name}:${pageSignature(page)}`, () =>
    keysetPageLoader(
      ctx.database.query,
      {
        table: reader.name,
        parentColumn: 'user_id',
        alias: 'c',
        list,
        select: { list: reader.columns('c'), decode: (row) => reader.decode<PredictionRow>(row) },
        parentOf: (row) => row.userId,
        cursorOf: (row) => encodeCursor(list.name, sort.keyOf(row), row.id),
      },
      page,
    ),
  );
  return pages.load(userId);
}

/** The viewer's prediction in each pool (null where none, or when signed out): one statement per request. */
export function viewerPrediction(ctx: ServiceContext, poolId: string): Promise<PredictionRow | null> | null {
  if (!ctx.viewer) return null;
  const userId = requireViewer(ctx.viewer).userId;
  return requestScoped(
    ctx,
    'pool.viewerPrediction',
    () =>
      new DataLoader<string, PredictionRow | null>(async (poolIds) => {
        const rows = await ctx.database.db
          .select()
          .from(predictions)
          .where(and(eq(predictions.userId, userId), inArray(predictions.poolId, [...poolIds])));
        return poolIds.map((id) => rows.find((row) => row.poolId === id) ?? null);
      }),
  ).load(poolId);
}
