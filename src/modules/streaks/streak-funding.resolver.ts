import { Arg, Ctx, Field, Float, ID, InputType, Mutation, ObjectType, Resolver } from 'type-graphql';
import type { ResolverContext } from '../context.js';
import { PreparedTransaction } from '../transactions/transaction.type.js';
import { buildFundStreakTransaction, submitFundStreakTransaction } from './streak-funding.service.js';
import { Streak } from './streak.type.js';

@InputType({ description: "Tokens from the operator's wallet into a streak's accumulator." })
export class FundStreakTransactionInput {
  @Field(() => ID, { description: 'The streak to fund.' })
  streakId!: string;

  @Field(() => Float, { description: 'Whole tokens, more than 0, at most the mint’s decimals.' })
  amount!: number;
}

@InputType({ description: 'The build parameters again, with the signed transaction and the proof.' })
export class SubmitFundStreakTransactionInput extends FundStreakTransactionInput {
  @Field(() => String, { description: 'The built transaction, signed by the wallet, base64.' })
  signedTransaction!: string;

  @Field(() => String, { description: 'The proof returned by the build, unchanged.' })
  proof!: string;
}

@ObjectType({ simpleResolvers: true, description: 'A confirmed streak funding.' })
export class SubmittedStreakFunding {
  @Field(() => String, { description: 'The confirmed transaction signature.' })
  signature!: string;

  @Field(() => Streak, { description: 'The streak with its balances after the funding.' })
  streak!: Streak;
}

/** fundStreak, two-step; ADMIN only (checked by the service). */
@Resolver()
export class StreakFundingResolver {
  @Mutation(() => PreparedTransaction, {
    description: "Builds the transfer of the operator's tokens into a streak's accumulator (step 1 of 2). ADMIN only.",
  })
  buildFundStreakTransaction(
    @Arg('input', () => FundStreakTransactionInput, { description: 'The streak and the amount.' }) input: FundStreakTransactionInput,
    @Ctx() ctx: ResolverContext,
  ) {
    return buildFundStreakTransaction(ctx, input);
  }

  @Mutation(() => SubmittedStreakFunding, {
    description: 'Submits the signed streak funding (step 2 of 2); the streak’s balances grow on confirmation. ADMIN only.',
  })
  submitFundStreakTransaction(
    @Arg('input', () => SubmitFundStreakTransactionInput, { description: 'The build parameters, the signed transaction and the proof.' })
    input: SubmitFundStreakTransactionInput,
    @Ctx() ctx: ResolverContext,
  ) {
    return submitFundStreakTransaction(ctx, input);
  }
}
