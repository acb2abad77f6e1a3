import { Arg, Ctx, Field, FieldResolver, ID, InputType, Int, Mutation, Resolver, Root } from 'type-graphql';
import type { ReferralCodeRow } from '../../../schema/index.js';
import type { ResolverContext } from '../context.js';
import { DateTime } from '../common/scalars.js';
import { ReferralCode } from '../users/user.type.js';
import { createReferralCode, deactivateReferralCode } from './referral-operator.service.js';

@InputType({ description: 'A new referral code.' })
export class CreateReferralCodeInput {
  @Field(() => String, { nullable: true, description: '4 to 32 letters or digits (upper-cased); a random 10-character code when omitted.' })
  code?: string | null;

  @Field(() => String, { nullable: true, description: 'What the code is for; up to 1000 characters.' })
  notes?: string | null;

  @Field(() => Int, { nullable: true, description: 'How many users may redeem it, at least 1; unlimited when omitted.' })
  maxUses?: number | null;

  @Field(() => DateTime, { nullable: true, description: 'After this moment it can no longer be redeemed; never when omitted.' })
  expiresAt?: Date | null;
}

/** The operator's referral-code mutations (role ADMIN, checked by the service), and the code's limits. */
@Resolver(() => ReferralCode)
export class ReferralCodeOperatorResolver {
  @Mutation(() => ReferralCode, { description: 'Creates a referral code, with an optional cap on redemptions and an expiry. ADMIN only.' })
  createReferralCode(
    @Arg('input', () => CreateReferralCodeInput, { description: 'The code and its limits.' }) input: CreateReferralCodeInput,
    @Ctx() ctx: ResolverContext,
  ) {
    return createReferralCode(ctx, input);
  }

  @Mutation(() => ReferralCode, { description: 'Stops a referral code from being redeemed; earlier redemptions stand. ADMIN only.' })
  deactivateReferralCode(@Arg('id', () => ID, { description: 'Id of the referral code.' }) id: string, @Ctx() ctx: ResolverContext) {
    return deactivateReferralCode(ctx, id);
  }

  @FieldResolver(() => Int, { nullable: true, description: 'How many users may redeem the code; null = unlimited.' })
  maxUses(@Root() code: ReferralCodeRow) {
    return code.maxUses;
  }

  @FieldResolver(() => Int, { description: 'How many users have redeemed the code.' })
  redemptionCount(@Root() code: ReferralCodeRow) {
    return code.redemptionCount;
  }

  @FieldResolver(() => DateTime, { nullable: true, description: 'When the code stops being redeemable; null = never.' })
  expiresAt(@Root() code: ReferralCodeRow) {
    return code.expiresAt;
  }

  @FieldResolver(() => DateTime, { nullable: true, description: 'When an operator deactivated the code; null while active.' })
  deactivatedAt(@Root() code: ReferralCodeRow) {
    return code.deactivatedAt;
  }
}
