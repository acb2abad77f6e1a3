import type * as t from '../../schema/index.js';
import type { PoolSeed, RewardSeed, SeedContext } from './model.js';
import { DECIMALS, date, HOUR, maxDate, MINUTE } from './random.js';
import { gridValue, precisionScore } from './predictions.js';

const minBig = (a: bigint, b: bigint) => (a < b ? a : b);

/**
 * A resolution per resolved pool and a reward per prediction in it: shares of the pot by
 * precision-weighted stake, capped by the pool's ROI; a refund when nobody can win.
 */
export function makeResolutions(
  ctx: SeedContext,
  pools: readonly PoolSeed[],
): { resolutions: t.NewResolutionRow[]; rewards: RewardSeed[] } {
  const { rng, nowMs } = ctx;
  const resolutions: t.NewResolutionRow[] = [];
  const rewards: RewardSeed[] = [];
  for (const pool of pools) {
    if (pool.kind !== 'resolved') continue;
    const resolvedAt = pool.resolvedAt!;
    const volume = pool.row.totalVolume;
    const entries = pool.predictions;
    for (const p of entries) p.score = precisionScore(pool, p.k);
    const weights = entries.map((p) => BigInt(Math.round(p.score! * 10_000)) * p.row.stake);
    const totalWeight = weights.reduce((a, b) => a + b, 0n);
    const refund = entries.length === 1 || totalWeight === 0n || pool.row.status === 'FROZEN';
    const fee = refund ? 0n : (volume * BigInt(Math.round(pool.row.platformFeeRate * 10_000))) / 10_000n;
    const pot = volume - fee;
    const roiCap = BigInt(Math.round((1 + pool.row.maxRoi) * 100));
    let paid = 0n;
    entries.forEach((p, i) => {
      const share = refund ? p.row.stake : (pot * weights[i]!) / totalWeight;
      const amount = refund ? share : minBig(share, (p.row.stake * roiCap) / 100n);
      paid += amount;
      const isClaimed = pool.row.isClosed || (amount > 0n && rng.chance(refund ? 0.75 : 0.5));
      const claimedAt = date(Math.min(nowMs - MINUTE, resolvedAt.getTime() + rng.int(10, 14 * 24 * 60) * MINUTE));
      rewards.push({
        id: rng.uuid(),
        createdAt: resolvedAt,
        updatedAt: isClaimed ? claimedAt : resolvedAt,
        predictionId: p.row.id,
        decimals: DECIMALS,
        amount,
        precisionScore: p.score!,
        isClaimed,
        type: refund ? 'REFUND' : 'REWARD',
        prediction: p,
        pool,
      });
    });
    const sorted = entries.map((p) => p.k).sort((a, b) => a - b);
    const median = sorted.length ? gridValue(pool, sorted[(sorted.length - 1) >> 1]!) : gridValue(pool, pool.resultK);
    resolutions.push({
      id: rng.uuid(),
      createdAt: resolvedAt,
      updatedAt: resolvedAt,
      poolId: pool.row.id,
      result: gridValue(pool, pool.resultK),
      decimals: DECIMALS,
      protocolFee: fee,
      leftover: volume - fee - paid,
      median,
    });
    pool.row.updatedAt = maxDate(pool.row.updatedAt!, resolvedAt);
  }
  // The one-predictor refund pool is claimed, so every notification kind has a source.
  const firstRefund = rewards.find((r) => r.type === 'REFUND');
  if (firstRefund && !firstRefund.isClaimed) {
    firstRefund.isClaimed = true;
    firstRefund.updatedAt = date(Math.min(nowMs - MINUTE, firstRefund.createdAt!.getTime() + HOUR));
  }
  return { resolutions, rewards };
}
