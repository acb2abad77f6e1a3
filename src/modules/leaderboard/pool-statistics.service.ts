import DataLoader from 'dataloader';
import { sql } from 'drizzle-orm';
import { resultRows } from '../../db/client.js';
import { badInput } from '../../errors.js';
import type { ServiceContext } from '../context.js';
import { requestScoped } from '../viewer/request-scoped.js';

export const MAX_HISTOGRAM_BUCKETS = 100;

export interface PoolStatisticsRow {
  predictionCount: number;
  totalStakeUnits: bigint;
  decimals: number;
  /** The smallest predicted value at which half the stake (or more) is on it or below; null without predictions. */
  stakeWeightedMedian: number | null;
  buckets: Array<{ from: number; to: number; count: number; stakeUnits: bigint }>;
}

/**
 * The stake-weighted median of the pool `poolId` (SQL) names: the smallest predicted value with
 * half the stake or more on it or below, as float8; NULL without predictions. The loader and
 * the rendered read (pool-statistics.rendered.ts) both read it.
 */
export const stakeWeightedMedianSql = (poolId: string) =>
  `(SELECT x.prediction::float8 FROM (` +
  `SELECT q.prediction, sum(q.stake) OVER (ORDER BY q.prediction ROWS UNBOUNDED PRECEDING) AS below FROM predictions q WHERE q.pool_id = ${poolId}) x ` +
  `WHERE 2 * x.below >= (SELECT sum(stake) FROM predictions s WHERE s.pool_id = ${poolId}) ORDER BY x.prediction LIMIT 1)`;

/** The 1-based bucket of `prediction` in `pool`'s [minOutcome, maxOutcome] split in `count` (SQL) equal widths; the last one includes maxOutcome. */
export const bucketOfSql = (prediction: string, pool: string, count: string) =>
  `least(width_bucket(${prediction}, ${pool}.min_outcome, ${pool}.max_outcome, ${count}), ${count})`;

/**
 * Statistics of the predictions of many pools at once: two statements per request and
 * bucket count, whatever the number of pools or predictions returned. Buckets split
 * [minOutcome, maxOutcome] into equal widths; the last one includes maxOutcome.
 */
function statisticsLoader(ctx: ServiceContext, bucketCount: number) {
  return new DataLoader<string, PoolStatisticsRow>(async (poolIds) => {
    const ids = `{${poolIds.join(',')}}`;
    const [summaries, histogram] = await Promise.all([
      ctx.database.db.execute(sql`
        SELECT pl.id AS pool_id, pl.decimals::int AS decimals, pl.min_outcome::float8 AS min, pl.max_outcome::float8 AS max,
               count(pr.id)::int AS n, coalesce(sum(pr.stake), 0)::text AS stake,
               ${sql.raw(stakeWeightedMedianSql('pl.id'))} AS median
        FROM pools pl LEFT JOIN predictions pr ON pr.pool_id = pl.id
        WHERE pl.id = ANY(${ids}::uuid[])
        GROUP BY pl.id`),
      ctx.database.db.execute(sql`
        SELECT pr.pool_id, ${sql.raw(bucketOfSql('pr.prediction', 'pl', `${bucketCount}::int`))} AS bucket,
               count(*)::int AS n, sum(pr.stake)::text AS stake
        FROM predictions pr JOIN pools pl ON pl.id = pr.pool_id
        WHERE pr.pool_id = ANY(${ids}::uuid[])
        GROUP BY 1, 2`),
    ]);
    const summaryOf = new Map(resultRows<Record<string, any>>(summaries).map((row) => [row.pool_id as string, row]));
    const histogramRows = resultRows<Record<string, any>>(histogram);
    return poolIds.map((poolId) => {
      const summary = summaryOf.get(poolId);
      if (!summary) return new Error(`pool ${poolId} has no statistics row`);
      const width = (summary.max - summary.min) / bucketCount;
      const filled = new Map(histogramRows.filter((row) => row.pool_id === poolId).map((row) => [Number(row.bucket), row]));
      return {
        predictionCount: summary.n,
        totalStakeUnits: BigInt(summary.stake),
        decimals: summary.decimals,
        stakeWeightedMedian: summary.median ?? null,
        buckets: Array.from({ length: bucketCount }, (_, i) => {
          const row = filled.get(i + 1);
          return {
            from: summary.min + width * i,
            to: i === bucketCount - 1 ? summary.max : summary.min + width * (i + 1),
            count: row?.n ?? 0,
            stakeUnits: BigInt(row?.stake ?? 0),
          };
        }),
      };
    });
  });
}

/** Whether `buckets` is a histogram size poolStatistics takes. */
export const isBucketCount = (buckets: unknown): buckets is number =>
  Number.isInteger(buckets) && (buckets as number) >= 1 && (buckets as number) <= MAX_HISTOGRAM_BUCKETS;

export function poolStatistics(ctx: ServiceContext, poolId: string, buckets: number): Promise<PoolStatisticsRow> {
  if (!isBucketCount(buckets)) {
    throw badInput('buckets', `buckets must be a whole number from 1 to ${MAX_HISTOGRAM_BUCKETS}`);
  }
  return requestScoped(ctx, `pool.statistics:${buckets}`, () => statisticsLoader(ctx, buckets)).load(poolId);
}
