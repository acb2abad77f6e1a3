import { ArgsType, Field, Float, ID, InputType, Int } from 'type-graphql';
import { DateTime } from '../common/scalars.js';
import { RewardType } from '../predictions/prediction.type.js';
import { PoolStatus, PoolUnit } from './pool.type.js';

/** Arguments of the operator mutations (role ADMIN); the service validates every field. */

@InputType({ description: 'A new pool. The stake mint, its decimals and the pool vault come from the chain.' })
export class CreatePoolInput {
  @Field(() => String, { description: 'Up to 200 characters.' })
  title!: string;

  @Field(() => String, { description: 'Up to 10,000 characters.' })
  description!: string;

  @Field(() => String, { description: 'Where the outcome is read from; up to 500 characters.' })
  resolutionSource!: string;

  @Field(() => ID, { nullable: true, description: 'An uploaded image (POST /images) to show with the pool; none when omitted.' })
  imageId?: string | null;

  @Field(() => ID, { nullable: true, description: 'The streak the pool counts towards; none when omitted.' })
  streakId?: string | null;

  @Field(() => PoolUnit, { nullable: true, defaultValue: PoolUnit.USD, description: 'Unit of the predicted value; USD is the only one.' })
  unit?: PoolUnit | null;

  @Field(() => Float, { description: 'Smallest stake in whole tokens; more than 0, at most the mint’s decimals.' })
  minStake!: number;

  @Field(() => Float, { description: 'Largest stake in whole tokens; at least minStake.' })
  maxStake!: number;

  @Field(() => Float, {
    description: 'Highest return a winning stake should earn, as a ratio of the stake (2 = profit up to twice the stake); more than 0.',
  })
  maxRoi!: number;

  @Field(() => Float, { description: 'Lowest predictable value; at most `precision` decimals.' })
  minOutcome!: number;

  @Field(() => Float, { description: 'Highest predictable value; more than minOutcome, at most `precision` decimals.' })
  maxOutcome!: number;

  @Field(() => Int, { description: 'Decimal places of a predicted value, 0 to 18.' })
  precision!: number;

  @Field(() => Float, {
    description: 'Grid spacing of predicted values (minOutcome + k * step); more than 0, at most `precision` decimals.',
  })
  step!: number;

  @Field(() => DateTime, { description: 'When predictions open; may be in the past.' })
  predictionStartDate!: Date;

  @Field(() => DateTime, { description: 'After predictionStartDate, and in the future.' })
  predictionEndDate!: Date;

  @Field(() => DateTime, { description: 'The moment whose outcome is predicted; not before predictionEndDate.' })
  referenceDate!: Date;

  @Field(() => Float, { description: 'Share of the volume the protocol keeps at resolution, 0 (inclusive) to 1 (exclusive).' })
  platformFeeRate!: number;
}

@InputType({ description: 'The payout of one prediction of a resolved pool.' })
export class ResolutionRewardInput {
  @Field(() => ID, { description: 'A prediction of the pool being resolved.' })
  predictionId!: string;

  @Field(() => Float, { description: 'Whole tokens, 0 or more, at most the mint’s decimals.' })
  amount!: number;

  @Field(() => Float, { description: 'How close the prediction came, 0 to 1; the streak rule compares it with the streak’s minimum.' })
  precisionScore!: number;

  @Field(() => RewardType, {
    description: 'REWARD for a payout, REFUND for the stake given back; when every entry is a REFUND, no protocol fee is taken.',
  })
  type!: RewardType;
}

@InputType({ description: "A pool's outcome and the payout of each of its predictions." })
export class ResolvePoolInput {
  @Field(() => ID, { description: 'An ended pool without a resolution.' })
  poolId!: string;

  @Field(() => Float, { description: "The observed outcome, in the pool's unit." })
  result!: number;

  @Field(() => [ResolutionRewardInput], { description: 'Exactly one entry per prediction of the pool.' })
  rewards!: ResolutionRewardInput[];
}

@ArgsType()
export class UpdatePoolStatusArgs {
  @Field(() => ID, { description: 'The pool to change.' })
  poolId!: string;

  @Field(() => PoolStatus, { description: 'What the pool allows from now on: ACTIVE, or a freeze of predictions, claims or both.' })
  status!: PoolStatus;

  @Field(() => Boolean, {
    nullable: true,
    description: 'Also sets isClosed (true stops predictions whatever the status); left as it is when omitted.',
  })
  isClosed?: boolean | null;
}
