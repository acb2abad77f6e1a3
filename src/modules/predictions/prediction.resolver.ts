import { Resolver } from 'type-graphql';
import { ReadGraphFields } from '../common/read-graph-fields.js';
import { Prediction, Reward } from './prediction.type.js';

/** A prediction's fields beyond its columns: its amount and relations, from the read graph (stake, user, pool, reward, streak, ...). */
@ReadGraphFields()
@Resolver(() => Prediction)
export class PredictionResolver {}

/** A reward's fields beyond its columns: its amount and relations, from the read graph (amount, prediction). */
@ReadGraphFields()
@Resolver(() => Reward)
export class RewardResolver {}
