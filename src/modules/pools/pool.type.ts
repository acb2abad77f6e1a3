import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Connection } from '../common/connection.type.js';
import { Entity } from '../common/entity.type.js';
import { DateTime } from '../common/scalars.js';
import { enumObject } from '../common/enums.js';
import { poolStatus } from '../../../schema/index.js';

export const PoolStatus = enumObject(poolStatus.enumValues);
export type PoolStatus = (typeof PoolStatus)[keyof typeof PoolStatus];
registerEnumType(PoolStatus, { name: 'PoolStatus', description: 'Operational status of a pool.' });

export const PoolUnit = { USD: 'USD' } as const;
export type PoolUnit = (typeof PoolUnit)[keyof typeof PoolUnit];
registerEnumType(PoolUnit, { name: 'PoolUnit', description: 'Unit of the predicted outcome.' });

@ObjectType({ simpleResolvers: true, description: 'A pool asking for a numeric outcome; users stake tokens on their predictions.' })
export class Pool extends Entity {
  @Field(() => ID, { description: 'Id of the user who created the pool.' })
  createdBy!: string;

  @Field(() => ID, { nullable: true })
  imageId!: string | null;

  @Field(() => ID, { nullable: true })
  streakId!: string | null;

  @Field(() => String)
  title!: string;

  @Field(() => String)
  description!: string;

  @Field(() => String, { description: 'The pool vault: a token account of the stake mint.' })
  poolAccount!: string;

  @Field(() => String)
  resolutionSource!: string;

  @Field(() => PoolUnit)
  unit!: PoolUnit;

  @Field(() => Float)
  maxRoi!: number;

  @Field(() => String)
  stakeTokenMint!: string;

  @Field(() => Int, { description: 'Decimals of the stake mint.' })
  decimals!: number;

  @Field(() => Float)
  minOutcome!: number;

  @Field(() => Float)
  maxOutcome!: number;

  @Field(() => Int, { description: 'Decimal places of a predicted value.' })
  precision!: number;

  @Field(() => Float, { description: 'Predicted values lie on the grid minOutcome + k * step.' })
  step!: number;

  @Field(() => DateTime)
  predictionStartDate!: Date;

  @Field(() => DateTime)
  predictionEndDate!: Date;

  @Field(() => DateTime, { description: 'The moment whose outcome the pool predicts.' })
  referenceDate!: Date;

  @Field(() => PoolStatus)
  status!: PoolStatus;

  @Field(() => Boolean)
  isClosed!: boolean;

  @Field(() => Int)
  indexedPredictionUpdateCount!: number;

  @Field(() => Float, { description: 'Share of the pool taken as platform fee, 0 to 1.' })
  platformFeeRate!: number;
}

@ObjectType({ simpleResolvers: true, description: 'The outcome of a resolved pool.' })
export class Resolution extends Entity {
  @Field(() => ID)
  poolId!: string;

  @Field(() => Float)
  result!: number;

  @Field(() => Float)
  median!: number;
}

@ObjectType({ simpleResolvers: true })
export class PoolConnection extends Connection('Pool', Pool) {}
