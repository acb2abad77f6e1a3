import { Field, Float, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { DateTime } from '../common/scalars.js';
import { Prediction, Reward } from '../predictions/prediction.type.js';
import { StreakReward } from '../streaks/streak.type.js';

@ObjectType({ simpleResolvers: true, description: 'Step 1 of a two-step transaction: sign `transaction` in the wallet, then submit it with `proof`.' })
export class PreparedTransaction {
  @Field(() => String, { description: 'Base64 wire transaction (legacy format); the relayer pays the fee, your signature slot is empty.' })
  transaction!: string;

  @Field(() => String, { description: 'Pass it back unchanged with the signed transaction.' })
  proof!: string;

  @Field(() => DateTime, { description: 'Submit before this (and before the blockhash expires, about a minute).' })
  expiresAt!: Date;
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

@ObjectType({ simpleResolvers: true })
export class RewardClaim {
  @Field(() => String, { description: 'The confirmed payout transaction.' })
  signature!: string;

  @Field(() => Reward)
  reward!: Reward;
}

@ObjectType({ simpleResolvers: true })
export class StreakRewardClaim {
  @Field(() => String, { description: 'The confirmed payout transaction.' })
  signature!: string;

  @Field(() => StreakReward)
  streakReward!: StreakReward;
}

@ObjectType({ simpleResolvers: true })
export class DevTokens {
  @Field(() => String, { description: 'The mint transaction.' })
  signature!: string;

  @Field(() => Float, { description: 'Your token balance afterwards, in whole tokens.' })
  balance!: number;
}

const SIGNED = 'The built transaction, signed by the wallet, base64.';
const PROOF = 'The proof returned by the build, unchanged.';

@InputType()
export class PredictionTransactionInput {
  @Field(() => ID)
  poolId!: string;

  @Field(() => Float, { description: 'Stake in whole tokens, within the pool’s minStake..maxStake.' })
  stake!: number;

  @Field(() => Float, { description: 'Predicted value on the pool’s grid minOutcome + k * step.' })
  value!: number;
}

@InputType({ description: 'The build parameters are optional: the proof binds them; those given must match it.' })
export class SubmitPredictionTransactionInput {
  @Field(() => ID, { nullable: true })
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

@InputType()
export class StakeUpdateTransactionInput {
  @Field(() => ID)
  predictionId!: string;

  @Field(() => Float, { description: 'The new total stake in whole tokens; the difference moves to or from the vault.' })
  stake!: number;
}

@InputType({ description: 'The build parameters are optional: the proof binds them; those given must match it.' })
export class SubmitStakeUpdateTransactionInput {
  @Field(() => ID, { nullable: true })
  predictionId?: string | null;

  @Field(() => Float, { nullable: true, description: 'The new total stake in whole tokens; the difference moves to or from the vault.' })
  stake?: number | null;

  @Field(() => String, { description: SIGNED })
  signedTransaction!: string;

  @Field(() => String, { description: PROOF })
  proof!: string;
}

@InputType()
export class PredictionUpdateTransactionInput {
  @Field(() => ID)
  predictionId!: string;

  @Field(() => Float, { description: 'The new predicted value, on the pool’s grid.' })
  value!: number;
}

@InputType({ description: 'The build parameters are optional: the proof binds them; those given must match it.' })
export class SubmitPredictionUpdateTransactionInput {
  @Field(() => ID, { nullable: true })
  predictionId?: string | null;

  @Field(() => Float, { nullable: true, description: 'The new predicted value, on the pool’s grid.' })
  value?: number | null;

  @Field(() => String, { description: SIGNED })
  signedTransaction!: string;

  @Field(() => String, { description: PROOF })
  proof!: string;
}

@InputType()
export class WithdrawTransactionInput {
  @Field(() => String, { description: 'The receiving wallet. If it has no token account of the stake mint, one is opened with your wallet paying the rent in SOL (the service pays no rent).' })
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
  description: 'SUBMITTED -> CONFIRMED -> FINALIZED, or FAILED (the transaction did not land; nothing was written).',
});

@ObjectType({ description: 'One step in the life of a submitted transaction, with the record it produced once confirmed.' })
export class TransactionStatusUpdate {
  @Field(() => String)
  signature!: string;

  @Field(() => TransactionLifecycleStatus)
  status!: keyof typeof TransactionLifecycleStatus;

}
