import { Ctx, FieldResolver, Float, Resolver, Root } from 'type-graphql';
import type { PoolRow, PredictionRow, RewardRow, StreakRow, UserRow } from '../../../schema/index.js';
import type { ResolverContext } from '../context.js';
import { toTokens } from '../common/amounts.js';
import { relationOne } from '../common/loaders.js';
import { PREDICTION_READ, REWARD_READ } from '../common/read-specs.js';
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
  user(@Root() prediction: PredictionRow, @Ctx() ctx: ResolverContext) {
    return relationOne<UserRow>(ctx.loaders.graph, prediction, PREDICTION_READ, 'user');
  }

  @FieldResolver(() => Pool, { description: 'The pool predicted on.' })
  pool(@Root() prediction: PredictionRow, @Ctx() ctx: ResolverContext) {
    return relationOne<PoolRow>(ctx.loaders.graph, prediction, PREDICTION_READ, 'pool');
  }

  @FieldResolver(() => Reward, { nullable: true, description: 'What the prediction earned; null until the pool is resolved.' })
  reward(@Root() prediction: PredictionRow, @Ctx() ctx: ResolverContext) {
    return relationOne<RewardRow>(ctx.loaders.graph, prediction, PREDICTION_READ, 'reward');
  }

  @FieldResolver(() => Streak, { nullable: true, description: "The streak of the prediction's pool, if any." })
  streak(@Root() prediction: PredictionRow, @Ctx() ctx: ResolverContext) {
    return relationOne<StreakRow>(ctx.loaders.graph, prediction, PREDICTION_READ, 'streak');
  }
}

@Resolver(() => Reward)
export class RewardResolver {
  @FieldResolver(() => Float, { description: 'Payout (or refund), in whole tokens.' })
  amount(@Root() reward: RewardRow) {
    return toTokens(reward.amount, reward.decimals);
  }

  @FieldResolver(() => Prediction, { description: 'The prediction rewarded.' })
  prediction(@Root() reward: RewardRow, @Ctx() ctx: ResolverContext) {
    return relationOne<PredictionRow>(ctx.loaders.graph, reward, REWARD_READ, 'prediction');
  }
}
