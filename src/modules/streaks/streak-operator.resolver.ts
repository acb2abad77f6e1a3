import { Arg, Ctx, Field, Float, ID, InputType, Int, Mutation, Resolver } from 'type-graphql';
import type { ResolverContext } from '../context.js';
import { createStreak, updateStreak } from './streak-operator.service.js';
import { Streak } from './streak.type.js';

@InputType({ description: 'A new streak. Its accumulator account is created on the chain.' })
export class CreateStreakInput {
  @Field(() => String, { description: 'Up to 200 characters.' })
  title!: string;

  @Field(() => Float, { description: 'Percentage (0 to 100) of pool volume meant for the accumulator.' })
  feePercentage!: number;

  @Field(() => Float, { description: 'Percentage (more than 0, at most 100) of the available balance a streak reward pays.' })
  payoutPercentage!: number;

  @Field(() => Int, { description: 'Consecutive qualifying pools that earn a reward, 1 to 1000.' })
  streakCountRequired!: number;

  @Field(() => Float, { description: 'Precision score (0 to 1) a prediction needs to count.' })
  minPrecisionScoreRequired!: number;
}

@InputType({ description: "Changes to a streak's title or rule; omitted fields stay as they are." })
export class UpdateStreakInput {
  @Field(() => ID, { description: 'The streak to change.' })
  streakId!: string;

  @Field(() => String, { nullable: true, description: 'New name, up to 200 characters.' })
  title?: string | null;

  @Field(() => Float, { nullable: true, description: 'Percentage (0 to 100) of pool volume meant for the accumulator.' })
  feePercentage?: number | null;

  @Field(() => Float, {
    nullable: true,
    description: 'Percentage (more than 0, at most 100) of the available balance a streak reward pays.',
  })
  payoutPercentage?: number | null;

  @Field(() => Int, { nullable: true, description: 'Consecutive qualifying pools that earn a reward, 1 to 1000.' })
  streakCountRequired?: number | null;

  @Field(() => Float, { nullable: true, description: 'Precision score (0 to 1) a prediction needs to count.' })
  minPrecisionScoreRequired?: number | null;
}

/** The operator's streak mutations; role ADMIN (checked by the service). */
@Resolver(() => Streak)
export class StreakOperatorResolver {
  @Mutation(() => Streak, { description: 'Creates a streak and its accumulator token account on the chain. ADMIN only.' })
  createStreak(
    @Arg('input', () => CreateStreakInput, { description: 'The new streak and its rule.' }) input: CreateStreakInput,
    @Ctx() ctx: ResolverContext,
  ) {
    return createStreak(ctx, input);
  }

  @Mutation(() => Streak, { description: "Changes a streak's title or rule. ADMIN only." })
  updateStreak(
    @Arg('input', () => UpdateStreakInput, { description: 'The streak and the fields to change.' })
    { streakId, ...changes }: UpdateStreakInput,
    @Ctx() ctx: ResolverContext,
  ) {
    return updateStreak(ctx, streakId, changes);
  }
}
