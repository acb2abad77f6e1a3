import { Ctx, FieldResolver, Float, Resolver, Root } from 'type-graphql';
import type { PoolRow, PredictionRow, RewardRow, UserRow } from '../../../schema/index.js';
import type { GraphQLContext } from '../../server/context.js';
import { toTokens } from '../common/amounts.js';
import { prefetchedOne } from '../common/loaders.js';
import { Pool } from '../pools/pool.type.js';
import { Streak } from '../streaks/streak.type.js';
import { User } from '../users/user.type.js';
import { Prediction, Reward } from './prediction.type.js';

@Resolver(() => Prediction)
export class PredictionResolver {
  @FieldResolver(() => Float, { description: 'The staked amount, in whole tokens.' })
  stake(@Root() prediction: PredictionRow) {
    return toTokens(prediction.stake, prediction.decimals);
  }

  @FieldResolver(() => User, { description: 'The user who predicted.' })
  user(@Root() prediction: PredictionRow, @Ctx() ctx: GraphQLContext) {
    return prefetchedOne<UserRow>(prediction, 'user') ?? ctx.loaders.userById.load(prediction.userId);
  }

  @FieldResolver(() => Pool, { description: 'The pool predicted on.' })
  pool(@Root() prediction: PredictionRow, @Ctx() ctx: GraphQLContext) {
    return prefetchedOne<PoolRow>(prediction, 'pool') ?? ctx.loaders.poolById.load(prediction.poolId);
  }

  @FieldResolver(() => Reward, { nullable: true, description: 'What the prediction earned; null until the pool is resolved.' })
  reward(@Root() prediction: PredictionRow, @Ctx() ctx: GraphQLContext) {
    const reward = prefetchedOne<RewardRow>(prediction, 'reward');
    return reward !== undefined ? reward : ctx.loaders.rewardByPredictionId.load(prediction.id);
  }

  @FieldResolver(() => Streak, { nullable: true, description: "The streak of the prediction's pool, if any." })
  async streak(@Root() prediction: PredictionRow, @Ctx() ctx: GraphQLContext) {
    const pool = await ctx.loaders.poolById.load(prediction.poolId);
    return pool?.streakId ? ctx.loaders.streakById.load(pool.streakId) : null;
  }
}

@Resolver(() => Reward)
export class RewardResolver {
  @FieldResolver(() => Float, { description: 'Payout (or refund), in whole tokens.' })
  amount(@Root() reward: RewardRow) {
    return toTokens(reward.amount, reward.decimals);
  }

  @FieldResolver(() => Prediction, { description: 'The prediction rewarded.' })
  prediction(@Root() reward: RewardRow, @Ctx() ctx: GraphQLContext) {
    return ctx.loaders.predictionById.load(reward.predictionId);
  }
}
