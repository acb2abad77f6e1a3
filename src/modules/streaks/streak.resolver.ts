import { Arg, Args, ArgsType, Ctx, Directive, Field, FieldResolver, Float, ID, Query, Resolver, Root } from 'type-graphql';
import { PUBLIC } from '../common/cache-hints.js';
import type { PoolRow, StreakRewardRow, StreakRow, UserRow } from '../../../schema/index.js';
import { User } from '../users/user.type.js';
import type { ResolverContext } from '../context.js';
import { toTokens } from '../common/amounts.js';
import { parseNewestFirstPage, relationOne, relationPage } from '../common/loaders.js';
import { STREAK_READ, STREAK_REWARD_READ } from '../common/read-specs.js';
import { OffsetPageArgs, PageArgs } from '../common/page.args.js';
import { ReadsPageArguments } from '../common/page-arguments.js';
import { parseStreakPoolsPage } from '../pools/pool.service.js';
import { Pool, PoolConnection } from '../pools/pool.type.js';
import { findStreak, listStreaks, streakPools, userStreakDetails } from './streak.service.js';
import { Streak, StreakConnection, StreakPools, StreakReward, UserStreakDetails } from './streak.type.js';

@ArgsType()
class StreakPoolsArgs extends OffsetPageArgs {
  @Field(() => ID, { description: 'Id of the streak.' })
  streakId!: string;

  @Field(() => Boolean, { nullable: true, defaultValue: false, description: 'Only pools whose prediction window has ended.' })
  pastOnly?: boolean | null;
}

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

  @FieldResolver(() => Float, { description: 'Tokens funded into the accumulator over the life of the streak, in whole tokens.' })
  totalAccumulated(@Root() streak: StreakRow) {
    return toTokens(streak.totalAccumulated, streak.decimals);
  }

  @FieldResolver(() => Float, {
    description: 'Funded tokens not yet granted as streak rewards, in whole tokens; rewards are paid from it.',
  })
  availableBalance(@Root() streak: StreakRow) {
    return toTokens(streak.availableBalance, streak.decimals);
  }

  @FieldResolver(() => Float, { description: 'Balance of the accumulator account on-chain at lastSyncAt, in whole tokens.' })
  onchainBalance(@Root() streak: StreakRow) {
    return toTokens(streak.onchainBalance, streak.decimals);
  }

  @FieldResolver(() => Pool, {
    nullable: true,
    description: 'The last resolved pool the streak processor has applied; null before the first.',
  })
  lastProcessedPool(@Root() streak: StreakRow, @Ctx() ctx: ResolverContext) {
    return relationOne<PoolRow>(ctx.loaders.graph, streak, STREAK_READ, 'lastProcessedPool');
  }

  @ReadsPageArguments(parseNewestFirstPage)
  @FieldResolver(() => PoolConnection, { description: 'Pools of the streak, newest first.' })
  pools(@Root() streak: StreakRow, @Args(() => PageArgs) args: PageArgs, @Ctx() ctx: ResolverContext) {
    return relationPage<PoolRow>(ctx.loaders.graph, streak, STREAK_READ, 'pools', args);
  }
}

@Resolver(() => StreakReward)
export class StreakRewardResolver {
  @FieldResolver(() => Float, { description: 'The reward, in whole tokens.' })
  async amount(@Root() reward: StreakRewardRow, @Ctx() ctx: ResolverContext) {
    const streak = await ctx.loaders.streakById.load(reward.streakId);
    return toTokens(reward.amount, streak!.decimals);
  }

  @FieldResolver(() => Streak, { description: 'The streak that granted the reward.' })
  streak(@Root() reward: StreakRewardRow, @Ctx() ctx: ResolverContext) {
    return relationOne<StreakRow>(ctx.loaders.graph, reward, STREAK_REWARD_READ, 'streak');
  }

  @FieldResolver(() => User, { nullable: true, description: 'The rewarded user: the owner of userWalletAddress.' })
  user(@Root() reward: StreakRewardRow, @Ctx() ctx: ResolverContext) {
    return relationOne<UserRow>(ctx.loaders.graph, reward, STREAK_REWARD_READ, 'user');
  }
}
