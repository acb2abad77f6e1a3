import { Arg, Ctx, ID, Query, Resolver } from 'type-graphql';
import type { ResolverContext } from '../context.js';
import { User } from '../users/user.type.js';
import { findUser, findUserByWallet } from './user-lookup.service.js';

/** Public profiles: a user's private fields stay private to them (and admins) whoever looks them up. */
@Resolver(() => User)
export class UserLookupResolver {
  @Query(() => User, { nullable: true, description: "A user's public profile by id; null when there is none." })
  user(@Arg('id', () => ID, { description: 'Id of the user.' }) id: string, @Ctx() ctx: ResolverContext) {
    return findUser(ctx, id);
  }

  @Query(() => User, { nullable: true, description: "A user's public profile by wallet address (base58); null when there is none." })
  userByWallet(@Arg('address', () => String, { description: 'Wallet address (base58).' }) address: string, @Ctx() ctx: ResolverContext) {
    return findUserByWallet(ctx, address);
  }
}
