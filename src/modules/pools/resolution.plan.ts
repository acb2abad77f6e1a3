import type { NewResolutionRow, PoolRow } from '../../../schema/index.js';
import { badInput } from '../../errors.js';
import { toBaseUnits, toTokens } from '../common/amounts.js';
import { parseId } from '../common/ids.js';
import { notificationTexts } from '../notifications/notification.texts.js';

/**
 * What resolving a pool writes, decided without the database: checked input in, rows and
 * notices out. resolution.store.ts writes a plan; operator.service.ts reads what it needs.
 */

export interface ResolvePoolParams {
  poolId: string;
  result: number;
  rewards: ReadonlyArray<{ predictionId: string; amount: number; precisionScore: number; type: 'REWARD' | 'REFUND' }>;
}

/** One payout entry of the input, its id parsed; `at` names it in errors. */
export interface PayoutEntry {
  predictionId: string;
  amount: number;
  precisionScore: number;
  type: 'REWARD' | 'REFUND';
  at: string;
}

/** A prediction of the pool as the plan needs it. */
export interface PlacedPrediction {
  id: string;
  userId: string;
  value: number;
  createdAt: Date;
  walletAddress: string;
}

export interface ResolutionPlan {
  resolution: NewResolutionRow;
  /** One reward or refund per prediction, in input order. */
  rewards: Array<{ predictionId: string; units: bigint; precisionScore: number; type: 'REWARD' | 'REFUND' }>;
  /** What became claimable, by payout type; zero payouts are not announced. `rewardId` is filled in by the store. */
  notices: Array<{
    type: 'REWARD_AVAILABLE' | 'REFUND_AVAILABLE';
    userId: string;
    title: string;
    message: string;
    predictionId: string;
    data: { poolId: string; predictionId: string; amount: number };
  }>;
  /** The streak rule's input when the pool belongs to a streak, else null. */
  streakStep: null | {
    streakId: string;
    poolId: string;
    entries: Array<{ userId: string; walletAddress: string; score: number; placedAt: Date }>;
  };
}

/** Checks what can be checked before the pool is read: ids, result, scores and types. */
export function parseResolveInput(input: ResolvePoolParams): { poolId: string; result: number; entries: PayoutEntry[] } {
  const poolId = parseId(input.poolId, 'input.poolId');
  if (!Number.isFinite(input.result)) throw badInput('input.result', 'input.result must be a finite number');
  const seen = new Set<string>();
  const entries = input.rewards.map((reward, i) => {
    const at = `input.rewards[${i}]`;
    const predictionId = parseId(reward.predictionId, `${at}.predictionId`);
    if (seen.has(predictionId)) throw badInput(`${at}.predictionId`, `${at}.predictionId repeats an earlier entry`);
    seen.add(predictionId);
    if (!Number.isFinite(reward.precisionScore) || reward.precisionScore < 0 || reward.precisionScore > 1) {
      throw badInput(`${at}.precisionScore`, `${at}.precisionScore must be from 0 to 1`);
    }
    if (reward.type !== 'REWARD' && reward.type !== 'REFUND') throw badInput(`${at}.type`, `${at}.type must be REWARD or REFUND`);
    return { ...reward, predictionId, at };
  });
  return { poolId, result: input.result, entries };
}

/**
 * The plan of a pool's resolution given its predictions (`placed`, oldest first): one
 * payout per prediction, amounts in whole tokens of the pool's mint, their sum at most the
 * volume less the protocol fee. Throws BAD_USER_INPUT naming the entry otherwise.
 */
