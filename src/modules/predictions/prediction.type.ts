import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Connection } from '../common/connection.type.js';
import { Entity } from '../common/entity.type.js';
import { DateTime } from '../common/scalars.js';

@ObjectType({ simpleResolvers: true, description: "A user's predicted value on a pool, backed by a stake." })
export class Prediction extends Entity {
  @Field(() => ID)
  poolId!: string;

  @Field(() => ID)
  userId!: string;

  @Field(() => String, { description: 'The pool vault the stake moved into.' })
  poolAccount!: string;

  @Field(() => String, { description: "The predictor's token account." })
  predictorAccount!: string;

  @Field(() => String, { description: 'Program-derived address of (pool vault, predictor).' })
  predictionAccount!: string;

  @Field(() => Float, { description: 'The predicted value.' })
  prediction!: number;

  @Field(() => Int)
  precision!: number;

  @Field(() => String)
  stakeTokenMint!: string;

  @Field(() => Int)
  decimals!: number;

  @Field(() => Int)
  lastAppliedValueRevision!: number;

  @Field(() => Int)
  lastAppliedStakeRevision!: number;

  @Field(() => Boolean, { description: 'True when the relayer paid the transaction fee.' })
  isFeePayer!: boolean;

  @Field(() => Boolean)
  isClosed!: boolean;

  @Field(() => Int)
  bump!: number;

  @Field(() => DateTime, { nullable: true })
  lastSyncAt!: Date | null;
}

export const RewardType = { REWARD: 'REWARD', REFUND: 'REFUND' } as const;
export type RewardType = (typeof RewardType)[keyof typeof RewardType];
registerEnumType(RewardType, { name: 'RewardType' });

@ObjectType({ simpleResolvers: true, description: 'What a prediction earned when its pool was resolved.' })
export class Reward extends Entity {
  @Field(() => ID)
  predictionId!: string;

  @Field(() => Float, { description: 'How close the prediction came, 0 (far) to 1 (exact).' })
  precisionScore!: number;

  @Field(() => Boolean)
  isClaimed!: boolean;

  @Field(() => RewardType)
  type!: RewardType;
}

@ObjectType({ simpleResolvers: true })
export class PredictionConnection extends Connection('Prediction', Prediction) {}
