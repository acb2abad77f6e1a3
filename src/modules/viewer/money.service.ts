import DataLoader from 'dataloader';
import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import { predictions, type RewardRow, rewards, type StreakRewardRow, streakRewards, streaks, users } from '../../../schema/index.js';
import { resultRows } from '../../db/client.js';
import type { ServiceContext } from '../context.js';
import { requestScoped } from './request-scoped.js';

/**
 * What a user can claim, and what their predictions have earned: read for many users in
 * one statement each (per request), summed exactly in base units.
 */

export interface Claimable {
  rewards: RewardRow[];
  refunds: RewardRow[];
  streakRewards: StreakRewardRow[];
  /** Base units of each kind, and their sum; `decimals` converts them (one stake mint). */
  rewardUnits: bigint;
  refundUnits: bigint;
  streakRewardUnits: bigint;
  decimals: number;
}

export interface Portfolio {
  /** Predictions in pools without a resolution yet, and their stakes. */
  activeCount: number;
  activeStakeUnits: bigint;
  /** Predictions in resolved pools, their stakes, and what they paid (rewards and refunds, claimed or not). */
  resolvedCount: number;
  resolvedStakeUnits: bigint;
  payoutUnits: bigint;
  decimals: number;
}

const sum = (units: bigint[]) => units.reduce((total, n) => total + n, 0n);

function claimableLoader(ctx: ServiceContext) {
  return new DataLoader<string, Claimable>(async (userIds) => {
    const db = ctx.database.db;
    const [rewardRows, streakRows] = await Promise.all([
      db
        .select({ reward: rewards, userId: predictions.userId })
        .from(rewards)
        .innerJoin(predictions, eq(predictions.id, rewards.predictionId))
        .where(and(inArray(predictions.userId, [...userIds]), eq(rewards.isClaimed, false), gt(rewards.amount, 0n)))
        .orderBy(asc(rewards.createdAt), asc(rewards.id)),
      db
        .select({ streakReward: streakRewards, userId: users.id, decimals: streaks.decimals })
        .from(streakRewards)
        .innerJoin(users, eq(users.walletAddress, streakRewards.userWalletAddress))
        .innerJoin(streaks, eq(streaks.id, streakRewards.streakId))
        .where(and(inArray(users.id, [...userIds]), eq(streakRewards.isClaimed, false)))
        .orderBy(asc(streakRewards.createdAt), asc(streakRewards.id)),
    ]);
    const decimals = ctx.chain?.accounts.decimals ?? rewardRows[0]?.reward.decimals ?? streakRows[0]?.decimals ?? 0;
    return userIds.map((userId) => {
      const own = rewardRows.filter((row) => row.userId === userId).map((row) => row.reward);
      const streak = streakRows.filter((row) => row.userId === userId).map((row) => row.streakReward);
      const paid = own.filter((reward) => reward.type === 'REWARD');
      const refunds = own.filter((reward) => reward.type === 'REFUND');
      return {
        rewards: paid,
        refunds,
        streakRewards: streak,
        rewardUnits: sum(paid.map((r) => r.amount)),
        refundUnits: sum(refunds.map((r) => r.amount)),
        streakRewardUnits: sum(streak.map((r) => r.amount)),
        decimals,
      };
    });
  });
}

function portfolioLoader(ctx: ServiceContext) {
  return new DataLoader<string, Portfolio>(async (userIds) => {
    const rows = resultRows<{ user_id: string; resolved: boolean; n: number; staked: string; paid: string; decimals: number }>(
      await ctx.database.db.execute(sql`
        SELECT p.user_id, (res.id IS NOT NULL) AS resolved, count(*)::int AS n,
               sum(p.stake)::text AS staked, coalesce(sum(r.amount), 0)::text AS paid, max(p.decimals)::int AS decimals
        FROM predictions p
        LEFT JOIN resolutions res ON res.pool_id = p.pool_id
        LEFT JOIN rewards r ON r.prediction_id = p.id
        WHERE p.user_id = ANY(${`{${userIds.join(',')}}`}::uuid[])
        GROUP BY 1, 2`),
    );
    return userIds.map((userId) => {
      const active = rows.find((row) => row.user_id === userId && !row.resolved);
      const resolved = rows.find((row) => row.user_id === userId && row.resolved);
      return {
        activeCount: active?.n ?? 0,
        activeStakeUnits: BigInt(active?.staked ?? 0),
        resolvedCount: resolved?.n ?? 0,
        resolvedStakeUnits: BigInt(resolved?.staked ?? 0),
        payoutUnits: BigInt(resolved?.paid ?? 0),
        decimals: ctx.chain?.accounts.decimals ?? active?.decimals ?? resolved?.decimals ?? 0,
      };
    });
  });
}

export function claimableOf(ctx: ServiceContext, userId: string): Promise<Claimable> {
  return requestScoped(ctx, 'viewer.claimable', () => claimableLoader(ctx)).load(userId);
}

export function portfolioOf(ctx: ServiceContext, userId: string): Promise<Portfolio> {
  return requestScoped(ctx, 'viewer.portfolio', () => portfolioLoader(ctx)).load(userId);
}