export function planResolution(
  pool: Pick<PoolRow, 'id' | 'title' | 'decimals' | 'totalVolume' | 'platformFeeRate' | 'streakId'>,
  placed: readonly PlacedPrediction[],
  result: number,
  entries: readonly PayoutEntry[],
  now: Date,
): ResolutionPlan {
  const predictionOf = new Map(placed.map((p) => [p.id, p]));
  const amounts = entries.map((entry) => {
    if (!predictionOf.has(entry.predictionId))
      throw badInput(`${entry.at}.predictionId`, `${entry.at}.predictionId is not a prediction of this pool`);
    const units = toBaseUnits(entry.amount, pool.decimals);
    if (units === null || units < 0n)
      throw badInput(`${entry.at}.amount`, `${entry.at}.amount must be 0 or more with at most ${pool.decimals} decimals`);
    return units;
  });
  const given = new Set(entries.map((e) => e.predictionId));
  const missing = placed.filter((p) => !given.has(p.id));
  if (missing.length > 0)
    throw badInput('input.rewards', `input.rewards lacks ${missing.length} prediction(s) of the pool, e.g. ${missing[0]!.id}`);
  const fee = protocolFeeOf(
    pool.totalVolume,
    pool.platformFeeRate,
    entries.every((e) => e.type === 'REFUND'),
  );
  const paid = amounts.reduce((sum, units) => sum + units, 0n);
  const leftover = pool.totalVolume - fee - paid;
  if (leftover < 0n) {
    throw badInput(
      'input.rewards',
      `input.rewards pay ${toTokens(paid, pool.decimals)} tokens; the pool has ${toTokens(pool.totalVolume - fee, pool.decimals)} after the protocol fee`,
    );
  }

  const notices = entries.flatMap((e, i): ResolutionPlan['notices'] => {
    if (amounts[i]! === 0n) return [];
    const amount = toTokens(amounts[i]!, pool.decimals);
    const text =
      e.type === 'REWARD' ? notificationTexts.rewardAvailable(pool.title, amount) : notificationTexts.refundAvailable(pool.title, amount);
    const type = e.type === 'REWARD' ? 'REWARD_AVAILABLE' : 'REFUND_AVAILABLE';
    return [
      {
        type,
        userId: predictionOf.get(e.predictionId)!.userId,
        ...text,
        predictionId: e.predictionId,
        data: { poolId: pool.id, predictionId: e.predictionId, amount },
      },
    ];
  });
  const scoreOf = new Map(entries.map((e) => [e.predictionId, e.precisionScore]));
  return {
    resolution: {
      poolId: pool.id,
      createdAt: now,
      updatedAt: now,
      result,
      decimals: pool.decimals,
      protocolFee: fee,
      leftover,
      median: medianOf(
        placed.map((p) => p.value),
        result,
      ),
    },
    rewards: entries.map((e, i) => ({ predictionId: e.predictionId, units: amounts[i]!, precisionScore: e.precisionScore, type: e.type })),
    // Rewards are announced before refunds, as the notices of one type are written together.
    notices: [...notices.filter((n) => n.type === 'REWARD_AVAILABLE'), ...notices.filter((n) => n.type === 'REFUND_AVAILABLE')],
    streakStep: pool.streakId
      ? {
          streakId: pool.streakId,
          poolId: pool.id,
          entries: placed.map((p) => ({
            userId: p.userId,
            walletAddress: p.walletAddress,
            score: scoreOf.get(p.id)!,
            placedAt: p.createdAt,
          })),
        }
      : null,
  };
}

/**
 * The protocol's cut of a pool's volume: `platformFeeRate` of it in base units, rounded
 * down, computed exactly (the rate scaled to an integer of 18 decimals). None when every
 * payout is a refund: a refunded pool takes nothing.
 */
export function protocolFeeOf(totalVolume: bigint, platformFeeRate: number, allRefunds: boolean): bigint {
  if (allRefunds) return 0n;
  const scaled = toBaseUnits(platformFeeRate, 18);
  if (scaled === null) throw new Error(`platform fee rate ${platformFeeRate} has more than 18 decimals`);
  return (totalVolume * scaled) / 10n ** 18n;
}

/** The median predicted value: the lower middle one, so it is always a value someone predicted; the result when nobody did. */
export function medianOf(values: readonly number[], result: number): number {
  if (values.length === 0) return result;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[(sorted.length - 1) >> 1]!;
}
