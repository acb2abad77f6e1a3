import { eq, sql } from 'drizzle-orm';
import { type PoolRow, pools, resolutions } from '../../../schema/index.js';
import { type Db, resultRows } from '../../db/client.js';
import { toTokens } from '../common/amounts.js';
import { notifyEachIfAllowed } from '../notifications/notification.service.js';
import { notificationTexts } from '../notifications/notification.texts.js';
import { processStreakPool } from '../streaks/streak-processor.js';
import type { ResolutionPlan } from './resolution.plan.js';
import { addResolvedPoolToLeaderboard } from '../leaderboard/leaderboard-aggregate.js';

/**
 * Writes a resolution plan inside the caller's transaction: the resolution, its rewards,
 * the pool's updated_at, the notices users allow, then the streak step and its notices.
 * Returns the pool and the notifications written (for the `notificationsCreated` event).
 */
export async function storeResolution(
  tx: Db,
  plan: ResolutionPlan,
  now: Date,
): Promise<{ pool: PoolRow; notifications: Array<{ userId: string; id: string }> }> {
  const { poolId, decimals } = plan.resolution;
  await tx.insert(resolutions).values(plan.resolution);
  const at = now.toISOString();
  const records = plan.rewards.map((r) => ({
    prediction_id: r.predictionId,
    amount: r.units.toString(),
    precision_score: r.precisionScore,
    type: r.type,
  }));
  const rewardIdOf = new Map(
    records.length === 0
      ? []
      : resultRows<{ id: string; prediction_id: string }>(
          await tx.execute(sql`
            INSERT INTO rewards (prediction_id, decimals, amount, precision_score, type, created_at, updated_at)
            SELECT x.prediction_id, ${decimals}, x.amount, x.precision_score, x.type::reward_type, ${at}::timestamptz, ${at}::timestamptz
            FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb)
              AS x(prediction_id uuid, amount bigint, precision_score numeric, type text)
            RETURNING id, prediction_id`),
        ).map((row) => [row.prediction_id, row.id]),
  );
  const [pool] = await tx.update(pools).set({ updatedAt: now }).where(eq(pools.id, poolId)).returning();
  await addResolvedPoolToLeaderboard(tx, poolId);

  const written: Array<{ userId: string; id: string }> = [];
  for (const type of ['REWARD_AVAILABLE', 'REFUND_AVAILABLE'] as const) {
    const notices = plan.notices
      .filter((n) => n.type === type)
      .map((n) => ({
        userId: n.userId,
        title: n.title,
        message: n.message,
        data: { ...n.data, rewardId: rewardIdOf.get(n.predictionId)! },
      }));
    written.push(...(await notifyEachIfAllowed(tx, type, notices, now)));
  }

  if (plan.streakStep) {
    const streak = await processStreakPool(tx, { ...plan.streakStep, now });
    const notices = streak.rewards.map((reward) => {
      const amount = toTokens(reward.amount, streak.streak.decimals);
      return {
        userId: reward.userId,
        ...notificationTexts.streakRewardAvailable(streak.streak.title, amount),
        data: { streakId: streak.streak.id, streakRewardId: reward.id, poolId, amount },
      };
    });
    written.push(...(await notifyEachIfAllowed(tx, 'STREAK_REWARD_AVAILABLE', notices, now)));
  }
  return { pool: pool!, notifications: written };
}
