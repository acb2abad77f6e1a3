import { EXACT_SAMPLING_LIMIT, type Persona, type PoolSeed, type SeedContext, type StreakSeed, type UserSeed } from './model.js';
import { DECIMALS, date, firstAbove, firstAtOrAfter, HOUR, maxDate, type Rng } from './random.js';
import type { Cast } from './users.js';

/** Per streak, the scripted personas and regulars who take part in its pools. */
export function assignPersonas(
  ctx: SeedContext,
  streaks: readonly StreakSeed[],
  veterans: readonly UserSeed[],
): Map<StreakSeed, Map<string, Persona>> {
  const { rng, size } = ctx;
  const personas = new Map<StreakSeed, Map<string, Persona>>();
  const pool = veterans.slice(2);
  for (const streak of streaks) {
    const roles: Persona[] = ['rewardedEnd', 'qualifiedEnd', 'resetEnd', 'veteran', 'noneNew', 'noneMiss'];
    const regularCount = Math.max(4, Math.min(25, Math.floor(size.users * 0.08)));
    const cast =
      size.users <= EXACT_SAMPLING_LIMIT
        ? rng.shuffled(pool).slice(0, roles.length + regularCount)
        : rng.distinctIndexes(pool.length, roles.length + regularCount).map((i) => pool[i]!);
    const map = new Map<string, Persona>();
    cast.forEach((u, i) => map.set(u.row.id, roles[i] ?? 'regular'));
    personas.set(streak, map);
  }
  return personas;
}

/**
 * Predictions of every pool that has opened: the streak personas' moves, then a crowd
 * weighted by activity. Pool volumes and update counts follow the predictions.
 */
export function makePredictions(
  ctx: SeedContext,
  pools: readonly PoolSeed[],
  cast: Cast,
  personas: Map<StreakSeed, Map<string, Persona>>,
): void {
  const { rng, nowMs, mint } = ctx;
  const { users, userById } = cast;
  const bySignUp = users.length > EXACT_SAMPLING_LIMIT ? new SignUpOrder(users) : null;
  for (const pool of pools) {
    if (pool.kind === 'upcoming') continue;
    const windowStart = pool.row.predictionStartDate.getTime();
    const windowEnd = Math.min(pool.row.predictionEndDate.getTime(), nowMs);
    const taken = new Set<string>();
    const plan: Array<{ user: UserSeed; k: number; stake?: bigint }> = [];

    if (pool.streak) {
      const resolved = pool.streak.pools.filter((p) => p.kind === 'resolved');
      const index = resolved.indexOf(pool);
      for (const [userId, persona] of personas.get(pool.streak)!) {
        const user = userById.get(userId)!;
        const move = personaMove(rng, persona, index, resolved.length, pool.streak.row.streakCountRequired!, user.skill);
        if (move === 'absent') continue;
        const k =
          move === 'qualify'
            ? qualifyingK(rng, pool, pool.streak.row.minPrecisionScoreRequired!)
            : move === 'miss'
              ? missingK(rng, pool, pool.streak.row.minPrecisionScoreRequired!)
              : crowdK(rng, pool, user.skill);
        plan.push({ user, k });
        taken.add(userId);
      }
    }

    const twinStakes = pool.twinOf?.predictions.map((p) => p.row.stake) ?? null;
    const crowdSize = twinStakes
      ? twinStakes.length
      : { none: 0, single: 1, hot: rng.int(100, 150), normal: pool.streak ? rng.int(0, 18) : rng.chance(0.07) ? 0 : rng.int(4, 42) }[
          pool.crowd
        ];
    const capped = pool.crowd === 'hot' || !!twinStakes;
    let crowd: UserSeed[];
    if (bySignUp) {
      crowd = bySignUp.sample(rng, windowEnd - HOUR, taken, crowdSize, capped);
    } else {
      const eligible = users.filter((u) => u.row.createdAt.getTime() < windowEnd - HOUR);
      const candidates = eligible.filter((u) => !taken.has(u.row.id));
      const cap = capped ? Math.floor(candidates.length * 0.85) : candidates.length;
      crowd = rng.weightedSample(candidates, (u) => u.activity, Math.min(crowdSize, cap));
    }
    crowd.forEach((user, i) => plan.push({ user, k: crowdK(rng, pool, user.skill), stake: twinStakes?.[i] }));

    for (const { user, k, stake } of plan) {
      const from = Math.max(windowStart, user.row.createdAt.getTime() + HOUR);
      const createdAt = date(from + rng.next() * (windowEnd - from));
      const valueRevision = rng.chance(0.2) ? rng.int(1, 3) : 0;
      const stakeRevision = rng.chance(0.15) ? rng.int(1, 2) : 0;
      const updatedAt =
        valueRevision + stakeRevision > 0 ? date(createdAt.getTime() + rng.next() * (windowEnd - createdAt.getTime())) : createdAt;
      const amount = stake ?? randomStake(rng, pool.row.minStake!, pool.row.maxStake!);
      pool.predictions.push({
        row: {
          id: rng.uuid(),
          createdAt,
          updatedAt,
          poolId: pool.row.id,
          userId: user.row.id,
          poolAccount: pool.row.poolAccount!,
          predictorAccount: user.tokenAccount,
          predictionAccount: rng.address(),
          prediction: gridValue(pool, k),
          precision: pool.row.precision!,
          stakeTokenMint: mint,
          stake: amount,
          decimals: DECIMALS,
          lastAppliedValueRevision: valueRevision,
          lastAppliedStakeRevision: stakeRevision,
          isFeePayer: rng.chance(0.92),
          isClosed: pool.row.isClosed,
          bump: rng.int(244, 255),
          lastSyncAt: date(Math.min(nowMs, updatedAt.getTime() + rng.int(1, 90) * 1000)),
        },
        k,
        score: null,
      });
      pool.row.totalVolume += amount;
      pool.row.indexedPredictionUpdateCount += 1 + valueRevision + stakeRevision;
    }
    pool.row.updatedAt = maxDate(pool.row.createdAt, ...pool.predictions.map((p) => p.row.updatedAt!));
  }
}

