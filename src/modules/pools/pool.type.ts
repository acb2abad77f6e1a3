import { Directive, Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { INHERITED, PUBLIC } from '../common/cache-hints.js';
import { Connection } from '../common/connection.type.js';
import { Entity } from '../common/entity.type.js';
import { DateTime } from '../common/scalars.js';
import { enumObject } from '../common/enums.js';
import { poolStatus } from '../../../schema/index.js';

export const PoolStatus = enumObject(poolStatus.enumValues);
export type PoolStatus = (typeof PoolStatus)[keyof typeof PoolStatus];
registerEnumType(PoolStatus, {
  name: 'PoolStatus',
  description:
    'What an operator allows on a pool (updatePoolStatus). Not its lifecycle: whether a pool is open, ended or ' +
    'resolved follows from its dates and resolution (see PoolStatusFilter).',
  valuesConfig: {
    ACTIVE: {
      description: 'Nothing frozen: predictions are taken inside the prediction window (unless isClosed), and rewards can be claimed.',
    },
    PREDICTIONS_FROZEN: { description: 'No prediction can be placed or changed; claims still work.' },
    CLAIMS_FROZEN: { description: 'Rewards and refunds cannot be claimed; predictions are refused too (only ACTIVE takes them).' },
    FROZEN: { description: 'Neither predictions nor claims are accepted.' },
  },
});

export const PoolUnit = { USD: 'USD' } as const;
export type PoolUnit = (typeof PoolUnit)[keyof typeof PoolUnit];
registerEnumType(PoolUnit, {
  name: 'PoolUnit',
  description: 'Unit of the predicted outcome.',
  valuesConfig: { USD: { description: 'US dollars.' } },
});

@Directive(PUBLIC)
@ObjectType({ simpleResolvers: true, description: 'A pool asking for a numeric outcome; users stake tokens on their predictions.' })
export class Pool extends Entity {
  @Field(() => ID, { description: 'Id of the user who created the pool.' })
  createdBy!: string;

  @Field(() => ID, { nullable: true, description: "Id of the pool's image; null when it has none." })
  imageId!: string | null;

  @Field(() => ID, { nullable: true, description: 'Id of the streak the pool counts towards; null when it is in none.' })
  streakId!: string | null;

  @Field(() => String, { description: 'The question the pool asks, as shown in lists.' })
  title!: string;

  @Field(() => String, { description: 'Longer explanation of the question and its rules (plain text).' })
  description!: string;

  @Field(() => String, { description: 'The pool vault: a token account of the stake mint.' })
  poolAccount!: string;

  @Field(() => String, { description: 'Where the outcome will be read from, as the operator wrote it.' })
  resolutionSource!: string;

  @Field(() => PoolUnit, { description: 'Unit of the predicted value and the result.' })
  unit!: PoolUnit;

  @Field(() => Float, {
    description:
      'Highest return a winning stake should earn, as a ratio of the stake (2 = profit up to twice the stake); a ' +
      "bound for the operator's payouts, not enforced by resolvePool.",
  })
  maxRoi!: number;

  @Field(() => String, { description: 'Address (base58) of the SPL token mint stakes are made in.' })
  stakeTokenMint!: string;

  @Field(() => Int, { description: 'Decimals of the stake mint.' })
  decimals!: number;

  @Field(() => Float, { description: 'Lowest value a prediction may take, in the pool’s unit.' })
  minOutcome!: number;

  @Field(() => Float, { description: 'Highest value a prediction may take, in the pool’s unit.' })
  maxOutcome!: number;

  @Field(() => Int, { description: 'Decimal places of a predicted value.' })
  precision!: number;

  @Field(() => Float, { description: "Spacing of the values a prediction may take, in the pool's unit: minOutcome + k * step." })
  step!: number;

  @Field(() => DateTime, { description: 'When the pool starts taking predictions.' })
  predictionStartDate!: Date;

  @Field(() => DateTime, { description: 'When the pool stops taking predictions and changes to them; the pool has ENDED from then on.' })
  predictionEndDate!: Date;

  @Field(() => DateTime, { description: 'The moment whose outcome the pool predicts.' })
  referenceDate!: Date;

  @Field(() => PoolStatus, {
    description:
      'What an operator currently allows (freezes), not the lifecycle: use the pools filter (ACTIVE, ENDED, ' +
      'RESOLVED, NOT_RESOLVED) or the dates and resolution for that.',
  })
  status!: PoolStatus;

  @Field(() => Boolean, {
    description: 'True when an operator closed the pool: it takes no more predictions, whatever its status; claims are unaffected.',
  })
  isClosed!: boolean;

  @Field(() => Int, { description: 'Confirmed prediction transactions on the pool so far: placements, stake changes and value changes.' })
  indexedPredictionUpdateCount!: number;

  @Field(() => Float, {
    description:
      'Share of the volume kept as protocol fee at resolution, a fraction from 0 up to (not including) 1; nothing when every payout is a refund.',
  })
  platformFeeRate!: number;
}

@Directive(PUBLIC)
@ObjectType({ simpleResolvers: true, description: 'The outcome of a resolved pool.' })
export class Resolution extends Entity {
  @Field(() => ID, { description: 'Id of the resolved pool.' })
  poolId!: string;

  @Field(() => Float, { description: "The observed outcome, in the pool's unit." })
  result!: number;

  @Field(() => Float, { description: 'The lower middle of the predicted values; the result when nobody predicted.' })
  median!: number;
}

@Directive(INHERITED)
@ObjectType({ simpleResolvers: true, description: 'A page of pools.' })
export class PoolConnection extends Connection('Pool', Pool) {}
