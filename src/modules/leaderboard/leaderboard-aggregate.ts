import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';

/**
 * Keeps the leaderboard aggregate (schema/leaderboard.ts) current. Resolution adds each
 * resolved pool's rewards once, inside its own transaction, so the board never disagrees
 * with the rewards and no request has to scan predictions.
 */

/** Rows of (user, UTC day of resolution) with their rewarded predictions, for the pools matched by `poolCondition`. */
const rewardedByUserAndDay = (poolCondition: ReturnType<typeof sql>) => sql`
  SELECT p.user_id, (res.created_at AT TIME ZONE 'UTC')::date AS day,
         sum(r.amount) AS payout, sum(p.stake) AS staked, sum(r.precision_score) AS score_sum,
         count(*)::int AS scored_count, max(r.decimals) AS decimals
  FROM rewards r
  JOIN predictions p ON p.id = r.prediction_id
  JOIN resolutions res ON res.pool_id = p.pool_id
  WHERE r.type = 'REWARD' AND ${poolCondition}
  GROUP BY 1, 2`;

/** Adds a just-resolved pool's rewards to the board: one statement, in the resolution's transaction. */
export async function addResolvedPoolToLeaderboard(tx: Db, poolId: string): Promise<void> {
  await tx.execute(sql`
    WITH added AS (${rewardedByUserAndDay(sql`p.pool_id = ${poolId}`)}),
    daily AS (
      INSERT INTO leaderboard_daily (user_id, day, payout, staked, score_sum, scored_count, decimals)
      SELECT * FROM added
      ON CONFLICT (user_id, day) DO UPDATE SET
        payout = leaderboard_daily.payout + EXCLUDED.payout,
        staked = leaderboard_daily.staked + EXCLUDED.staked,
        score_sum = leaderboard_daily.score_sum + EXCLUDED.score_sum,
        scored_count = leaderboard_daily.scored_count + EXCLUDED.scored_count
    )
    INSERT INTO leaderboard_totals (user_id, payout, staked, score_sum, scored_count, decimals)
    SELECT user_id, sum(payout), sum(staked), sum(score_sum), sum(scored_count), max(decimals) FROM added GROUP BY 1
    ON CONFLICT (user_id) DO UPDATE SET
      payout = leaderboard_totals.payout + EXCLUDED.payout,
      staked = leaderboard_totals.staked + EXCLUDED.staked,
      score_sum = leaderboard_totals.score_sum + EXCLUDED.score_sum,
      scored_count = leaderboard_totals.scored_count + EXCLUDED.scored_count`);
}

/**
 * Recomputes the whole board from the rewards, after bulk loads that write rewards
 * directly (the demo seed). Run it inside the load's transaction.
 */
export async function rebuildLeaderboard(tx: Db): Promise<void> {
  await tx.execute(sql`DELETE FROM leaderboard_daily`);
  await tx.execute(sql`DELETE FROM leaderboard_totals`);
  await tx.execute(sql`
    INSERT INTO leaderboard_daily (user_id, day, payout, staked, score_sum, scored_count, decimals)
    ${rewardedByUserAndDay(sql`true`)}`);
  await tx.execute(sql`
    INSERT INTO leaderboard_totals (user_id, payout, staked, score_sum, scored_count, decimals)
    SELECT user_id, sum(payout), sum(staked), sum(score_sum), sum(scored_count), max(decimals) FROM leaderboard_daily GROUP BY 1`);
}
