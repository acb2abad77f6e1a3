import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Ctx, Directive, FieldResolver, Float, ID, Info, Query, Resolver, Root } from 'type-graphql';
import { PUBLIC } from '../common/cache-hints.js';
import type { ImageRow, PoolRow, PredictionRow, ResolutionRow, StreakRow, UserRow } from '../../../schema/index.js';
import type { ResolverContext } from '../context.js';
import { toTokens } from '../common/amounts.js';
import { parseNewestFirstPage, relationOne, relationPage } from '../common/loaders.js';
import { planOfConnection, planOfObject } from '../common/read-plan.js';
import { POOL_READ, RESOLUTION_READ } from '../common/read-specs.js';
import { PageArgs } from '../common/page.args.js';
import { ReadsPageArguments } from '../common/page-arguments.js';
import { PredictionConnection } from '../predictions/prediction.type.js';
import { Streak } from '../streaks/streak.type.js';
import { Image, User } from '../users/user.type.js';
import { PoolsArgs } from './pool.args.js';
import { findPool, listPools, parsePoolsPage } from './pool.service.js';
import { Pool, PoolConnection, Resolution } from './pool.type.js';

@Resolver(() => Pool)
export class PoolResolver {
  @ReadsPageArguments(parsePoolsPage)
  @Directive(PUBLIC)
  @Query(() => PoolConnection, { description: 'Pools, filtered, searched and sorted, a page at a time.' })
  pools(@Args(() => PoolsArgs) args: PoolsArgs, @Ctx() ctx: ResolverContext, @Info() info: GraphQLResolveInfo) {
    return listPools(ctx, args, planOfConnection(info, POOL_READ));
  }

  @Query(() => Pool, { nullable: true, description: 'A pool by id; null when there is none.' })
  pool(@Arg('id', () => ID, { description: 'Id of the pool.' }) id: string, @Ctx() ctx: ResolverContext, @Info() info: GraphQLResolveInfo) {
    return findPool(ctx, id, planOfObject(info, POOL_READ));
  }

  @FieldResolver(() => Float, { description: 'Smallest stake, in whole tokens.' })
  minStake(@Root() pool: PoolRow) {
    return toTokens(pool.minStake, pool.decimals);
  }

  @FieldResolver(() => Float, { description: 'Largest stake, in whole tokens.' })
  maxStake(@Root() pool: PoolRow) {
    return toTokens(pool.maxStake, pool.decimals);
  }

  @FieldResolver(() => Float, { description: 'Sum of all stakes, in whole tokens.' })
  totalVolume(@Root() pool: PoolRow) {
    return toTokens(pool.totalVolume, pool.decimals);
  }

  @FieldResolver(() => User, { description: 'The user who created the pool.' })
  user(@Root() pool: PoolRow, @Ctx() ctx: ResolverContext) {
    return relationOne<UserRow>(ctx.loaders.graph, pool, POOL_READ, 'user');
  }

  @FieldResolver(() => Image, { nullable: true, description: "The pool's picture; null when it has none." })
  image(@Root() pool: PoolRow, @Ctx() ctx: ResolverContext) {
    return relationOne<ImageRow>(ctx.loaders.graph, pool, POOL_READ, 'image');
  }

  @FieldResolver(() => Streak, { nullable: true, description: 'The streak the pool counts towards; null when it is in none.' })
  streak(@Root() pool: PoolRow, @Ctx() ctx: ResolverContext) {
    return relationOne<StreakRow>(ctx.loaders.graph, pool, POOL_READ, 'streak');
  }

  @FieldResolver(() => Resolution, { nullable: true, description: 'The outcome and its fees; null until the pool is resolved.' })
  resolution(@Root() pool: PoolRow, @Ctx() ctx: ResolverContext) {
    return relationOne<ResolutionRow>(ctx.loaders.graph, pool, POOL_READ, 'resolution');
  }

  @ReadsPageArguments(parseNewestFirstPage)
  @FieldResolver(() => PredictionConnection, { description: 'Predictions on the pool, newest first.' })
  predictions(@Root() pool: PoolRow, @Args(() => PageArgs) args: PageArgs, @Ctx() ctx: ResolverContext) {
    return relationPage<PredictionRow>(ctx.loaders.graph, pool, POOL_READ, 'predictions', args);
  }
}

@Resolver(() => Resolution)
export class ResolutionResolver {
  @FieldResolver(() => Float, {
    description:
      'Protocol fee kept from the volume (volume × platformFeeRate, rounded down; 0 when every payout is a refund), in whole tokens.',
  })
  protocolFee(@Root() resolution: ResolutionRow) {
    return toTokens(resolution.protocolFee, resolution.decimals);
  }

  @FieldResolver(() => Float, { description: 'Volume left after the protocol fee and every payout, in whole tokens.' })
  leftover(@Root() resolution: ResolutionRow) {
    return toTokens(resolution.leftover, resolution.decimals);
  }

  @FieldResolver(() => Pool, { description: 'The resolved pool.' })
  pool(@Root() resolution: ResolutionRow, @Ctx() ctx: ResolverContext) {
    return relationOne<PoolRow>(ctx.loaders.graph, resolution, RESOLUTION_READ, 'pool');
  }
}
