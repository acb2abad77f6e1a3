import { Arg, Ctx, Directive, Field, FieldResolver, Float, Int, ObjectType, Resolver, Root } from 'type-graphql';
import { INHERITED, PUBLIC } from '../common/cache-hints.js';
import type { PoolRow } from '../../../schema/index.js';
import type { ResolverContext } from '../context.js';
import { toTokens } from '../common/amounts.js';
import { Pool } from '../pools/pool.type.js';
import { MAX_HISTOGRAM_BUCKETS, poolStatistics } from './pool-statistics.service.js';

@Directive(INHERITED)
@ObjectType({ simpleResolvers: true, description: 'Predictions whose value falls in [from, to) (the last bucket includes to).' })
export class HistogramBucket {
  @Field(() => Float, { description: "Lower bound of the bucket, in the pool's unit (included)." })
  from!: number;

  @Field(() => Float, { description: "Upper bound of the bucket, in the pool's unit (excluded, except in the last bucket)." })
  to!: number;

  @Field(() => Int, { description: 'Predictions in the bucket.' })
  count!: number;

  @Field(() => Float, { description: 'Their stakes, in whole tokens.' })
  stake!: number;
}

@Directive(PUBLIC)
@ObjectType({ simpleResolvers: true, description: "What a pool's predictions look like together." })
export class PoolStatistics {
  @Field(() => Int, { description: 'Predictions on the pool.' })
  predictionCount!: number;

  @Field(() => Float, { description: 'Sum of the stakes, in whole tokens.' })
  totalStake!: number;

  @Field(() => Float, {
    nullable: true,
    description: 'The smallest predicted value with at least half of the stake on it or below; null without predictions.',
  })
  stakeWeightedMedian!: number | null;

  @Field(() => [HistogramBucket], { description: 'Predicted values in equal-width buckets from minOutcome to maxOutcome.' })
  buckets!: HistogramBucket[];
}

@Resolver(() => Pool)
export class PoolStatisticsResolver {
  @FieldResolver(() => PoolStatistics, { description: "Statistics of the pool's predictions." })
  async statistics(
    @Root() pool: PoolRow,
    @Arg('buckets', () => Int, { defaultValue: 10, description: `Histogram buckets, 1 to ${MAX_HISTOGRAM_BUCKETS}.` }) buckets: number,
    @Ctx() ctx: ResolverContext,
  ): Promise<PoolStatistics> {
    const s = await poolStatistics(ctx, pool.id, buckets);
    return {
      predictionCount: s.predictionCount,
      totalStake: toTokens(s.totalStakeUnits, s.decimals),
      stakeWeightedMedian: s.stakeWeightedMedian,
      buckets: s.buckets.map((b) => ({ from: b.from, to: b.to, count: b.count, stake: toTokens(b.stakeUnits, s.decimals) })),
    };
  }
}
