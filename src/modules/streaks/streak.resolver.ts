import { Arg, Args, ArgsType, Ctx, Directive, Field, FieldResolver, Float, ID, Query, Resolver, Root } from 'type-graphql';
import { PUBLIC } from '../common/cache-hints.js';
import type { StreakRewardRow } from '../../../schema/index.js';
import type { ResolverContext } from '../context.js';
import { toTokens } from '../common/amounts.js';
import { parseNewestFirstPage } from '../common/loaders.js';
import { OffsetPageArgs, PageArgs } from '../common/page.args.js';
import { ReadsPageArguments } from '../common/page-arguments.js';
import { ReadGraphFields } from '../common/read-graph-fields.js';
import { parseStreakPoolsPage } from '../pools/pool.service.js';
import { findStreak, listStreaks, streakPools, userStreakDetails } from './streak.service.js';
import { Streak, StreakConnection, StreakPools, StreakReward, UserStreakDetails } from './streak.type.js';

@ArgsType()
class StreakPoolsArgs extends OffsetPageArgs {
  @Field(() => ID, { description: 'Id of the streak.' })
  streakId!: string;

  @Field(() => Boolean, { nullable: true, defaultValue: false, description: 'Only pools whose prediction window has ended.' })
  pastOnly?: boolean | null;
}

/** Also a streak's amounts and relations, from the read graph (totalAccumulated, ..., lastProcessedPool, pools). */
@ReadGraphFields()
@Resolver(() => Streak)
export class StreakResolver {
  @Query(() => Streak, { nullable: true, description: 'A streak by id; null when there is none.' })
  streak(@Arg('id', () => ID, { description: 'Id of the streak.' }) id: string, @Ctx() ctx: ResolverContext) {
    return findStreak(ctx, id);
  }

  @ReadsPageArguments(parseNewestFirstPage)
  @Directive(PUBLIC)
  @Query(() => StreakConnection, { description: 'All streaks, newest first.' })
  streaks(@Args(() => PageArgs) args: PageArgs, @Ctx() ctx: ResolverContext) {
    return listStreaks(ctx, args);
  }

  @ReadsPageArguments(parseStreakPoolsPage)
  @Directive(PUBLIC)
  @Query(() => StreakPools, { description: 'A streak and all its pools (not filtered by participation), newest first.' })
  streakPools(@Args(() => StreakPoolsArgs) { streakId, ...page }: StreakPoolsArgs, @Ctx() ctx: ResolverContext) {
    return streakPools(ctx, streakId, page);
  }

  @Query(() => UserStreakDetails, { description: "The signed-in user's progress in a streak and their streak rewards." })
  streakUserDetails(
    @Arg('streakId', () => ID, { description: 'Id of the streak.' }) streakId: string,
    @Arg('isClaimed', () => Boolean, { nullable: true, description: 'Only claimed (true) or unclaimed (false) rewards; all when omitted.' })
    isClaimed: boolean | null,
    @Ctx() ctx: ResolverContext,
  ) {
    return userStreakDetails(ctx, streakId, isClaimed);
  }
}

/** Also a streak reward's relations, from the read graph (streak, user); its amount is in its streak's decimals (a reward row has none of its own). */
@ReadGraphFields()
@Resolver(() => StreakReward)
export class StreakRewardResolver {
  @FieldResolver(() => Float, { description: 'The reward, in whole tokens.' })
  async amount(@Root() reward: StreakRewardRow, @Ctx() ctx: ResolverContext) {
    const streak = await ctx.loaders.streakById.load(reward.streakId);
    return toTokens(reward.amount, streak!.decimals);
  }
}