/**
 * The users in sign-up order with their running sum of activity, so the users who had
 * signed up by a time are a prefix found by binary search, and one of them, chosen with
 * probability proportional to activity, is another binary search.
 */
class SignUpOrder {
  private readonly order: UserSeed[];
  private readonly signedUp: Float64Array;
  /** cumulative[i]: the activity of order[0 .. i-1]. */
  private readonly cumulative: Float64Array;
  private readonly signedUpOf: Map<string, number>;

  constructor(users: readonly UserSeed[]) {
    this.signedUpOf = new Map(users.map((u) => [u.row.id, u.row.createdAt.getTime()]));
    this.order = [...users].sort((a, b) => a.row.createdAt.getTime() - b.row.createdAt.getTime());
    this.signedUp = Float64Array.from(this.order, (u) => u.row.createdAt.getTime());
    this.cumulative = new Float64Array(this.order.length + 1);
    this.order.forEach((u, i) => (this.cumulative[i + 1] = this.cumulative[i]! + u.activity));
  }

  /**
   * Up to `n` distinct users who signed up before `before` and are not in `taken`, weighted
   * by activity (successive draws, each proportional to activity among those left: the
   * distribution of Rng.weightedSample); `capped` leaves out at least 15 % of them.
   */
  sample(rng: Rng, before: number, taken: ReadonlySet<string>, n: number, capped: boolean): UserSeed[] {
    const eligible = firstAtOrAfter(this.signedUp, before);
    let candidates = eligible;
    for (const id of taken) if (this.signedUpOf.get(id)! < before) candidates--;
    const count = Math.min(n, capped ? Math.floor(candidates * 0.85) : candidates);
    if (count <= 0) return [];
    if (count * 4 > candidates) {
      const left = this.order.slice(0, eligible).filter((u) => !taken.has(u.row.id));
      return rng.weightedSample(left, (u) => u.activity, count);
    }
    const total = this.cumulative[eligible]!;
    const chosen = new Set<number>();
    const crowd: UserSeed[] = [];
    while (crowd.length < count) {
      const i = Math.min(eligible - 1, firstAbove(this.cumulative, rng.next() * total) - 1);
      if (chosen.has(i) || taken.has(this.order[i]!.row.id)) continue;
      chosen.add(i);
      crowd.push(this.order[i]!);
    }
    return crowd;
  }
}

