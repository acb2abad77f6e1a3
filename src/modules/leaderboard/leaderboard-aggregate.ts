import { sql } from 'drizzle-orm';
import { type Db, resultRows } from '../../db/client.js';

/**
 * Keeps the leaderboard aggregate (schema/leaderboard.ts) current. Resolution adds each
 * resolved pool's rewards once, inside its own transaction, so the board never disagrees
 * with the rewards and no request has to scan predictions. The windows' totals are kept as
 * of a day: resolution adds to each window the days it covers as of its day, and a window
 * read on another day is built again for that day first (refreshLeaderboardWindow).
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

/** A standing's summed columns (schema/leaderboard.ts); its `decimals` is the mint's, the same on every row. */
const STANDING_SUMS = ['payout', 'staked', 'score_sum', 'scored_count'] as const;

/** A standing's columns summed over the rows grouped, in the tables' column order, named as they are. */
const summedStanding = sql.raw(`${STANDING_SUMS.map((column) => `sum(${column}) AS ${column}`).join(', ')}, max(decimals) AS decimals`);

/** An upsert's SET: `table`'s standing plus the one added (EXCLUDED). */
const addedStanding = (table: string) =>
  sql.raw(STANDING_SUMS.map((column) => `${column} = ${table}.${column} + EXCLUDED.${column}`).join(', '));

/**
 * Adds a just-resolved pool's rewards to the board: one statement, in the resolution's
 * transaction. It locks the windows' rows first, so a window being built waits for this
 * resolution to commit (and is built with its days), or this waits for the window and adds
 * to it as of its new day.
 */
export async function addResolvedPoolToLeaderboard(tx: Db, poolId: string): Promise<void> {
  await tx.execute(sql`
    WITH added AS (${rewardedByUserAndDay(sql`p.pool_id = ${poolId}`)}),
    windows AS (SELECT period, days, as_of FROM leaderboard_windows ORDER BY period FOR UPDATE),
    daily AS (
      INSERT INTO leaderboard_daily (user_id, day, payout, staked, score_sum, scored_count, decimals)
      SELECT * FROM added
      ON CONFLICT (user_id, day) DO UPDATE SET ${addedStanding('leaderboard_daily')}
    ),
    totals AS (
      INSERT INTO leaderboard_totals (user_id, payout, staked, score_sum, scored_count, decimals)
      SELECT user_id, ${summedStanding} FROM added GROUP BY 1
      ON CONFLICT (user_id) DO UPDATE SET ${addedStanding('leaderboard_totals')}
    )
    INSERT INTO leaderboard_window_totals (period, user_id, payout, staked, score_sum, scored_count, decimals)
    SELECT w.period, a.user_id, ${summedStanding} FROM added a JOIN windows w ON a.day > w.as_of - w.days GROUP BY 1, 2
    ON CONFLICT (period, user_id) DO UPDATE SET ${addedStanding('leaderboard_window_totals')}`);
}

/**
 * Brings the window `period`'s totals to `day` (UTC, 'YYYY-MM-DD'), unless another
 * transaction did meanwhile: the window's daily rows summed per user, in the caller's
 * transaction, under the window row's lock. Only what changed is written (a user whose days
 * left the window, one who came into it, and a changed sum): from one day to the next, the
 * users of the day that left and of the day that came. It runs at a window's first read on a
 * day its totals are not as of, whichever way the day moved; that read writes, so on a
 * standby it fails (read-only) and the read runs on the primary.
 */
export async function refreshLeaderboardWindow(tx: Db, period: string, day: string): Promise<void> {
  const [window] = resultRows<{ as_of: string | null; days: number }>(
    await tx.execute(sql`SELECT to_char(as_of, 'YYYY-MM-DD') AS as_of, days FROM leaderboard_windows WHERE period = ${period} FOR UPDATE`),
  );
  if (!window) throw new Error(`no leaderboard window ${period}`);
  if (window.as_of === day) return;
  const standing = (alias: string) => sql.raw(`(${STANDING_SUMS.map((column) => `${alias}.${column}`).join(', ')})`);
  await tx.execute(sql`
    WITH summed AS (
      SELECT user_id, ${summedStanding} FROM leaderboard_daily WHERE day > ${day}::date - ${window.days}::int GROUP BY user_id
    ),
    gone AS (
      DELETE FROM leaderboard_window_totals k
      WHERE k.period = ${period} AND NOT EXISTS (SELECT 1 FROM summed s WHERE s.user_id = k.user_id)
    )
    INSERT INTO leaderboard_window_totals (period, user_id, payout, staked, score_sum, scored_count, decimals)
    SELECT ${period}::text, s.* FROM summed s LEFT JOIN leaderboard_window_totals k ON k.period = ${period} AND k.user_id = s.user_id
    WHERE ${standing('k')} IS DISTINCT FROM ${standing('s')}
    ON CONFLICT (period, user_id) DO UPDATE SET ${sql.raw([...STANDING_SUMS, 'decimals'].map((column) => `${column} = EXCLUDED.${column}`).join(', '))}`);
  await tx.execute(sql`UPDATE leaderboard_windows SET as_of = ${day}::date WHERE period = ${period}`);
}

/**
 * Recomputes the whole board from the rewards, after bulk loads that write rewards
 * directly (the demo seed), its windows as of `windowsAsOf`'s day (UTC), or when null left
 * to their first reads. Run it inside the load's transaction.
 */
export async function rebuildLeaderboard(tx: Db, windowsAsOf: Date | null): Promise<void> {
  await tx.execute(sql`DELETE FROM leaderboard_daily`);
  await tx.execute(sql`DELETE FROM leaderboard_totals`);
  await tx.execute(sql`
    INSERT INTO leaderboard_daily (user_id, day, payout, staked, score_sum, scored_count, decimals)
    ${rewardedByUserAndDay(sql`true`)}`);
  await tx.execute(sql`
    INSERT INTO leaderboard_totals (user_id, payout, staked, score_sum, scored_count, decimals)
    SELECT user_id, ${summedStanding} FROM leaderboard_daily GROUP BY 1`);
  await tx.execute(sql`DELETE FROM leaderboard_window_totals`);
  await tx.execute(sql`UPDATE leaderboard_windows SET as_of = NULL`);
  if (windowsAsOf === null) return;
  const periods = resultRows<{ period: string }>(await tx.execute(sql`SELECT period FROM leaderboard_windows ORDER BY period`));
  for (const { period } of periods) await refreshLeaderboardWindow(tx, period, windowsAsOf.toISOString().slice(0, 10));
}
