import { asc, eq, sql } from 'drizzle-orm';
import { streaks, users, userStreaks } from '../../../schema/index.js';
import { type Db, resultRows } from '../../db/client.js';

/**
 * The streak rule (docs/design.md). `advanceStreak` and `streakRewardAmount` are the rule itself,
 * pure, shared by the demo seed and by `processStreakPool`, which applies it to the database
 * when a pool of a streak is resolved.
 */

export type StreakEvent = 'NONE' | 'QUALIFIED' | 'RESET' | 'REWARDED';

/** A user's run in a streak: qualifying pools in a row, their scores, and the last thing that happened. */
export interface StreakProgress {
  count: number;
  scores: number[];
  event: StreakEvent;
}

export interface StreakTerms {
  streakCountRequired: number;
  minPrecisionScoreRequired: number;
}

/**
 * One processed pool for one user of the streak. `score` is the precision score of the
 * user's prediction in the pool, null without one. A score of at least the minimum extends
 * the run (QUALIFIED); reaching the required count completes it (REWARDED, `completed`, and
 * a new run starts at 0). Anything else ends a run in progress (RESET); a user with no run
 * is left as they were.
 */
export function advanceStreak(
  progress: StreakProgress,
  score: number | null,
  terms: StreakTerms,
): { progress: StreakProgress; completed: boolean } {
  if (score !== null && score >= terms.minPrecisionScoreRequired) {
    const count = progress.count + 1;
    if (count >= terms.streakCountRequired) return { progress: { count: 0, scores: [], event: 'REWARDED' }, completed: true };
    return { progress: { count, scores: [...progress.scores, score], event: 'QUALIFIED' }, completed: false };
  }
  if (progress.count > 0) return { progress: { count: 0, scores: [], event: 'RESET' }, completed: false };
  return { progress, completed: false };
}

/**
 * A completed run's reward: `payoutPercentage` of the streak's available balance, in whole
 * base units rounded down; the percentage counts in hundredths of a percent (12.5 -> 1250 / 10000).
 */
export function streakRewardAmount(availableBalance: bigint, payoutPercentage: number): bigint {
  return (availableBalance * BigInt(Math.round(payoutPercentage * 100))) / 10_000n;
}

/** A prediction in the resolved pool, as the processor needs it. */
export interface StreakEntry {
  userId: string;
  walletAddress: string;
  /** The prediction's precision score. */
  score: number;
  /** When the prediction was placed (user_streaks.last_pool_participated_at). */
  placedAt: Date;
}

export interface StreakRewardGranted {
  id: string;
  userId: string;
  amount: bigint;
}

export interface StreakProcessing {
  /** False when the streak had already processed this pool (nothing was written). */
  processed: boolean;
  streak: { id: string; title: string; decimals: number };
  rewards: StreakRewardGranted[];
  /** user_streaks rows written (created or updated). */
  usersWalked: number;
}

/**
 * Applies the streak rule for `poolId`, a newly resolved pool of streak `streakId`, inside
 * the caller's transaction. The streak's users are those with a user_streaks row plus the
 * pool's predictors (whose rows are created here); each is advanced once, in the order they
 * joined the streak (new predictors in the order they predicted), so when several complete a
 * run in one pool each reward is taken from the balance the previous ones left. Completed
 * runs get a streak_rewards row, and the streak's available balance falls by their sum; a
 * reward that rounds to 0 (an empty balance) completes the run without a row. The streak
 * row is locked first, so concurrent resolutions of one streak apply one after the other,
 * and `last_processed_pool_id` (streak and user rows) makes a second run a no-op.
 *
 * Statements: a fixed handful, whatever the number of users (rows travel as one jsonb).
 */