/** The grid value of index k, exact in decimal (integer ticks over a power of ten). */
export function gridValue(pool: PoolSeed, k: number): number {
  return (pool.minTicks + k * pool.asset.stepTicks) / 10 ** pool.asset.precision;
}

/** 1 for an exact prediction, falling linearly to 0 at a quarter of the outcome range away. */
export function precisionScore(pool: PoolSeed, k: number): number {
  const score = 1 - Math.abs(k - pool.resultK) / (pool.steps * 0.25);
  return Math.max(0, Math.round(score * 10_000) / 10_000);
}

/** A grid index whose score clears `minimum` with a margin. */
function qualifyingK(rng: Rng, pool: PoolSeed, minimum: number): number {
  const distance = Math.floor(rng.next() * 0.8 * (1 - minimum) * 0.25 * pool.steps);
  return clampK(pool, pool.resultK + (rng.chance(0.5) ? distance : -distance));
}

/** A grid index whose score falls short of `minimum` with a margin. */
function missingK(rng: Rng, pool: PoolSeed, minimum: number): number {
  const distance = Math.ceil((1.25 * (1 - minimum) * 0.25 + rng.next() * 0.15) * pool.steps);
  const up = pool.resultK + distance <= pool.steps && (pool.resultK - distance < 0 || rng.chance(0.5));
  return up ? pool.resultK + distance : pool.resultK - distance;
}

/** An ordinary prediction: skilled users tend to come close, the rest guess across the range. */
function crowdK(rng: Rng, pool: PoolSeed, skill: number): number {
  if (rng.next() < skill) return clampK(pool, pool.resultK + Math.round(pool.steps * 0.09 * (2 * rng.next() - 1)));
  return rng.int(0, pool.steps);
}

function clampK(pool: PoolSeed, k: number): number {
  return Math.max(0, Math.min(pool.steps, k));
}

/** Mostly small stakes, a few whales; always within [minStake, maxStake]. */
function randomStake(rng: Rng, minStake: bigint, maxStake: bigint): bigint {
  const multiple = BigInt(rng.pick([1, 1, 2, 2, 3, 5, 5, 10, 10, 20, 25, 50, 100, 250]));
  let stake = minStake * multiple;
  if (rng.chance(0.15)) stake += BigInt(rng.int(0, Number(minStake) - 1));
  return stake > maxStake ? maxStake : stake;
}

/**
 * What a streak persona does in the index-th resolved pool of its streak (index -1: a pool
 * not resolved yet). The scripted personas make every final state of the streak rule occur.
 */
function personaMove(
  rng: Rng,
  persona: Persona,
  index: number,
  resolved: number,
  required: number,
  skill: number,
): 'qualify' | 'miss' | 'absent' | 'free' {
  const k = resolved;
  const random = (): 'qualify' | 'miss' | 'absent' => (rng.chance(0.3) ? 'absent' : rng.chance(0.5) ? 'qualify' : 'miss');
  if (index < 0) {
    if (persona === 'noneNew') return 'free';
    return rng.chance(persona === 'regular' ? 0.6 : 0.5) ? 'free' : 'absent';
  }
  switch (persona) {
    case 'rewardedEnd': // a run of `required` ending at the last resolved pool
      if (index >= k - required) return 'qualify';
      if (index === k - required - 1) return 'absent';
      return random();
    case 'qualifiedEnd': // a miss, then one qualifying pool at the end
      if (index === k - 1) return 'qualify';
      if (index === k - 2) return 'miss';
      return random();
    case 'resetEnd': // a miss, one qualifying pool, then a miss at the end
      if (index === k - 1) return 'miss';
      if (index === k - 2) return 'qualify';
      if (index === k - 3) return 'miss';
      return random();
    case 'veteran': // rewarded early on, casual, and rewarded again at the end when the series has room
      if (index < required) return 'qualify';
      if (k >= 2 * required && index >= k - required) return 'qualify';
      return rng.chance(0.5) ? 'absent' : 'miss';
    case 'noneNew': // joins only once no resolved pool is left to process
      return 'absent';
    case 'noneMiss': // takes part, never comes close enough
      return rng.chance(0.2) ? 'absent' : 'miss';
    case 'regular':
      if (rng.chance(0.25)) return 'absent';
      return rng.next() < 0.35 + skill * 0.6 ? 'qualify' : 'miss';
  }
}
