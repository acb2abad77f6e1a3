import type { GraphQLResolveInfo } from 'graphql';
import { Args, Ctx, Directive, FieldResolver, Float, Info, Query, Resolver, Root } from 'type-graphql';
import { resolverSelects } from '../../read/operation-walk.js';
import type { ResolverContext } from '../context.js';
import { PUBLIC } from '../common/cache-hints.js';
import { toTokens } from '../common/amounts.js';
import { User } from '../users/user.type.js';
import { ReadsPageArguments } from '../common/page-arguments.js';
import { leaderboard, type LeaderboardEntryRow, parseLeaderboardPage } from './leaderboard.service.js';
import { LeaderboardArgs, LeaderboardConnection, LeaderboardEntry } from './leaderboard.type.js';

@Resolver(() => LeaderboardEntry)
export class LeaderboardResolver {
  @ReadsPageArguments(parseLeaderboardPage)
  @Directive(PUBLIC)
  @Query(() => LeaderboardConnection, {
    description: 'Users ranked by payouts or precision over a period, with the viewer’s own standing.',
  })
  leaderboard(@Args(() => LeaderboardArgs) args: LeaderboardArgs, @Ctx() ctx: ResolverContext, @Info() info: GraphQLResolveInfo) {
    return leaderboard(ctx, args, { viewerStanding: resolverSelects(info, 'viewerEntry'), renderedUsers: [] });
  }

  @FieldResolver(() => User, { description: 'The user ranked.' })
  user(@Root() entry: LeaderboardEntryRow, @Ctx() ctx: ResolverContext) {
    return ctx.loaders.userById.load(entry.id);
  }

  @FieldResolver(() => Float, { description: 'Reward payouts in the period, in whole tokens.' })
  payout(@Root() entry: LeaderboardEntryRow) {
    return toTokens(entry.payoutUnits, entry.decimals);
  }

  @FieldResolver(() => Float, { description: 'Stakes of the rewarded predictions, in whole tokens.' })
  staked(@Root() entry: LeaderboardEntryRow) {
    return toTokens(entry.stakedUnits, entry.decimals);
  }
}
