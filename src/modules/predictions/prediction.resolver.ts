import { FieldResolver, Float, Resolver, Root } from 'type-graphql';
import type { PredictionRow, RewardRow } from '../../../schema/index.js';
import { toTokens } from '../common/amounts.js';
import { RelationFields } from '../common/relation-fields.js';
import { Prediction, Reward } from './prediction.type.js';

/** Also a prediction's relations, from the read graph (user, pool, reward, streak, ...). */
@RelationFields()
@Resolver(() => Prediction)
export class PredictionResolver {
  @FieldResolver(() => Float, { description: 'The staked amount, in whole tokens.' })
  stake(@Root() prediction: PredictionRow) {
    return toTokens(prediction.stake, prediction.decimals);
  }
}

/** Also a reward's relations, from the read graph (prediction, ...). */
@RelationFields()
@Resolver(() => Reward)
export class RewardResolver {
  @FieldResolver(() => Float, { description: 'Payout (or refund), in whole tokens.' })
  amount(@Root() reward: RewardRow) {
    return toTokens(reward.amount, reward.decimals);
  }
}
