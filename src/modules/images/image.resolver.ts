import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import type { ResolverContext } from '../context.js';
import { Pool } from '../pools/pool.type.js';
import { updatePoolImage } from './pool-image.service.js';

/** Images are uploaded over HTTP (POST /images); here they are attached. */
@Resolver(() => Pool)
export class PoolImageResolver {
  @Mutation(() => Pool, { description: "Sets a pool's image to an uploaded image (POST /images), or removes it with null. ADMIN only." })
  updatePoolImage(
    @Arg('poolId', () => ID, { description: 'The pool to change.' }) poolId: string,
    @Arg('imageId', () => ID, { nullable: true, description: "An uploaded image; null removes the pool's image." }) imageId: string | null,
    @Ctx() ctx: ResolverContext,
  ) {
    return updatePoolImage(ctx, { poolId, imageId });
  }
}
