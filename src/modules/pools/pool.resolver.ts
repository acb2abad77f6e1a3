import { Arg, Args, Ctx, FieldResolver, Float, ID, Query, Resolver, Root } from 'type-graphql';
import type { PoolRow, ResolutionRow } from '../../../schema/index.js';
import type { GraphQLContext } from '../../server/context.js';
import { toTokens } from '../common/amounts.js';
import { parseNewestFirstPage } from '../common/loaders.js';
import { PageArgs } from '../common/page.args.js';
import { PredictionConnection } from '../predictions/prediction.type.js';
import { Streak } from '../streaks/streak.type.js';
import { Image, User } from '../users/user.type.js';
import { PoolsArgs } from './pool.args.js';
import { findPool, listPools } from './pool.service.js';
import { Pool, PoolConnection, Resolution } from './pool.type.js';

@Resolver(() => Pool)
export class PoolResolver {
  @Query(() => PoolConnection, { description: 'Pools, filtered, searched and sorted, a page at a time.' })
  pools(@Args(() => PoolsArgs) args: PoolsArgs, @Ctx() ctx: GraphQLContext) {
    return listPools(ctx, args);
  }

  @Query(() => Pool, { nullable: true, description: 'A pool by id; null when there is none.' })
  pool(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    return findPool(ctx, id);
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
  user(@Root() pool: PoolRow, @Ctx() ctx: GraphQLContext) {
    return ctx.loaders.userById.load(pool.createdBy);
  }

  @FieldResolver(() => Image, { nullable: true })
  image(@Root() pool: PoolRow, @Ctx() ctx: GraphQLContext) {
    return pool.imageId ? ctx.loaders.imageById.load(pool.imageId) : null;
  }

  @FieldResolver(() => Streak, { nullable: true })
  streak(@Root() pool: PoolRow, @Ctx() ctx: GraphQLContext) {
    return pool.streakId ? ctx.loaders.streakById.load(pool.streakId) : null;
  }

  @FieldResolver(() => Resolution, { nullable: true, description: 'Null until the pool is resolved.' })
  resolution(@Root() pool: PoolRow, @Ctx() ctx: GraphQLContext) {
    return ctx.loaders.resolutionByPoolId.load(pool.id);
  }

  @FieldResolver(() => PredictionConnection, { description: 'Predictions on the pool, newest first.' })
  predictions(@Root() pool: PoolRow, @Args(() => PageArgs) args: PageArgs, @Ctx() ctx: GraphQLContext) {
    return ctx.loaders.predictionsByPool(parseNewestFirstPage(args)).load(pool.id);
  }
}

@Resolver(() => Resolution)
export class ResolutionResolver {
  @FieldResolver(() => Float, { description: 'Protocol fee taken, in whole tokens.' })
  protocolFee(@Root() resolution: ResolutionRow) {
    return toTokens(resolution.protocolFee, resolution.decimals);
  }

  @FieldResolver(() => Float, { description: 'Stake left undistributed, in whole tokens.' })
  leftover(@Root() resolution: ResolutionRow) {
    return toTokens(resolution.leftover, resolution.decimals);
  }

  @FieldResolver(() => Pool)
  pool(@Root() resolution: ResolutionRow, @Ctx() ctx: GraphQLContext) {
    return ctx.loaders.poolById.load(resolution.poolId);
  }
}
