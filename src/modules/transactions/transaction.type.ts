import { Field, Float, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { DateTime } from '../common/scalars.js';
import { TransactionPreview } from './preview.type.js';
import { Prediction, Reward } from '../predictions/prediction.type.js';
import { StreakReward } from '../streaks/streak.type.js';

@ObjectType({
  simpleResolvers: true,
  description: 'Step 1 of a two-step transaction: sign `transaction` in the wallet, then submit it with `proof`.',
})
export class PreparedTransaction {
  @Field(() => String, { description: 'Base64 wire transaction (legacy format); the relayer pays the fee, your signature slot is empty.' })
  transaction!: string;

  @Field(() => String, { description: 'Pass it back unchanged with the signed transaction.' })
  proof!: string;

  @Field(() => DateTime, { description: 'Submit before this (and before the blockhash expires, about a minute).' })
  expiresAt!: Date;

  @Field(() => TransactionPreview, { description: 'What the transaction will do, as the chain simulates it now: show it before signing.' })
  preview!: TransactionPreview;
}

@ObjectType({ simpleResolvers: true, description: 'Step 2 of a two-step transaction: the confirmed signature.' })
export class SubmittedTransaction {
  @Field(() => String, { description: 'The confirmed transaction signature.' })
  signature!: string;
}

@ObjectType({ simpleResolvers: true, description: 'A confirmed transaction that placed or changed a prediction.' })
export class SubmittedPredictionTransaction extends SubmittedTransaction {
  @Field(() => Prediction, { nullable: true, description: 'The prediction as the transaction left it.' })
  prediction!: Prediction | null;
}

@ObjectType({ simpleResolvers: true, description: 'A reward or refund paid to your wallet.' })
export class RewardClaim {
  @Field(() => String, { description: 'The confirmed payout transaction.' })
  signature!: string;

  @Field(() => Reward, { description: 'The reward, now claimed.' })
  reward!: Reward;
}

@ObjectType({ simpleResolvers: true, description: 'A streak reward paid to your wallet.' })
export class StreakRewardClaim {
  @Field(() => String, { description: 'The confirmed payout transaction.' })
  signature!: string;

  @Field(() => StreakReward, { description: 'The streak reward, now claimed.' })
  streakReward!: StreakReward;
}

@ObjectType({ simpleResolvers: true, description: 'Test tokens minted to your wallet on the embedded chain.' })
export class DevTokens {
  @Field(() => String, { description: 'The mint transaction.' })
  signature!: string;

  @Field(() => Float, { description: 'Your token balance afterwards, in whole tokens.' })
  balance!: number;
}

@ObjectType({ simpleResolvers: true, description: 'Test SOL airdropped to your wallet on the embedded chain.' })
export class DevSol {
  @Field(() => String, { description: 'The airdrop transaction.' })
  signature!: string;

  @Field(() => Float, { description: 'Your SOL balance afterwards, in lamports.' })
  lamports!: number;
}

const SIGNED = 'The built transaction, signed by the wallet, base64.';
const PROOF = 'The proof returned by the build, unchanged.';

@InputType({ description: 'A prediction to place: one per user and pool.' })
export class PredictionTransactionInput {
  @Field(() => ID, { description: 'A pool open for predictions.' })
  poolId!: string;

  @Field(() => Float, { description: 'Stake in whole tokens, within the pool’s minStake..maxStake.' })
  stake!: number;

  @Field(() => Float, { description: 'Predicted value on the pool’s grid minOutcome + k * step.' })
  value!: number;
}

@InputType({ description: 'The build parameters are optional: the proof binds them; those given must match it.' })
export class SubmitPredictionTransactionInput {
  @Field(() => ID, { nullable: true, description: 'The pool of the build.' })
  poolId?: string | null;

  @Field(() => Float, { nullable: true, description: 'Stake in whole tokens, within the pool’s minStake..maxStake.' })
  stake?: number | null;

  @Field(() => Float, { nullable: true, description: 'Predicted value on the pool’s grid minOutcome + k * step.' })
  value?: number | null;

  @Field(() => String, { description: SIGNED })
  signedTransaction!: string;

  @Field(() => String, { description: PROOF })
  proof!: string;
}

@InputType({ description: 'A new stake for one of your predictions, while its pool is open.' })
export class StakeUpdateTransactionInput {
  @Field(() => ID, { description: 'One of your predictions.' })
  predictionId!: string;

  @Field(() => Float, { description: 'The new total stake in whole tokens; the difference moves to or from the vault.' })
  stake!: number;
}

@InputType({ description: 'The build parameters are optional: the proof binds them; those given must match it.' })
export class SubmitStakeUpdateTransactionInput {
  @Field(() => ID, { nullable: true, description: 'The prediction of the build.' })
  predictionId?: string | null;

  @Field(() => Float, { nullable: true, description: 'The new total stake in whole tokens; the difference moves to or from the vault.' })
  stake?: number | null;

  @Field(() => String, { description: SIGNED })
  signedTransaction!: string;

  @Field(() => String, { description: PROOF })
  proof!: string;
}

@InputType({ description: 'A new value for one of your predictions, while its pool is open.' })
export class PredictionUpdateTransactionInput {
  @Field(() => ID, { description: 'One of your predictions.' })
  predictionId!: string;

  @Field(() => Float, { description: 'The new predicted value, on the pool’s grid.' })
  value!: number;
}

@InputType({ description: 'The build parameters are optional: the proof binds them; those given must match it.' })
export class SubmitPredictionUpdateTransactionInput {
  @Field(() => ID, { nullable: true, description: 'The prediction of the build.' })
  predictionId?: string | null;

  @Field(() => Float, { nullable: true, description: 'The new predicted value, on the pool’s grid.' })
  value?: number | null;

  @Field(() => String, { description: SIGNED })
  signedTransaction!: string;

  @Field(() => String, { description: PROOF })
  proof!: string;
}

@InputType({ description: 'Stake tokens from your wallet to another wallet.' })
export class WithdrawTransactionInput {
  @Field(() => String, {
    description:
      'The receiving wallet. If it has no token account of the stake mint, one is opened with your wallet paying the rent in SOL (the service pays no rent).',
  })
  toAddress!: string;

  @Field(() => Float, { description: 'Whole tokens; at least the service’s minimum withdrawal.' })
  amount!: number;
}

@InputType({ description: 'The build parameters are optional: the proof binds them; those given must match it.' })
export class SubmitWithdrawTransactionInput {
  @Field(() => String, { nullable: true, description: 'The receiving wallet; its token account is created if missing.' })
  toAddress?: string | null;

  @Field(() => Float, { nullable: true, description: 'Whole tokens; at least the service’s minimum withdrawal.' })
  amount?: number | null;

  @Field(() => String, { description: SIGNED })
  signedTransaction!: string;

  @Field(() => String, { description: PROOF })
  proof!: string;
}

export const TransactionLifecycleStatus = {
  SUBMITTED: 'SUBMITTED',
  CONFIRMED: 'CONFIRMED',
  FINALIZED: 'FINALIZED',
  FAILED: 'FAILED',
} as const;
registerEnumType(TransactionLifecycleStatus, {
  name: 'TransactionLifecycleStatus',
  description:
    'Live steps of a submitted transaction (transactionStatus): SUBMITTED -> CONFIRMED -> FINALIZED, or FAILED. ' +
    'The stored record (UserTransaction.status, ChainSubmissionStatus) has no FINALIZED step.',
  valuesConfig: {
    SUBMITTED: { description: 'Sent to the chain; not confirmed yet.' },
    CONFIRMED: { description: 'Confirmed by the cluster; its effects are written and the record fields are readable.' },
    FINALIZED: { description: 'Finalized: it can no longer be rolled back. The last step.' },
    FAILED: { description: 'It did not land (rejected or expired); nothing was written. The last step.' },
  },
});

@ObjectType({ description: 'One step in the life of a submitted transaction, with the record it produced once confirmed.' })
export class TransactionStatusUpdate {
  @Field(() => String, { description: 'Signature of the transaction followed.' })
  signature!: string;

  @Field(() => TransactionLifecycleStatus, { description: 'The step reached.' })
  status!: keyof typeof TransactionLifecycleStatus;
}
