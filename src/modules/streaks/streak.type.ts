import { Directive, Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { INHERITED, PRIVATE, PUBLIC } from '../common/cache-hints.js';
import { Connection } from '../common/connection.type.js';
import { Entity } from '../common/entity.type.js';
import { DateTime } from '../common/scalars.js';
import { PoolConnection } from '../pools/pool.type.js';

@Directive(PUBLIC)
@ObjectType({ simpleResolvers: true, description: 'A series of pools that rewards users who keep taking part.' })
export class Streak extends Entity {
  @Field(() => ID, { nullable: true, description: 'Id of the last resolved pool the streak processor has applied; null before the first.' })
  lastProcessedPoolId!: string | null;

  @Field(() => String, {
    description: 'The accumulator: a token account of the stake mint, held by the service, from which streak rewards are paid.',
  })
  streakAccumulatorAccount!: string;

  @Field(() => String, { description: 'Name of the streak, as shown in lists.' })
  title!: string;

  @Field(() => Float, {
    description: 'Percentage, 0 to 100, of pool volume meant for the accumulator; recorded with the streak, not deducted by the service.',
  })
  feePercentage!: number;

  @Field(() => Float, { description: 'Percentage, more than 0 and at most 100, of the available balance a streak reward pays.' })
  payoutPercentage!: number;

  @Field(() => Int, {
    description: 'Bump seed of the accumulator address; 0 for streaks created here, whose accumulator is not a program-derived address.',
  })
  bump!: number;

  @Field(() => Int, { description: 'Consecutive qualifying pools that earn a reward.' })
  streakCountRequired!: number;

  @Field(() => Float, { description: 'Precision score, 0 to 1, a prediction needs to count.' })
  minPrecisionScoreRequired!: number;

  @Field(() => DateTime, {
    nullable: true,
    description: 'When onchainBalance was last brought up to date (creation, a funding or a claim); null if never.',
  })
  lastSyncAt!: Date | null;
}

@Directive(INHERITED)
@ObjectType({ simpleResolvers: true, description: 'A page of streaks.' })
export class StreakConnection extends Connection('Streak', Streak) {}

@Directive(INHERITED)
@ObjectType({ simpleResolvers: true, description: 'The pools of a streak, newest first.' })
export class StreakPools {
  @Field(() => Streak, { description: 'The streak asked for.' })
  streak!: Streak;

  @Field(() => PoolConnection, { description: 'A page of its pools, newest first.' })
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

@Directive(PUBLIC)
@ObjectType({ simpleResolvers: true, description: 'A reward granted for completing a streak run.' })
export class StreakReward extends Entity {
  @Field(() => ID, { description: 'Id of the streak that granted it.' })
  streakId!: string;

  @Field(() => String, { description: 'Wallet address (base58) of the rewarded user.' })
  userWalletAddress!: string;

  @Field(() => Boolean, { description: 'True once it has been paid to the wallet (claimStreakReward).' })
  isClaimed!: boolean;
}

@Directive(PRIVATE)
@ObjectType({ simpleResolvers: true, description: "The viewer's progress in a streak, and their streak rewards." })
export class UserStreakDetails {
  @Field(() => Streak, { description: 'The streak asked for.' })
  streak!: Streak;

  @Field(() => Int, { description: 'Qualifying pools in the current run; 0 before the first and after a reset or a reward.' })
  currentStreakCount!: number;

  @Field(() => LastStreakEvent, {
    description: 'What the streak processor last did for the viewer; NONE before their first processed pool.',
  })
  lastStreakEvent!: keyof typeof LastStreakEvent;

  @Field(() => DateTime, {
    nullable: true,
    description: 'When the viewer placed their latest prediction in a resolved pool of the streak; null if none yet.',
  })
  lastPoolParticipatedAt!: Date | null;

  @Field(() => [StreakReward], {
    description: "The viewer's streak rewards in this streak, newest first (only claimed or unclaimed ones when isClaimed is given).",
  })
  streakRewards!: StreakReward[];

  @Field(() => [Float], { description: 'Precision scores of the current run, oldest first.' })
  currentStreakScores!: number[];

  @Field(() => ID, {
    nullable: true,
    description: "Id of the last resolved pool the processor applied to the viewer's run; null before the first.",
  })
  lastProcessedPoolId!: string | null;
}
