import { Ctx, Query, Resolver } from 'type-graphql';
import type { ResolverContext } from '../context.js';
import { RateLimit } from './rate-limit.type.js';

@Resolver()
export class RateLimitResolver {
  @Query(() => RateLimit, {
    nullable: true,
    description: 'Your query budget as this operation left it (null where no limit is configured). Costs nothing.',
  })
  rateLimit(@Ctx() ctx: ResolverContext): RateLimit | null {
    return ctx.rateLimit;
  }
}
