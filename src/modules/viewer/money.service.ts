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

/**
 * A user's portfolio sums in base units, as one row (the user's id as `userId`, SQL): the
 * predictions in pools without a resolution (active) and with one (resolved), their stakes,
 * and what the resolved ones paid (rewards and refunds, claimed or not), with the stake
 * mint's decimals. The loader below and the viewer's rendered read (portfolio.rendered.ts) both read it.
 */
export const portfolioSumsSql = (userId: string) =>
  `SELECT count(*) FILTER (WHERE res.id IS NULL)::int AS active_n, coalesce(sum(q.stake) FILTER (WHERE res.id IS NULL), 0) AS active_stake, ` +
  `count(*) FILTER (WHERE res.id IS NOT NULL)::int AS resolved_n, coalesce(sum(q.stake) FILTER (WHERE res.id IS NOT NULL), 0) AS resolved_stake, ` +
  `coalesce(sum(r.amount) FILTER (WHERE res.id IS NOT NULL), 0) AS paid, max(q.decimals)::int AS decimals ` +
  `FROM predictions q LEFT JOIN resolutions res ON res.pool_id = q.pool_id LEFT JOIN rewards r ON r.prediction_id = q.id ` +
  `WHERE q.user_id = ${userId}`;

function portfolioLoader(ctx: ServiceContext) {
  return new DataLoader<string, Portfolio>(async (userIds) => {
    const rows = resultRows<{
      user_id: string;
      active_n: number;
      active_stake: string;
      resolved_n: number;
      resolved_stake: string;
      paid: string;
      decimals: number | null;
    }>(
      await ctx.database.db.execute(sql`
        SELECT u.id AS user_id, s.active_n, s.active_stake::text AS active_stake, s.resolved_n, s.resolved_stake::text AS resolved_stake,
               s.paid::text AS paid, s.decimals
        FROM unnest(${`{${userIds.join(',')}}`}::uuid[]) AS u(id), LATERAL (${sql.raw(portfolioSumsSql('u.id'))}) s`),
    );
    return userIds.map((userId) => {
      const row = rows.find((r) => r.user_id === userId)!;
      return {
        activeCount: row.active_n,
        activeStakeUnits: BigInt(row.active_stake),
        resolvedCount: row.resolved_n,
        resolvedStakeUnits: BigInt(row.resolved_stake),
        payoutUnits: BigInt(row.paid),
        decimals: ctx.chain?.accounts.decimals ?? row.decimals ?? 0,
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
