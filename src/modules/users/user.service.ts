import { and, eq, ne } from 'drizzle-orm';
import { images, users, type UserRow } from '../../../schema/index.js';
import { AppError, badInput } from '../../errors.js';
import { requireViewer } from '../auth/viewer.js';
import type { ServiceContext } from '../context.js';
import { parseId } from '../common/ids.js';
import { isUniqueViolation } from '../../db/client.js';

export const USERNAME_PATTERN = /^[A-Za-z0-9_]{3,32}$/;

/** The signed-in user (UNAUTHENTICATED when signed out), through the request's loader. */
export async function findViewer(ctx: ServiceContext): Promise<UserRow | null> {
  return ctx.loaders.userById.load(requireViewer(ctx.viewer).userId);
}

export interface UpdateProfileInput {
  username?: string | null;
  avatarId?: string | null;
  hasSeenTour?: boolean | null;
}

/** Changes the viewer's username (unique), avatar (one of their own images) or tour flag. */
export async function updateProfile(ctx: ServiceContext, input: UpdateProfileInput): Promise<UserRow> {
  const viewer = requireViewer(ctx.viewer);
  const changes: Partial<typeof users.$inferInsert> = {};
  if (input.username != null) {
    if (!USERNAME_PATTERN.test(input.username)) {
      throw badInput('input.username', 'username must be 3 to 32 letters, digits or underscores');
    }
    const [taken] = await ctx.database.db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.username, input.username), ne(users.id, viewer.userId)));
    if (taken) throw new AppError('BAD_USER_INPUT', 'That username is taken', { argumentName: 'input.username', reason: 'USERNAME_TAKEN' });
    changes.username = input.username;
  }
  if (input.avatarId !== undefined) {
    if (input.avatarId === null) changes.avatarId = null;
    else {
      const avatarId = parseId(input.avatarId, 'input.avatarId');
      const [image] = await ctx.database.db.select().from(images).where(eq(images.id, avatarId));
      if (!image || image.userId !== viewer.userId) throw badInput('input.avatarId', 'avatarId must be one of your own images');
      changes.avatarId = avatarId;
    }
  }
  if (input.hasSeenTour != null) changes.hasSeenTour = input.hasSeenTour;
  if (Object.keys(changes).length === 0) return (await ctx.loaders.userById.load(viewer.userId))!;
  try {
    const [user] = await ctx.database.db
      .update(users)
      .set({ ...changes, updatedAt: ctx.now })
      .where(eq(users.id, viewer.userId))
      .returning();
    ctx.loaders.userById.clear(viewer.userId);
    return user!;
  } catch (error) {
    // A concurrent rename to the same username loses on the unique index.
    if (isUniqueViolation(error))
      throw new AppError('BAD_USER_INPUT', 'That username is taken', { argumentName: 'input.username', reason: 'USERNAME_TAKEN' });
    throw error;
  }
}

// Redemption honours the operator's caps, expiry and deactivation; it lives with the referral module.
export { redeemReferralCode } from '../referrals/referral-redemption.service.js';
