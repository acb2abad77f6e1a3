import { Arg, Args, Ctx, Mutation, Resolver } from 'type-graphql';
import type { ResolverContext } from '../context.js';
import { CreatePoolInput, ResolvePoolInput, UpdatePoolStatusArgs } from './operator.args.js';
import { createPool, resolvePool, updatePoolStatus } from './operator.service.js';
import { Pool } from './pool.type.js';

/** The operator's mutations; role ADMIN (checked by the services). */
@Resolver(() => Pool)
export class OperatorResolver {
  @Mutation(() => Pool, {
    description: 'Creates a pool, its vault on the chain, and a POOL_CREATED notification for every user who allows it. ADMIN only.',
  })
  createPool(@Arg('input', () => CreatePoolInput, { description: 'The new pool.' }) input: CreatePoolInput, @Ctx() ctx: ResolverContext) {
    return createPool(ctx, input);
  }

  @Mutation(() => Pool, {
    description:
      'Resolves an ended pool: its result and the payout of each prediction, then the streak rule for its streak; notifies what became claimable. ADMIN only.',
  })
  resolvePool(
    @Arg('input', () => ResolvePoolInput, { description: 'The pool, its result and every prediction’s payout.' }) input: ResolvePoolInput,
    @Ctx() ctx: ResolverContext,
  ) {
    return resolvePool(ctx, input);
  }

  @Mutation(() => Pool, { description: "Changes a pool's status, and its closed flag when isClosed is given. ADMIN only." })
  updatePoolStatus(@Args(() => UpdatePoolStatusArgs) args: UpdatePoolStatusArgs, @Ctx() ctx: ResolverContext) {
    return updatePoolStatus(ctx, args);
  }
}
