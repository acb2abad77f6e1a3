import { ArgsType, Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Connection } from '../common/connection.type.js';
import { PageArgs } from '../common/page.args.js';
import { Node } from '../node/node.type.js';
import { DateTime } from '../common/scalars.js';
import { Prediction, Reward } from '../predictions/prediction.type.js';
import { StreakReward } from '../streaks/streak.type.js';
import { PREDICTION_FILTERS, PREDICTION_SORTS, type PredictionFilter, type PredictionSort } from '../predictions/prediction-lists.js';
import { enumObject } from '../common/enums.js';

@ObjectType({
  simpleResolvers: true,
  description: "A wallet's balances as the chain reports them (cached for a few seconds, refreshed after the user's own transactions).",
})
export class Balance {
  @Field(() => Float, { description: 'Stake token balance, in whole tokens.' })
  token!: number;

  @Field(() => String, { description: "The wallet's token account of the stake mint (its associated token account)." })
  tokenAccount!: string;

  @Field(() => String, { description: 'Address (base58) of the stake mint.' })
  mint!: string;

  @Field(() => Float, { description: 'SOL balance, in whole SOL.' })
  sol!: number;

  @Field(() => DateTime, { description: 'When the chain was read.' })
  readAt!: Date;
}

@ObjectType({ simpleResolvers: true, description: 'What the user can claim now, with totals in whole tokens.' })
export class ClaimableSummary {
  @Field(() => [Reward], { description: 'Unclaimed rewards of resolved pools (amount more than 0), oldest first.' })
  rewards!: Reward[];

  @Field(() => [Reward], { description: 'Unclaimed refunds (amount more than 0), oldest first.' })
  refunds!: Reward[];

  @Field(() => [StreakReward], { description: 'Unclaimed streak rewards, oldest first.' })
  streakRewards!: StreakReward[];

  @Field(() => Float, { description: 'Sum of rewards, in whole tokens.' })
  rewardTotal!: number;

  @Field(() => Float, { description: 'Sum of refunds, in whole tokens.' })
  refundTotal!: number;

  @Field(() => Float, { description: 'Sum of streakRewards, in whole tokens.' })
  streakRewardTotal!: number;

  @Field(() => Float, { description: 'All three totals together, in whole tokens.' })
  total!: number;
}

@ObjectType({ simpleResolvers: true, description: "The user's stakes and results; amounts in whole tokens." })
export class Portfolio {
  @Field(() => Int, { description: 'Predictions in pools not resolved yet.' })
  activeCount!: number;

  @Field(() => Float, { description: 'Stakes in pools not resolved yet.' })
  activeStake!: number;

  @Field(() => Float, { description: 'Every stake, active and resolved.' })
  totalStaked!: number;

  @Field(() => Int, { description: 'Predictions in resolved pools.' })
  resolvedCount!: number;

  @Field(() => Float, { description: 'Stakes in resolved pools.' })
  resolvedStake!: number;

  @Field(() => Float, { description: 'Payouts (rewards and refunds, claimed or not) of resolved pools.' })
  totalPayout!: number;

  @Field(() => Float, { description: 'Realized profit and loss: totalPayout minus resolvedStake.' })
  realizedPnl!: number;
}

export const ChainSubmissionStatus = { PENDING: 'PENDING', CONFIRMED: 'CONFIRMED', FAILED: 'FAILED', EXPIRED: 'EXPIRED' } as const;
registerEnumType(ChainSubmissionStatus, {
  name: 'ChainSubmissionStatus',
  description:
    'Where a transaction the service sent stands, as recorded (UserTransaction.status). The live transactionStatus ' +
    'subscription reports TransactionLifecycleStatus instead, which adds FINALIZED.',
  valuesConfig: {
    PENDING: { description: 'Sent; not confirmed yet.' },
    CONFIRMED: { description: 'Confirmed on the chain; its effects are applied.' },
    FAILED: { description: 'The chain rejected it.' },
    EXPIRED: { description: 'Its blockhash expired before it landed; nothing happened.' },
  },
});

@ObjectType({ simpleResolvers: true, implements: Node, description: 'A transaction the user made through the service.' })
export class UserTransaction {
  @Field(() => ID, { description: 'Unique identifier of the submission.' })
  id!: string;

  @Field(() => DateTime, { description: 'When it was submitted.' })
  createdAt!: Date;

  @Field(() => String, {
    description: 'placePrediction, updateStake, updateValue, withdraw, claimReward, claimStreakReward or fundStreak.',
  })
  operation!: string;

  @Field(() => ChainSubmissionStatus, { description: 'Where it stands: PENDING, CONFIRMED, FAILED or EXPIRED.' })
  status!: keyof typeof ChainSubmissionStatus;

  @Field(() => String, { description: 'The transaction signature (base58).' })
  signature!: string;

  @Field(() => String, { nullable: true, description: 'Why it failed, when it did.' })
  error!: string | null;

  @Field(() => DateTime, { nullable: true, description: 'When it was confirmed; null unless CONFIRMED.' })
  confirmedAt!: Date | null;
}

@ObjectType({ simpleResolvers: true, description: 'A page of transactions.' })
export class UserTransactionConnection extends Connection('UserTransaction', UserTransaction) {}

export const PredictionFilterEnum = enumObject(PREDICTION_FILTERS);
registerEnumType(PredictionFilterEnum, {
  name: 'PredictionFilter',
  description: "Predictions by their pool's lifecycle, or by what is left to claim.",
  valuesConfig: {
    ACTIVE: { description: 'The pool takes predictions now.' },
    ENDED: { description: "The pool's prediction end has passed." },
    RESOLVED: { description: 'The pool has a resolution.' },
    CLAIMABLE: { description: 'The prediction has an unclaimed reward or refund of more than 0.' },
  },
});

export const PredictionSortEnum = enumObject(PREDICTION_SORTS);
registerEnumType(PredictionSortEnum, {
  name: 'PredictionSort',
  description: 'Order of a prediction list; ties are broken by id.',
  valuesConfig: {
    NEWEST: { description: 'Newest first.' },
    OLDEST: { description: 'Oldest first.' },
    STAKE_HIGH: { description: 'Largest stake first.' },
    STAKE_LOW: { description: 'Smallest stake first.' },
  },
});

@ArgsType()
export class UserPredictionsArgs extends PageArgs {
  @Field(() => PredictionFilterEnum, { nullable: true, description: 'Only predictions in this state; all when omitted.' })
  filter?: PredictionFilter | null;

  @Field(() => PredictionSortEnum, {
    nullable: true,
    defaultValue: 'NEWEST',
    description: 'Order of the list; a cursor continues only the order that issued it.',
  })
  sort?: PredictionSort | null;
}

export { Prediction };
