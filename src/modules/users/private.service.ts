import type {
  ApiKeyRow,
  DeviceTokenRow,
  ReferralCodeRow,
  ReferralRedemptionRow,
  RefreshTokenRow,
  SettingsRow,
  UserRow,
} from '../../../schema/index.js';
import { assertCanReadPrivate } from '../auth/viewer.js';
import type { ServiceContext } from '../context.js';

/**
 * A user's private data, readable by that user and by admins. Each function checks the
 * viewer before it loads anything and throws FORBIDDEN for anyone else, so no caller (a
 * resolver, a subscription, a later mutation) reaches the data without the check.
 *
 * They return the loader's promise rather than being `async`: a refusal is thrown at once,
 * and an allowed read costs no promise beyond the loader's own.
 */

export function userEmail(ctx: ServiceContext, user: UserRow): string | null {
  assertCanReadPrivate(ctx.viewer, user.id, 'email');
  return user.email;
}

export function userSettings(ctx: ServiceContext, userId: string): Promise<SettingsRow | null> {
  assertCanReadPrivate(ctx.viewer, userId, 'settings');
  return ctx.loaders.settingsByUser.load(userId);
}

export function userDeviceTokens(ctx: ServiceContext, userId: string): Promise<DeviceTokenRow[]> {
  assertCanReadPrivate(ctx.viewer, userId, 'deviceTokens');
  return ctx.loaders.deviceTokensByUser.load(userId);
}

/** The user's sessions (refresh_tokens rows), oldest first. */
export function userSessions(ctx: ServiceContext, userId: string): Promise<RefreshTokenRow[]> {
  assertCanReadPrivate(ctx.viewer, userId, 'refreshTokens');
  return ctx.loaders.sessionsByUser.load(userId);
}

export function userApiKeys(ctx: ServiceContext, userId: string): Promise<ApiKeyRow[]> {
  assertCanReadPrivate(ctx.viewer, userId, 'apiKeys');
  return ctx.loaders.apiKeysByUser.load(userId);
}

/** The referral code the user redeemed, if any. */
export function userReferralRedemption(ctx: ServiceContext, userId: string): Promise<ReferralRedemptionRow | null> {
  assertCanReadPrivate(ctx.viewer, userId, 'referralRedemption');
  return ctx.loaders.referralRedemptionByUser.load(userId);
}

/** Referral codes the user created. */
export function userReferralCodes(ctx: ServiceContext, userId: string): Promise<ReferralCodeRow[]> {
  assertCanReadPrivate(ctx.viewer, userId, 'createdReferralCodes');
  return ctx.loaders.referralCodesByUser.load(userId);
}

/** Who redeemed a referral code: private to the code's creator (and admins), not to fellow redeemers. */
export function referralCodeRedemptions(ctx: ServiceContext, code: ReferralCodeRow): Promise<ReferralRedemptionRow[]> {
  assertCanReadPrivate(ctx.viewer, code.userId, 'redemptions');
  return ctx.loaders.redemptionsByReferralCode.load(code.id);
}
