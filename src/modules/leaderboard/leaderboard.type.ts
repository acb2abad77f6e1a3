import { ArgsType, Directive, Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';
import { INHERITED, PRIVATE, PUBLIC } from '../common/cache-hints.js';
import { Connection } from '../common/connection.type.js';
import { PageArgs } from '../common/page.args.js';
import { LEADERBOARD_METRICS, LEADERBOARD_PERIODS, type LeaderboardMetric, type LeaderboardPeriod } from './leaderboard.service.js';
import { enumObject } from '../common/enums.js';

export const LeaderboardPeriodEnum = enumObject(LEADERBOARD_PERIODS);
registerEnumType(LeaderboardPeriodEnum, {
  name: 'LeaderboardPeriod',
  description: 'Which resolutions count, by the UTC day the pool was resolved.',
  valuesConfig: {
    DAY: { description: 'Pools resolved today.' },
    WEEK: { description: 'Pools resolved in the last 7 days, today included.' },
    MONTH: { description: 'Pools resolved in the last 30 days, today included.' },
    ALL: { description: 'Every resolved pool.' },
  },
});

export const LeaderboardMetricEnum = enumObject(LEADERBOARD_METRICS);
registerEnumType(LeaderboardMetricEnum, {
  name: 'LeaderboardMetric',
  description: 'What the board ranks by. Only rewarded predictions count (a refunded pool was called off).',
  valuesConfig: {
    PAYOUT: { description: 'Sum of reward payouts.' },
    PRECISION: { description: 'Mean precision score (0 to 1) of the rewarded predictions.' },
  },
});

@Directive(PUBLIC)
@ObjectType({ simpleResolvers: true, description: "A user's standing on the leaderboard." })
export class LeaderboardEntry {
  @Field(() => Int, { description: 'Rank from 1; equal values share a rank (1, 2, 2, 4).' })
  rank!: number;

  @Field(() => Float, { description: 'Mean precision score of the rewarded predictions, 0 to 1.' })
  precision!: number;

  @Field(() => Int, { description: 'Rewarded predictions counted.' })
  predictionCount!: number;
}

@Directive(INHERITED)
@ObjectType({ simpleResolvers: true, description: "A page of the leaderboard, best first, with the viewer's own standing." })
export class LeaderboardConnection extends Connection('LeaderboardEntry', LeaderboardEntry) {
  @Directive(PRIVATE)
  @Field(() => LeaderboardEntry, { nullable: true, description: "The viewer's own standing; null when signed out or not on the board." })
  viewerEntry!: LeaderboardEntry | null;
}

@ArgsType()
export class LeaderboardArgs extends PageArgs {
  @Field(() => LeaderboardPeriodEnum, { nullable: true, defaultValue: 'ALL', description: 'Which resolutions count.' })
  period?: LeaderboardPeriod | null;

  @Field(() => LeaderboardMetricEnum, { nullable: true, defaultValue: 'PAYOUT', description: 'What to rank by.' })
  by?: LeaderboardMetric | null;
}