export async function processStreakPool(
  db: Db,
  input: { streakId: string; poolId: string; entries: readonly StreakEntry[]; now: Date },
): Promise<StreakProcessing> {
  const { streakId, poolId, now } = input;
  const [streak] = await db.select().from(streaks).where(eq(streaks.id, streakId)).for('update');
  if (!streak) throw new Error(`streak ${streakId} does not exist`);
  const summary = { id: streak.id, title: streak.title, decimals: streak.decimals };
  if (streak.lastProcessedPoolId === poolId) return { processed: false, streak: summary, rewards: [], usersWalked: 0 };

  const members = await db
    .select({
      userId: userStreaks.userId,
      walletAddress: users.walletAddress,
      count: userStreaks.currentStreakCount,
      scores: userStreaks.currentStreakScores,
      event: userStreaks.lastStreakEvent,
      lastProcessedPoolId: userStreaks.lastProcessedPoolId,
    })
    .from(userStreaks)
    .innerJoin(users, eq(users.id, userStreaks.userId))
    .where(eq(userStreaks.streakId, streakId))
    .orderBy(asc(userStreaks.createdAt), asc(userStreaks.id));

  const entryOf = new Map(input.entries.map((e) => [e.userId, e]));
  const known = new Set(members.map((m) => m.userId));
  const newcomers = input.entries
    .filter((e) => !known.has(e.userId))
    .sort((a, b) => a.placedAt.getTime() - b.placedAt.getTime() || (a.userId < b.userId ? -1 : 1))
    .map((e) => ({
      userId: e.userId,
      walletAddress: e.walletAddress,
      count: 0,
      scores: [] as number[],
      event: 'NONE' as StreakEvent,
      lastProcessedPoolId: null,
    }));

  const terms: StreakTerms = {
    streakCountRequired: streak.streakCountRequired,
    minPrecisionScoreRequired: streak.minPrecisionScoreRequired,
  };
  let available = streak.availableBalance;
  const states: Array<{ user_id: string; count: number; event: StreakEvent; scores: number[]; placed_at: string | null }> = [];
  const granted: Array<{ userId: string; walletAddress: string; amount: bigint }> = [];
  for (const member of [...members, ...newcomers]) {
    if (member.lastProcessedPoolId === poolId) continue;
    const entry = entryOf.get(member.userId);
    const step = advanceStreak({ count: member.count, scores: member.scores, event: member.event }, entry?.score ?? null, terms);
    if (step.completed) {
      const amount = streakRewardAmount(available, streak.payoutPercentage);
      if (amount > 0n) {
        available -= amount;
        granted.push({ userId: member.userId, walletAddress: member.walletAddress, amount });
      }
    }
    const { count, scores, event } = step.progress;
    states.push({ user_id: member.userId, count, event, scores, placed_at: entry?.placedAt.toISOString() ?? null });
  }

  const at = now.toISOString();
  if (states.length > 0) {
    await db.execute(sql`
      INSERT INTO user_streaks (user_id, streak_id, current_streak_count, last_streak_event, current_streak_scores,
                                last_pool_participated_at, last_processed_pool_id, created_at, updated_at)
      SELECT x.user_id, ${streakId}::uuid, x.count, x.event::last_streak_event, x.scores, x.placed_at, ${poolId}::uuid, ${at}::timestamptz, ${at}::timestamptz
      FROM jsonb_to_recordset(${JSON.stringify(states)}::jsonb)
        AS x(user_id uuid, count integer, event text, scores double precision[], placed_at timestamptz)
      ON CONFLICT (user_id, streak_id) DO UPDATE SET
        current_streak_count = excluded.current_streak_count,
        last_streak_event = excluded.last_streak_event,
        current_streak_scores = excluded.current_streak_scores,
        last_pool_participated_at = GREATEST(user_streaks.last_pool_participated_at, excluded.last_pool_participated_at),
        last_processed_pool_id = excluded.last_processed_pool_id,
        updated_at = excluded.updated_at`);
  }

  let rewards: StreakRewardGranted[] = [];
  if (granted.length > 0) {
    const records = JSON.stringify(granted.map((g) => ({ wallet: g.walletAddress, amount: g.amount.toString() })));
    const inserted = resultRows<{ id: string; user_wallet_address: string }>(
      await db.execute(sql`
        INSERT INTO streak_rewards (streak_id, user_wallet_address, amount, created_at, updated_at)
        SELECT ${streakId}::uuid, x.wallet, x.amount, ${at}::timestamptz, ${at}::timestamptz
        FROM jsonb_to_recordset(${records}::jsonb) AS x(wallet text, amount bigint)
        RETURNING id, user_wallet_address`),
    );
    const idOf = new Map(inserted.map((row) => [row.user_wallet_address, row.id]));
    rewards = granted.map((g) => ({ id: idOf.get(g.walletAddress)!, userId: g.userId, amount: g.amount }));
  }

  await db
    .update(streaks)
    .set({ availableBalance: available, lastProcessedPoolId: poolId, updatedAt: now })
    .where(eq(streaks.id, streakId));
  return { processed: true, streak: summary, rewards, usersWalked: states.length };
}
