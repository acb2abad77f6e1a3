import { Arg, Ctx, Float, ID, Int, Mutation, Resolver } from 'type-graphql';
import type { ResolverContext } from '../context.js';
import { claimReward, claimStreakReward, requestDevSol, requestDevTokens } from './claim.service.js';
import * as transactions from './transaction.service.js';
import { buildWithdrawTransaction, submitWithdrawTransaction } from './withdraw.service.js';
import {
  DevSol,
  DevTokens,
  PredictionTransactionInput,
  PredictionUpdateTransactionInput,
  PreparedTransaction,
  RewardClaim,
  StakeUpdateTransactionInput,
  StreakRewardClaim,
  SubmitPredictionTransactionInput,
  SubmitPredictionUpdateTransactionInput,
  SubmitStakeUpdateTransactionInput,
  SubmittedPredictionTransaction,
  SubmittedTransaction,
  SubmitWithdrawTransactionInput,
  WithdrawTransactionInput,
} from './transaction.type.js';

@Resolver()
export class TransactionResolver {
  @Mutation(() => PreparedTransaction, { description: 'Builds the transaction placing a prediction (step 1 of 2).' })
  buildPredictionTransaction(
    @Arg('input', () => PredictionTransactionInput, { description: 'The pool, the stake and the value.' })
    input: PredictionTransactionInput,
    @Ctx() ctx: ResolverContext,
  ) {
    return transactions.buildPredictionTransaction(ctx, input);
  }

  @Mutation(() => SubmittedPredictionTransaction, { description: 'Submits the signed transaction placing a prediction (step 2 of 2).' })
  submitPredictionTransaction(
    @Arg('input', () => SubmitPredictionTransactionInput, {
      description: 'The signed transaction and the proof (and optionally the build parameters).',
    })
    input: SubmitPredictionTransactionInput,
    @Ctx() ctx: ResolverContext,
  ) {
    return transactions.submitPredictionTransaction(ctx, input);
  }

  @Mutation(() => PreparedTransaction, { description: 'Builds the transaction changing the stake of your prediction (step 1 of 2).' })
  buildStakeUpdateTransaction(
    @Arg('input', () => StakeUpdateTransactionInput, { description: 'The prediction and its new stake.' })
    input: StakeUpdateTransactionInput,
    @Ctx() ctx: ResolverContext,
  ) {
    return transactions.buildStakeUpdateTransaction(ctx, input);
  }

  @Mutation(() => SubmittedPredictionTransaction, { description: 'Submits the signed stake update (step 2 of 2).' })
  submitStakeUpdateTransaction(
    @Arg('input', () => SubmitStakeUpdateTransactionInput, {
      description: 'The signed transaction and the proof (and optionally the build parameters).',
    })
    input: SubmitStakeUpdateTransactionInput,
    @Ctx() ctx: ResolverContext,
  ) {
    return transactions.submitStakeUpdateTransaction(ctx, input);
  }

  @Mutation(() => PreparedTransaction, { description: 'Builds the transaction changing the value of your prediction (step 1 of 2).' })
  buildPredictionUpdateTransaction(
    @Arg('input', () => PredictionUpdateTransactionInput, { description: 'The prediction and its new value.' })
    input: PredictionUpdateTransactionInput,
    @Ctx() ctx: ResolverContext,
  ) {
    return transactions.buildPredictionUpdateTransaction(ctx, input);
  }

  @Mutation(() => SubmittedPredictionTransaction, { description: 'Submits the signed value update (step 2 of 2).' })
  submitPredictionUpdateTransaction(
    @Arg('input', () => SubmitPredictionUpdateTransactionInput, {
      description: 'The signed transaction and the proof (and optionally the build parameters).',
    })
    input: SubmitPredictionUpdateTransactionInput,
    @Ctx() ctx: ResolverContext,
  ) {
    return transactions.submitPredictionUpdateTransaction(ctx, input);
  }

  @Mutation(() => PreparedTransaction, { description: 'Builds the transaction withdrawing tokens to an external wallet (step 1 of 2).' })
  buildWithdrawTransaction(
    @Arg('input', () => WithdrawTransactionInput, { description: 'The receiving wallet and the amount.' }) input: WithdrawTransactionInput,
    @Ctx() ctx: ResolverContext,
  ) {
    return buildWithdrawTransaction(ctx, input);
  }

  @Mutation(() => SubmittedTransaction, { description: 'Submits the signed withdrawal (step 2 of 2).' })
  submitWithdrawTransaction(
    @Arg('input', () => SubmitWithdrawTransactionInput, {
      description: 'The signed transaction and the proof (and optionally the build parameters).',
    })
    input: SubmitWithdrawTransactionInput,
    @Ctx() ctx: ResolverContext,
  ) {
    return submitWithdrawTransaction(ctx, input);
  }

  @Mutation(() => RewardClaim, {
    description: 'Pays your reward or refund of a resolved pool to your wallet (one step; the service signs).',
  })
  claimReward(
    @Arg('rewardId', () => ID, { description: 'An unclaimed reward or refund of one of your predictions, more than 0.' }) rewardId: string,
    @Ctx() ctx: ResolverContext,
  ) {
    return claimReward(ctx, rewardId);
  }

  @Mutation(() => StreakRewardClaim, { description: 'Pays one of your streak rewards to your wallet (one step; the service signs).' })
  claimStreakReward(
    @Arg('streakRewardId', () => ID, { description: 'One of your unclaimed streak rewards.' }) streakRewardId: string,
    @Ctx() ctx: ResolverContext,
  ) {
    return claimStreakReward(ctx, streakRewardId);
  }
}

/** Only in the schema of a gateway on a devchain: there is no such faucet on a real cluster. */
@Resolver()
export class DevTokensResolver {
  @Mutation(() => DevTokens, { description: 'Mints test stake tokens to your wallet (embedded chain only; at most 10,000 a call).' })
  requestDevTokens(
    @Arg('amount', () => Float, { description: 'Whole tokens to mint, more than 0 and at most 10,000.' }) amount: number,
    @Ctx() ctx: ResolverContext,
  ) {
    return requestDevTokens(ctx, amount);
  }

  @Mutation(() => DevSol, {
    description: 'Airdrops test SOL to your wallet, for the rent of accounts it opens (embedded chain only; at most 1 SOL a call).',
  })
  requestDevSol(
    @Arg('lamports', () => Int, { description: 'Lamports to airdrop, more than 0 and at most 1,000,000,000 (1 SOL).' }) lamports: number,
    @Ctx() ctx: ResolverContext,
  ) {
    return requestDevSol(ctx, lamports);
  }
}
