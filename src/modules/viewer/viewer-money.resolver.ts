import { Args, Ctx, Directive, FieldResolver, Float, Resolver, Root } from 'type-graphql';
import { PRIVATE } from '../common/cache-hints.js';
import { type PoolRow, type RewardRow, rewards, type StreakRewardRow, streakRewards, type UserRow } from '../../../schema/index.js';
import { StreakReward } from '../streaks/streak.type.js';
import { rowByIdLoader } from './request-scoped.js';
import type { ResolverContext } from '../context.js';
import { assertCanReadPrivate, PRIVATE_FIELD } from '../auth/viewer.js';
import { toTokens } from '../common/amounts.js';
import { PageArgs } from '../common/page.args.js';
import { ReadsPageArguments } from '../common/page-arguments.js';
import { parseNewestFirstPage } from '../common/loaders.js';
import { Pool } from '../pools/pool.type.js';
import { Prediction, Reward } from '../predictions/prediction.type.js';
import { User } from '../users/user.type.js';
import { walletBalance } from './balance.service.js';
import { type UserTransaction as UserTransactionRow, userTransactions, viewerPrediction } from './history.service.js';
import { claimableOf, portfolioOf } from './money.service.js';
import { Balance, ClaimableSummary, Portfolio, UserTransaction, UserTransactionConnection } from './viewer-money.type.js';

const LAMPORT_DECIMALS = 9;

/** A user's money: private to the user (and admins), like the other private fields. */
@Resolver(() => User)
export class UserMoneyResolver {
  @Directive(PRIVATE)
  @FieldResolver(() => Balance, { nullable: true, description: `Stake token and SOL balances, read from the chain. ${PRIVATE_FIELD}` })
  async balance(@Root() user: UserRow, @Ctx() ctx: ResolverContext): Promise<Balance> {
    assertCanReadPrivate(ctx.viewer, user.id, 'balance');
    const balance = await walletBalance(ctx, user.id, user.walletAddress);
    return {
      token: toTokens(balance.tokenUnits, balance.decimals),
      tokenAccount: balance.tokenAccount,
      mint: ctx.chain!.accounts.mint.toBase58(),
      sol: toTokens(balance.lamports, LAMPORT_DECIMALS),
      readAt: balance.readAt,
    };
  }

  @Directive(PRIVATE)
  @FieldResolver(() => ClaimableSummary, {
    nullable: true,
    description: `Unclaimed rewards, refunds and streak rewards, with totals. ${PRIVATE_FIELD}`,
  })
  async claimable(@Root() user: UserRow, @Ctx() ctx: ResolverContext): Promise<ClaimableSummary> {
    assertCanReadPrivate(ctx.viewer, user.id, 'claimable');
    const c = await claimableOf(ctx, user.id);
    return {
      rewards: c.rewards as unknown as Reward[],
      refunds: c.refunds as unknown as Reward[],
      streakRewards: c.streakRewards as never,
      rewardTotal: toTokens(c.rewardUnits, c.decimals),
      refundTotal: toTokens(c.refundUnits, c.decimals),
      streakRewardTotal: toTokens(c.streakRewardUnits, c.decimals),
      total: toTokens(c.rewardUnits + c.refundUnits + c.streakRewardUnits, c.decimals),
    };
  }

  @Directive(PRIVATE)
  @FieldResolver(() => Portfolio, {
    nullable: true,
    description: `Active stakes, total staked and realized PnL over resolved pools. ${PRIVATE_FIELD}`,
  })
  async portfolio(@Root() user: UserRow, @Ctx() ctx: ResolverContext): Promise<Portfolio> {
    assertCanReadPrivate(ctx.viewer, user.id, 'portfolio');
    const p = await portfolioOf(ctx, user.id);
    return {
      activeCount: p.activeCount,
      activeStake: toTokens(p.activeStakeUnits, p.decimals),
      totalStaked: toTokens(p.activeStakeUnits + p.resolvedStakeUnits, p.decimals),
      resolvedCount: p.resolvedCount,
      resolvedStake: toTokens(p.resolvedStakeUnits, p.decimals),
      totalPayout: toTokens(p.payoutUnits, p.decimals),
      realizedPnl: toTokens(p.payoutUnits - p.resolvedStakeUnits, p.decimals),
    };
  }

  @ReadsPageArguments(parseNewestFirstPage)
  @Directive(PRIVATE)
  @FieldResolver(() => UserTransactionConnection, {
    nullable: true,
    description: `Transactions the user made through the service, newest first. ${PRIVATE_FIELD}`,
  })
  transactions(@Root() user: UserRow, @Args(() => PageArgs) args: PageArgs, @Ctx() ctx: ResolverContext) {
    assertCanReadPrivate(ctx.viewer, user.id, 'transactions');
    return userTransactions(ctx, user.id, args);
  }
}

@Resolver(() => UserTransaction)
export class UserTransactionResolver {
  @FieldResolver(() => Float, {
    nullable: true,
    description:
      "Change of the user's token balance, in whole tokens: negative for stakes and withdrawals, positive for claims, 0 for value updates.",
  })
  amount(@Root() row: UserTransactionRow) {
    return row.amountUnits === null || row.decimals === null ? null : toTokens(row.amountUnits, row.decimals);
  }

  @FieldResolver(() => Prediction, {
    nullable: true,
    description: 'The prediction the transaction placed or changed (or whose reward it claimed).',
  })
  prediction(@Root() row: UserTransactionRow, @Ctx() ctx: ResolverContext) {
    return row.predictionId ? ctx.loaders.predictionById.load(row.predictionId) : null;
  }

  @FieldResolver(() => Reward, { nullable: true, description: 'The reward or refund the transaction claimed.' })
  reward(@Root() row: UserTransactionRow, @Ctx() ctx: ResolverContext) {
    return row.rewardId ? rowByIdLoader<RewardRow>(ctx, rewards).load(row.rewardId) : null;
  }

  @FieldResolver(() => StreakReward, { nullable: true, description: 'The streak reward the transaction claimed.' })
  streakReward(@Root() row: UserTransactionRow, @Ctx() ctx: ResolverContext) {
    return row.streakRewardId ? rowByIdLoader<StreakRewardRow>(ctx, streakRewards).load(row.streakRewardId) : null;
  }
}

@Resolver(() => Pool)
export class PoolViewerResolver {
  @Directive(PRIVATE)
  @FieldResolver(() => Prediction, {
    nullable: true,
    description: "The signed-in viewer's prediction in this pool; null when none or signed out.",
  })
  viewerPrediction(@Root() pool: PoolRow, @Ctx() ctx: ResolverContext) {
    return viewerPrediction(ctx, pool.id);
  }
}
