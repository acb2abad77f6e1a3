import { Arg, Args, Ctx, Directive, ID, Query, Resolver } from 'type-graphql';
import { PUBLIC } from '../common/cache-hints.js';
import type { ResolverContext } from '../context.js';
import { ReadsPageArguments } from '../common/page-arguments.js';
import { ReadGraphFields } from '../common/read-graph-fields.js';
import { PoolsArgs } from './pool.args.js';
import { findPool, listPools, parsePoolsPage } from './pool.service.js';
import { Pool, PoolConnection, Resolution } from './pool.type.js';

/** Also a pool's amounts and relations, from the read graph (minStake, ..., user, image, streak, resolution, predictions, ...). */
@ReadGraphFields()
@Resolver(() => Pool)
export class PoolResolver {
  @ReadsPageArguments(parsePoolsPage)
  @Directive(PUBLIC)
  @Query(() => PoolConnection, { description: 'Pools, filtered, searched and sorted, a page at a time.' })
  pools(@Args(() => PoolsArgs) args: PoolsArgs, @Ctx() ctx: ResolverContext) {
    return listPools(ctx, args);
  }

  @Query(() => Pool, { nullable: true, description: 'A pool by id; null when there is none.' })
  pool(@Arg('id', () => ID, { description: 'Id of the pool.' }) id: string, @Ctx() ctx: ResolverContext) {
    return findPool(ctx, id);
  }
}

/** A resolution's fields beyond its columns: its amounts and relations, from the read graph (protocolFee, leftover, pool). */
@ReadGraphFields()
@Resolver(() => Resolution)
export class ResolutionResolver {}
