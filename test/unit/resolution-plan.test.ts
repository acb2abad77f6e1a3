import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import {
  medianOf,
  parseResolveInput,
  planResolution,
  type PlacedPrediction,
  protocolFeeOf,
} from '../../src/modules/pools/resolution.plan.js';

const POOL_ID = '00000000-0000-4000-8000-000000000001';
const STREAK_ID = '00000000-0000-4000-8000-0000000000aa';
const NOW = new Date('2030-01-01T00:00:00.000Z');
const id = (n: number) => `00000000-0000-4000-8000-${n.toString().padStart(12, '0')}`;

/** 100 tokens staked (6 decimals), a 2 % fee: 98 tokens to pay out. */
const pool = {
  id: POOL_ID,
  title: 'BTC price on 2030-01-01',
  decimals: 6,
  totalVolume: 100_000_000n,
  platformFeeRate: 0.02,
  streakId: null as string | null,
};
const placed: PlacedPrediction[] = [
  { id: id(1), userId: id(101), value: 30, createdAt: new Date('2029-12-01'), walletAddress: 'wallet1' },
  { id: id(2), userId: id(102), value: 10, createdAt: new Date('2029-12-02'), walletAddress: 'wallet2' },
  { id: id(3), userId: id(103), value: 20, createdAt: new Date('2029-12-03'), walletAddress: 'wallet3' },
];

function plan(
  rewards: Array<{ predictionId: string; amount: number; precisionScore?: number; type?: 'REWARD' | 'REFUND' }>,
  over: Partial<typeof pool> = {},
) {
  const { result, entries } = parseResolveInput({
    poolId: POOL_ID,
    result: 21,
    rewards: rewards.map((r) => ({ precisionScore: 0.5, type: 'REWARD' as const, ...r })),
  });
  return planResolution({ ...pool, ...over }, placed, result, entries, NOW);
}

function refusal(work: () => unknown): { code: string; argumentName: unknown } {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const e = error as AppError;
    return { code: e.code, argumentName: e.details.argumentName };
  }
  throw new Error('expected a refusal');
}

describe('the resolution plan', () => {
  it('plans the resolution row: fee, leftover and the lower median of the predicted values', () => {
    const p = plan([
      { predictionId: id(1), amount: 50 },
      { predictionId: id(2), amount: 40 },
      { predictionId: id(3), amount: 0 },
    ]);
    expect(p.resolution).toEqual({
      poolId: POOL_ID,
      createdAt: NOW,
      updatedAt: NOW,
      result: 21,
      decimals: 6,
      protocolFee: 2_000_000n,
      leftover: 8_000_000n,
      median: 20,
    });
    expect(p.rewards).toEqual([
      { predictionId: id(1), units: 50_000_000n, precisionScore: 0.5, type: 'REWARD' },
      { predictionId: id(2), units: 40_000_000n, precisionScore: 0.5, type: 'REWARD' },
      { predictionId: id(3), units: 0n, precisionScore: 0.5, type: 'REWARD' },
    ]);
    expect(p.streakStep).toBeNull();
  });

  it('announces each non-zero payout to its predictor, rewards before refunds, in the texts users see', () => {
    const p = plan([
      { predictionId: id(1), amount: 2.5, type: 'REFUND' },
      { predictionId: id(2), amount: 0 },
      { predictionId: id(3), amount: 12.5 },
    ]);
    expect(p.notices).toEqual([
      {
        type: 'REWARD_AVAILABLE',
        userId: id(103),
        predictionId: id(3),
        title: 'Reward available',
        message: 'BTC price on 2030-01-01 is resolved: you won 12.5 tokens. Claim them from the pool.',
        data: { poolId: POOL_ID, predictionId: id(3), amount: 12.5 },
      },
      {
        type: 'REFUND_AVAILABLE',
        userId: id(101),
        predictionId: id(1),
        title: 'Refund available',
        message: 'BTC price on 2030-01-01 is refunded: 2.5 tokens are yours to claim.',
        data: { poolId: POOL_ID, predictionId: id(1), amount: 2.5 },
      },
    ]);
  });

  it('takes no fee when every payout is a refund, so the whole volume can go back', () => {
    const p = plan([
      { predictionId: id(1), amount: 40, type: 'REFUND' },
      { predictionId: id(2), amount: 35, type: 'REFUND' },
      { predictionId: id(3), amount: 25, type: 'REFUND' },
    ]);
    expect(p.resolution).toMatchObject({ protocolFee: 0n, leftover: 0n });
  });

  it('gives the streak rule every prediction with its score and wallet when the pool is in a streak', () => {
    const p = plan(
      [
        { predictionId: id(1), amount: 1, precisionScore: 0.9 },
        { predictionId: id(2), amount: 1, precisionScore: 0.1 },
        { predictionId: id(3), amount: 1, precisionScore: 0 },
      ],
      { streakId: STREAK_ID },
    );
    expect(p.streakStep).toEqual({
      streakId: STREAK_ID,
      poolId: POOL_ID,
      entries: [
        { userId: id(101), walletAddress: 'wallet1', score: 0.9, placedAt: placed[0]!.createdAt },
        { userId: id(102), walletAddress: 'wallet2', score: 0.1, placedAt: placed[1]!.createdAt },
        { userId: id(103), walletAddress: 'wallet3', score: 0, placedAt: placed[2]!.createdAt },
      ],
    });
  });

  it('refuses payouts that do not fit the pool, naming the entry', () => {
    const all = (amount: number) => [
      { predictionId: id(1), amount },
      { predictionId: id(2), amount: 0 },
      { predictionId: id(3), amount: 0 },
    ];
    expect(refusal(() => plan(all(98.000001)))).toEqual({ code: 'BAD_USER_INPUT', argumentName: 'input.rewards' });
    expect(plan(all(98)).resolution.leftover).toBe(0n);
    expect(refusal(() => plan(all(1.0000001)))).toEqual({ code: 'BAD_USER_INPUT', argumentName: 'input.rewards[0].amount' });
    expect(refusal(() => plan(all(-1)))).toEqual({ code: 'BAD_USER_INPUT', argumentName: 'input.rewards[0].amount' });
    expect(refusal(() => plan(all(1).slice(0, 2)))).toEqual({ code: 'BAD_USER_INPUT', argumentName: 'input.rewards' });
    expect(refusal(() => plan([...all(1), { predictionId: id(9), amount: 0 }]))).toEqual({
      code: 'BAD_USER_INPUT',
      argumentName: 'input.rewards[3].predictionId',
    });
    expect(refusal(() => plan([...all(1), { predictionId: id(1), amount: 0 }]))).toEqual({
      code: 'BAD_USER_INPUT',
      argumentName: 'input.rewards[3].predictionId',
    });
    expect(refusal(() => plan([{ predictionId: id(1), amount: 1, precisionScore: 1.5 }]))).toEqual({
      code: 'BAD_USER_INPUT',
      argumentName: 'input.rewards[0].precisionScore',
    });
  });

  it('computes the fee exactly and the median as a predicted value', () => {
    expect(protocolFeeOf(1_000_000_007n, 0.025, false)).toBe(25_000_000n);
    expect(protocolFeeOf(1_000_000_007n, 0.025, true)).toBe(0n);
    expect(medianOf([5, 1, 3, 2], 9)).toBe(2);
    expect(medianOf([], 9)).toBe(9);
  });
});
