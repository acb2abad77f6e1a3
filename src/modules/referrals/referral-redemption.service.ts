import { and, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import { referralCodes, referralRedemptions, type ReferralRedemptionRow } from '../../../schema/index.js';
import type { Db } from '../../db/client.js';
import { AppError, badInput } from '../../errors.js';
import { requireViewer } from '../auth/viewer.js';
import type { ServiceContext } from '../context.js';
import { REFERRAL_CODE_PATTERN } from './referral-operator.service.js';

/**
 * Redeems a referral code for the viewer: once per user, never their own code, and only
 * while the code is active, unexpired and under its cap. The redemption and the code's
 * count are written in one transaction; the count only rises under its cap (a row lock
 * orders concurrent redeemers), so `maxUses` holds however many redeem at once.
 */
export async function redeemReferralCode(ctx: ServiceContext, code: string): Promise<ReferralRedemptionRow> {
  const viewer = requireViewer(ctx.viewer);
  const normalized = code.trim().toUpperCase();
  if (!REFERRAL_CODE_PATTERN.test(normalized)) throw badInput('code', 'code must be 4 to 32 letters or digits');
  const [referral] = await ctx.database.db.select().from(referralCodes).where(eq(referralCodes.code, normalized));
  if (!referral) throw new AppError('NOT_FOUND', 'No referral code matches', { argumentName: 'code' });
  if (referral.userId === viewer.userId) {
    throw new AppError('BAD_USER_INPUT', 'You cannot redeem your own referral code', { argumentName: 'code', reason: 'OWN_CODE' });
  }
  const now = ctx.now;
  return ctx.database.db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    const [redemption] = await tx
      .insert(referralRedemptions)
      .values({ referralCodeId: referral.id, userId: viewer.userId, appliedAt: now, createdAt: now, updatedAt: now })
      .onConflictDoNothing({ target: referralRedemptions.userId })
      .returning();
    if (!redemption) throw new AppError('ALREADY_REDEEMED', 'You have already redeemed a referral code');
    const [counted] = await tx
      .update(referralCodes)
      .set({ redemptionCount: sql`${referralCodes.redemptionCount} + 1` })
      .where(
        and(
          eq(referralCodes.id, referral.id),
          isNull(referralCodes.deactivatedAt),
          or(isNull(referralCodes.expiresAt), gt(referralCodes.expiresAt, now)),
          or(isNull(referralCodes.maxUses), lt(referralCodes.redemptionCount, referralCodes.maxUses)),
        ),
      )
      .returning({ id: referralCodes.id });
    // Throwing rolls the redemption back.
    if (!counted) throw unredeemable(referral.deactivatedAt, referral.expiresAt, now);
    return redemption;
  });
}

/** Why an existing code refused a redemption (read before the update; a code only ever becomes less redeemable). */
function unredeemable(deactivatedAt: Date | null, expiresAt: Date | null, now: Date): AppError {
  if (deactivatedAt)
    return new AppError('BAD_USER_INPUT', 'This referral code has been deactivated', { argumentName: 'code', reason: 'CODE_DEACTIVATED' });
  if (expiresAt && expiresAt <= now)
    return new AppError('BAD_USER_INPUT', 'This referral code has expired', { argumentName: 'code', reason: 'CODE_EXPIRED' });
  return new AppError('BAD_USER_INPUT', 'This referral code has been used as many times as it may be', {
    argumentName: 'code',
    reason: 'CODE_USED_UP',
  });
}
