import { Directive, Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { INHERITED, PUBLIC } from '../common/cache-hints.js';
import { Connection } from '../common/connection.type.js';
import { Entity } from '../common/entity.type.js';
import { DateTime } from '../common/scalars.js';

@Directive(PUBLIC)
@ObjectType({ simpleResolvers: true, description: "A user's predicted value on a pool, backed by a stake." })
export class Prediction extends Entity {
  @Field(() => ID, { description: 'Id of the pool predicted on.' })
  poolId!: string;

  @Field(() => ID, { description: 'Id of the user who predicted.' })
  userId!: string;

  @Field(() => String, { description: 'The pool vault the stake moved into.' })
  poolAccount!: string;

  @Field(() => String, { description: "The predictor's token account." })
  predictorAccount!: string;

  @Field(() => String, { description: 'Program-derived address of (pool vault, predictor).' })
  predictionAccount!: string;

  @Field(() => Float, { description: "The predicted value, in the pool's unit, on its grid minOutcome + k * step." })
  prediction!: number;

  @Field(() => Int, { description: "Decimal places of the predicted value (the pool's precision)." })
  precision!: number;

  @Field(() => String, { description: 'Address (base58) of the SPL token mint of the stake.' })
  stakeTokenMint!: string;

  @Field(() => Int, { description: 'Decimals of the stake mint.' })
  decimals!: number;

  @Field(() => Int, { description: 'Revision of the value, from 1; each confirmed value change adds one (it is written in the memo).' })
  lastAppliedValueRevision!: number;

  @Field(() => Int, { description: 'Revision of the stake, from 1; each confirmed stake change adds one (it is written in the memo).' })
  lastAppliedStakeRevision!: number;

  @Field(() => Boolean, { description: 'True when the relayer paid the transaction fee.' })
  isFeePayer!: boolean;

  @Field(() => Boolean, { description: 'Whether the prediction is closed; predictions placed through this service stay open (false).' })
  isClosed!: boolean;

  @Field(() => Int, { description: 'Bump seed (0 to 255) of predictionAccount.' })
  bump!: number;

  @Field(() => DateTime, {
    nullable: true,
    description: 'When the service last applied a confirmed transaction to the prediction; null if never.',
  })
  lastSyncAt!: Date | null;
}

export const RewardType = { REWARD: 'REWARD', REFUND: 'REFUND' } as const;
export type RewardType = (typeof RewardType)[keyof typeof RewardType];
registerEnumType(RewardType, {
  name: 'RewardType',
  description: 'Kind of payout a resolution grants a prediction.',
  valuesConfig: {
    REWARD: { description: 'A share of the pool won by the prediction (may be 0).' },
    REFUND: { description: 'The stake given back, as when a pool is called off.' },
  },
});

@Directive(PUBLIC)
@ObjectType({ simpleResolvers: true, description: 'What a prediction earned when its pool was resolved.' })
export class Reward extends Entity {
  @Field(() => ID, { description: 'Id of the prediction rewarded.' })
  predictionId!: string;

  @Field(() => Float, { description: 'How close the prediction came, 0 (far) to 1 (exact).' })
  precisionScore!: number;

  @Field(() => Boolean, { description: 'True once the amount has been paid to the wallet (claimReward).' })
  isClaimed!: boolean;

  @Field(() => RewardType, { description: 'A payout (REWARD) or the stake given back (REFUND).' })
  type!: RewardType;
}

@Directive(INHERITED)
@ObjectType({ simpleResolvers: true, description: 'A page of predictions.' })
export class PredictionConnection extends Connection('Prediction', Prediction) {}
