import type * as t from '../../schema/index.js';
import { advanceStreak, type StreakProgress, type StreakTerms, streakRewardAmount } from '../modules/streaks/streak-processor.js';
import type { Persona, PoolSeed, SeedContext, StreakRewardSeed, StreakSeed, UserSeed } from './model.js';
import { date, maxDate, MINUTE, UNIT } from './random.js';

interface State extends StreakProgress {
  firstAt: Date;
  lastAt: Date;
  lastProcessedPoolId: string | null;
  updatedAt: Date;
}

/**
 * The streak rule applied as the service would: each streak's resolved pools processed in
 * reference-date order, fees credited as predictions close, rewards paid on completion.
 * Sets each streak's balances and last processed pool.
 */
export function applyStreakRule(
  ctx: SeedContext,
  streaks: readonly StreakSeed[],
  userById: ReadonlyMap<string, UserSeed>,
  personas: Map<StreakSeed, Map<string, Persona>>,
): { userStreaks: t.NewUserStreakRow[]; streakRewards: StreakRewardSeed[] } {
  const { rng, nowMs } = ctx;
  const userStreaks: t.NewUserStreakRow[] = [];
  const streakRewards: StreakRewardSeed[] = [];
  for (const streak of streaks) {
    const firstReward = streakRewards.length;
    const series = [...streak.pools].sort((a, b) => a.row.referenceDate.getTime() - b.row.referenceDate.getTime());
    const fees = new Map(series.map((p) => [p, (p.row.totalVolume * BigInt(Math.round(streak.row.feePercentage * 100))) / 10_000n]));
    const deposit = BigInt(rng.int(300, 2_000)) * UNIT; // the sponsor's opening deposit
    let accumulated = deposit;
    let available = deposit;
    const credited = new Set<PoolSeed>();
    const terms: StreakTerms = {
      streakCountRequired: streak.row.streakCountRequired!,
      minPrecisionScoreRequired: streak.row.minPrecisionScoreRequired!,
    };

    const states = new Map<string, State>();
    for (const pool of series) {
      for (const p of [...pool.predictions].sort((a, b) => a.row.createdAt.getTime() - b.row.createdAt.getTime())) {
        const state = states.get(p.row.userId);
        if (!state) {
          states.set(p.row.userId, {
            count: 0,
            scores: [],
            event: 'NONE',
            firstAt: p.row.createdAt,
            lastAt: p.row.createdAt,
            lastProcessedPoolId: null,
            updatedAt: p.row.createdAt,
          });
        } else {
          if (p.row.createdAt < state.firstAt) state.firstAt = p.row.createdAt;
          if (p.row.createdAt > state.lastAt) state.lastAt = p.row.createdAt;
          state.updatedAt = state.lastAt;
        }
      }
    }

    let lastProcessed: PoolSeed | null = null;
    for (const pool of series) {
      if (pool.kind !== 'resolved') continue;
      const processedAt = date(pool.resolvedAt!.getTime() + rng.int(1, 10) * MINUTE);
      // Fees of every pool whose predictions closed by now have reached the accumulator.
      for (const other of series) {
        if (!credited.has(other) && other.row.predictionEndDate <= processedAt) {
          credited.add(other);
          accumulated += fees.get(other)!;
          available += fees.get(other)!;
        }
      }
      const byUser = new Map(pool.predictions.map((p) => [p.row.userId, p]));
      for (const [userId, state] of states) {
        if (state.firstAt > processedAt) continue; // not yet a user of the streak
        const step = advanceStreak(state, byUser.get(userId)?.score ?? null, terms);
        ({ count: state.count, scores: state.scores, event: state.event } = step.progress);
        if (step.completed) {
          const amount = streakRewardAmount(available, streak.row.payoutPercentage);
          if (amount <= 0n) throw new Error(`demo seed: streak ${streak.row.title} ran dry`);
          available -= amount;
          streakRewards.push({
            id: rng.uuid(),
            createdAt: processedAt,
            updatedAt: processedAt,
            streakId: streak.row.id,
            userWalletAddress: userById.get(userId)!.row.walletAddress,
            amount,
            isClaimed: rng.chance(0.55),
            streak,
            userId,
          });
        }
        state.lastProcessedPoolId = pool.row.id;
        state.updatedAt = maxDate(state.updatedAt, processedAt);
      }
      lastProcessed = pool;
    }
    // Fees of pools still taking predictions (or awaiting resolution) are in the accumulator too.
    for (const other of series) {
      if (!credited.has(other)) {
        accumulated += fees.get(other)!;
        available += fees.get(other)!;
      }
    }

    // Claims: both kinds in every streak with two rewards or more; the newest waits. The
    // veteran, paid twice where the series has room, has likewise claimed the first and not
    // the newest, so one user has rewards of both kinds in one streak.
    const own = streakRewards.slice(firstReward);
    const veteranId = [...personas.get(streak)!].find(([, persona]) => persona === 'veteran')?.[0];
    for (const rewards of [own, own.filter((r) => r.userId === veteranId)]) {
      if (rewards.length < 2) continue;
      rewards[0]!.isClaimed = true;
      rewards.at(-1)!.isClaimed = false;
    }
    let claimed = 0n;
    for (const reward of own) {
      if (!reward.isClaimed) continue;
      claimed += reward.amount;
      reward.updatedAt = date(Math.min(nowMs - MINUTE, reward.createdAt.getTime() + rng.int(5, 10 * 24 * 60) * MINUTE));
    }
    streak.row.totalAccumulated = accumulated;
    streak.row.availableBalance = available;
    streak.row.onchainBalance = accumulated - claimed;
    streak.row.lastProcessedPoolId = lastProcessed?.row.id ?? null;
    streak.row.updatedAt = lastProcessed ? date(lastProcessed.resolvedAt!.getTime() + 15 * MINUTE) : streak.row.createdAt;

    for (const [userId, state] of states) {
      userStreaks.push({
        id: rng.uuid(),
        createdAt: state.firstAt,
        updatedAt: state.updatedAt,
        userId,
        streakId: streak.row.id,
        currentStreakCount: state.count,
        lastStreakEvent: state.event,
        currentStreakScores: state.scores,
        lastPoolParticipatedAt: state.lastAt,
        lastProcessedPoolId: state.lastProcessedPoolId,
      });
    }
  }
  return { userStreaks, streakRewards };
}
