import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Connection } from '../common/connection.type.js';
import { Entity } from '../common/entity.type.js';
import { DateTime } from '../common/scalars.js';
import { PoolConnection } from '../pools/pool.type.js';

@ObjectType({ simpleResolvers: true, description: 'A series of pools that rewards users who keep taking part.' })
export class Streak extends Entity {
  @Field(() => ID, { nullable: true, description: 'The last pool the streak processor has applied.' })
  lastProcessedPoolId!: string | null;

  @Field(() => String, { description: 'Token account accumulating the streak fees.' })
  streakAccumulatorAccount!: string;

  @Field(() => String)
  title!: string;

  @Field(() => Float)
  feePercentage!: number;

  @Field(() => Float, { description: 'Share of the available balance a streak reward pays.' })
  payoutPercentage!: number;

  @Field(() => Int)
  bump!: number;

  @Field(() => Int, { description: 'Consecutive qualifying pools that earn a reward.' })
  streakCountRequired!: number;

  @Field(() => Float, { description: 'Precision score a prediction needs to count.' })
  minPrecisionScoreRequired!: number;

  @Field(() => DateTime, { nullable: true })
  lastSyncAt!: Date | null;
}

@ObjectType({ simpleResolvers: true })
export class StreakConnection extends Connection('Streak', Streak) {}

@ObjectType({ simpleResolvers: true, description: 'The pools of a streak, newest first.' })
export class StreakPools {
  @Field(() => Streak)
  streak!: Streak;

  @Field(() => PoolConnection)
  pools!: PoolConnection;
}

export const LastStreakEvent = { NONE: 'NONE', QUALIFIED: 'QUALIFIED', RESET: 'RESET', REWARDED: 'REWARDED' } as const;
registerEnumType(LastStreakEvent, {
  name: 'LastStreakEvent',
  description: 'What the streak processor last did for a user.',
  valuesConfig: {
    NONE: { description: 'Nothing yet.' },
    QUALIFIED: { description: 'A prediction met the precision required; the run grew by one.' },
    RESET: { description: 'A processed pool had no qualifying prediction; the run dropped to 0.' },
    REWARDED: { description: 'The run reached the count required: a streak reward was granted and a new run began.' },
  },
});

@ObjectType({ simpleResolvers: true, description: 'A reward granted for completing a streak run.' })
export class StreakReward extends Entity {
  @Field(() => ID)
  streakId!: string;

  @Field(() => String)
  userWalletAddress!: string;

  @Field(() => Boolean)
  isClaimed!: boolean;
}

@ObjectType({ simpleResolvers: true, description: "The viewer's progress in a streak, and their streak rewards." })
export class UserStreakDetails {
  @Field(() => Streak)
  streak!: Streak;

  @Field(() => Int)
  currentStreakCount!: number;

  @Field(() => LastStreakEvent)
  lastStreakEvent!: keyof typeof LastStreakEvent;

  @Field(() => DateTime, { nullable: true, description: 'When the viewer last predicted in a pool of the streak.' })
  lastPoolParticipatedAt!: Date | null;

  @Field(() => [StreakReward])
  streakRewards!: StreakReward[];

  @Field(() => [Float], { description: 'Precision scores of the current run, oldest first.' })
  currentStreakScores!: number[];

  @Field(() => ID, { nullable: true })
  lastProcessedPoolId!: string | null;
}
