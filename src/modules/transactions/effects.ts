import { and, eq, gte, sql } from 'drizzle-orm';
import { type ChainSubmissionRow, pools, predictions, rewards, streakRewards, streaks } from '../../../schema/index.js';
import type { Db } from '../../db/client.js';
import { toTokens } from '../common/amounts.js';
import type { DomainEvent } from '../events/events.js';
import { notifyIfAllowed } from '../notifications/notification.service.js';
import { notificationTexts } from '../notifications/notification.texts.js';
import type { EffectParams, OperationName } from './operations.js';

/**
 * What a confirmed transaction changes in the database, per operation. Each runs inside the
 * transaction that marks its submission CONFIRMED, from the parameters stored with it, so
 * a submit and the start-up reconciler apply exactly the same effects, exactly once. Each
 * returns the events announcing what it changed, published once the transaction commits.
 */
type Effect<Op extends OperationName> = (db: Db, p: EffectParams[Op], submission: ChainSubmissionRow, now: Date) => Promise<DomainEvent[]>;

const EFFECTS: { [Op in OperationName]: Effect<Op> } = {
  // The operator's funding of a streak: its balances grow by the amount.
  async fundStreak(db, p, _submission, now) {
    const amount = sql`${p.amount}::bigint`;
    await db
      .update(streaks)
      .set({
        totalAccumulated: sql`${streaks.totalAccumulated} + ${amount}`,
        availableBalance: sql`${streaks.availableBalance} + ${amount}`,
        onchainBalance: sql`${streaks.onchainBalance} + ${amount}`,
        lastSyncAt: now,
        updatedAt: now,
      })
      .where(eq(streaks.id, p.streakId));
    return [];
  },

  async placePrediction(db, p, submission, now) {
    const [pool] = await db.select().from(pools).where(eq(pools.id, p.poolId));
    const stake = BigInt(p.stake);
    await db.insert(predictions).values({
      poolId: pool!.id,
      userId: submission.userId,
      poolAccount: pool!.poolAccount,
      predictorAccount: p.predictorAccount,
      predictionAccount: p.predictionAccount,
      prediction: Number(p.value),
      precision: pool!.precision,
      stakeTokenMint: pool!.stakeTokenMint,
      stake,
      decimals: pool!.decimals,
      lastAppliedValueRevision: 1,
      lastAppliedStakeRevision: 1,
      isFeePayer: true,
      bump: Number(p.bump),
      lastSyncAt: now,
      createdAt: now,
      updatedAt: now,
    });
    return addToPool(db, pool!.id, stake, now);
  },

  async updateStake(db, p, _submission, now) {
    const [prediction] = await db
      .update(predictions)
      .set({ stake: BigInt(p.stake), lastAppliedStakeRevision: Number(p.revision), lastSyncAt: now, updatedAt: now })
      .where(eq(predictions.id, p.predictionId))
      .returning({ poolId: predictions.poolId });
    return addToPool(db, prediction!.poolId, BigInt(p.delta), now);
  },

  async updateValue(db, p, _submission, now) {
    const [prediction] = await db
      .update(predictions)
      .set({ prediction: Number(p.value), lastAppliedValueRevision: Number(p.revision), lastSyncAt: now, updatedAt: now })
      .where(eq(predictions.id, p.predictionId))
      .returning({ poolId: predictions.poolId });
    return addToPool(db, prediction!.poolId, 0n, now);
  },

  // A withdrawal moves the user's own tokens; the submission row is its whole record.
  async withdraw() {
    return [];
  },

  async claimReward(db, p, submission, now) {
    const [reward] = await db
      .update(rewards)
      .set({ isClaimed: true, updatedAt: now })
      .where(and(eq(rewards.id, p.rewardId), eq(rewards.isClaimed, false)))
      .returning();
    if (!reward) return [];
    const refund = reward.type === 'REFUND';
    const amount = toTokens(reward.amount, reward.decimals);
    return notifyIfAllowed(db, {
      userId: submission.userId,
      type: refund ? 'REFUND_CLAIMED' : 'REWARD_CLAIMED',
      ...(refund ? notificationTexts.refundClaimed(amount) : notificationTexts.rewardClaimed(amount)),
      data: { rewardId: reward.id, predictionId: reward.predictionId, amount, signature: submission.signature },
      now,
    });
  },

  async claimStreakReward(db, p, submission, now) {
    const [reward] = await db
      .update(streakRewards)
      .set({ isClaimed: true, updatedAt: now })
      .where(and(eq(streakRewards.id, p.streakRewardId), eq(streakRewards.isClaimed, false)))
      .returning();
    if (!reward) return [];
    await db
      .update(streaks)
      .set({ onchainBalance: sql`${streaks.onchainBalance} - ${reward.amount.toString()}::bigint`, lastSyncAt: now, updatedAt: now })
      .where(and(eq(streaks.id, reward.streakId), gte(streaks.onchainBalance, reward.amount)));
    const amount = toTokens(reward.amount, Number(p.decimals));
    return notifyIfAllowed(db, {
      userId: submission.userId,
      type: 'STREAK_REWARD_RECEIVED',
      ...notificationTexts.streakRewardReceived(amount),
      data: { streakRewardId: reward.id, streakId: reward.streakId, amount, signature: submission.signature },
      now,
    });
  },
};

/** A prediction placed or changed: the pool's volume moves by `stake`, and its update count by one. */
async function addToPool(db: Db, poolId: string, stake: bigint, now: Date): Promise<DomainEvent[]> {
  await db
    .update(pools)
    .set({
      totalVolume: sql`${pools.totalVolume} + ${stake.toString()}::bigint`,
      indexedPredictionUpdateCount: sql`${pools.indexedPredictionUpdateCount} + 1`,
      updatedAt: now,
    })
    .where(eq(pools.id, poolId));
  return [{ type: 'poolUpdated', poolId }];
}

export function applyEffects(db: Db, submission: ChainSubmissionRow, now: Date): Promise<DomainEvent[]> {
  const operation = submission.operation as OperationName;
  if (!Object.hasOwn(EFFECTS, operation)) throw new Error(`submission ${submission.id} has an unknown operation "${submission.operation}"`);
  // The row's parameters were written by the same operation's prepare step (typed there by EffectParams).
  const effect = EFFECTS[operation] as Effect<OperationName>;
  return effect(db, submission.params as unknown as EffectParams[OperationName], submission, now);
}
