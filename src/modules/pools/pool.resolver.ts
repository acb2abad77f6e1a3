import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Ctx, Directive, FieldResolver, Float, ID, Info, Query, Resolver, Root } from 'type-graphql';
import { PUBLIC } from '../common/cache-hints.js';
import type { PoolRow, ResolutionRow } from '../../../schema/index.js';
import type { ResolverContext } from '../context.js';
import { toTokens } from '../common/amounts.js';
import { planOfConnection, planOfObject } from '../../read/read-plan.js';
import { POOL_READ } from '../common/read-specs.js';
import { ReadsPageArguments } from '../common/page-arguments.js';
import { RelationFields } from '../common/relation-fields.js';
import { PoolsArgs } from './pool.args.js';
import { findPool, listPools, parsePoolsPage } from './pool.service.js';
import { Pool, PoolConnection, Resolution } from './pool.type.js';

/** Also a pool's relations, from the read graph (user, image, streak, resolution, predictions, ...). */
@RelationFields()
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
}

/** Also a resolution's relations, from the read graph (pool, ...). */
@RelationFields()
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
}
