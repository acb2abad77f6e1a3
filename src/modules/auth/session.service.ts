import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { and, eq, gt, isNull } from 'drizzle-orm';
import { refreshTokens, type RefreshTokenRow, users, type UserRow } from '../../../schema/index.js';
import type { AuthConfig } from '../../config.js';
import type { Db } from '../../db/client.js';
import { AppError } from '../../errors.js';
import type { ServiceContext } from '../context.js';
import { parseId } from '../common/ids.js';
import { requireViewer } from './viewer.js';
import type { EventPublisher } from '../events/events.js';
import { signAccessToken, signRefreshToken, TokenError, verifyRefreshToken } from './tokens.js';

/**
 * Sessions: a refresh_tokens row per sign-in, rotated on refresh, revoked on sign-out or
 * reuse. The tokens themselves are never stored; the row keeps only the current version.
 */

/** A refresh racing another with the same token within this window fails without revoking. */
const REFRESH_RACE_GRACE_MS = 10_000;

export function unauthenticated(reason: string, message: string): AppError {
  return new AppError('UNAUTHENTICATED', message, { reason });
}

export interface Session {
  user: UserRow;
  accessToken: string;
  accessTokenExpiresAt: Date;
  refreshToken: string;
  refreshTokenExpiresAt: Date;
}

/**
 * Rotates a session: an atomic compare-and-swap of its version, so of two concurrent
 * refreshes of one token exactly one succeeds. A token whose version is no longer current
 * was used before: the whole session is revoked, cutting off whoever holds the newer one.
 */
export async function refreshSession(ctx: ServiceContext, refreshToken: string): Promise<Session> {
  const claims = await verifyRefreshToken(ctx.auth.secret, refreshToken, ctx.now).catch((error: unknown) => {
    throw unauthenticated(error instanceof TokenError ? error.reason : 'TOKEN_INVALID', 'The refresh token is not valid');
  });
  const db = ctx.database.db;
  const nextVersion = bs58.encode(randomBytes(12));
  const expiresAt = new Date(ctx.now.getTime() + ctx.auth.refreshTokenTtlSeconds * 1000);
  const [rotated] = await db
    .update(refreshTokens)
    .set({ version: nextVersion, previousVersion: claims.version, rotatedAt: ctx.now, expiresAt, updatedAt: ctx.now })
    .where(
      and(
        eq(refreshTokens.id, claims.sessionId),
        eq(refreshTokens.version, claims.version),
        isNull(refreshTokens.revokedAt),
        gt(refreshTokens.expiresAt, ctx.now),
      ),
    )
    .returning();
  if (!rotated) {
    const [session] = await db.select().from(refreshTokens).where(eq(refreshTokens.id, claims.sessionId));
    const racing =
      session?.previousVersion === claims.version &&
      session.rotatedAt !== null &&
      ctx.now.getTime() - session.rotatedAt.getTime() < REFRESH_RACE_GRACE_MS;
    if (session && !session.revokedAt && racing) {
      throw unauthenticated('REFRESH_RACE_LOST', 'Another refresh of this token just succeeded; use the tokens it returned');
    }
    if (session && !session.revokedAt && session.version !== claims.version) {
      await db.transaction(async (tx) => {
        const t = tx as unknown as Db;
        await t
          .update(refreshTokens)
          .set({ revokedAt: ctx.now, revokedReason: 'REFRESH_TOKEN_REUSED', updatedAt: ctx.now })
          .where(and(eq(refreshTokens.id, session.id), isNull(refreshTokens.revokedAt)));
        await ctx.events.publishIn(t, [{ type: 'sessionRevoked', sessionId: session.id }]);
      });
      throw unauthenticated('REFRESH_TOKEN_REUSED', 'The refresh token was already used; the session is revoked');
    }
    throw unauthenticated('SESSION_REVOKED', 'The session has ended; sign in again');
  }
  const [user] = await db.select().from(users).where(eq(users.id, rotated.userId));
  return issueTokens(ctx.auth, user!, rotated.id, nextVersion, expiresAt, ctx.now);
}

/** Ends a session: the one a refresh token names, or else the viewer's. */
export async function signOut(ctx: ServiceContext, refreshToken: string | null): Promise<boolean> {
  let sessionId = ctx.viewer?.sessionId ?? null;
  if (refreshToken) {
    const claims = await verifyRefreshToken(ctx.auth.secret, refreshToken, ctx.now).catch(() => null);
    if (claims) sessionId = claims.sessionId;
  }
  if (!sessionId) throw unauthenticated('NOT_SIGNED_IN', 'There is no session to sign out of');
  return endSession(ctx, sessionId, 'SIGNED_OUT');
}

/**
 * Ends one of the viewer's sessions by its id (an ADMIN: anyone's), whatever credential
 * opened it, as sign-out does without its refresh token: viewer.refreshTokens lists them.
 * NOT_FOUND for another user's session. Returns the session as it now is.
 */
export async function revokeSession(ctx: ServiceContext, id: string): Promise<RefreshTokenRow> {
  const viewer = requireViewer(ctx.viewer);
  const sessionId = parseId(id, 'id');
  const [session] = await ctx.database.db.select().from(refreshTokens).where(eq(refreshTokens.id, sessionId));
  if (!session || (session.userId !== viewer.userId && viewer.role !== 'ADMIN')) throw new AppError('NOT_FOUND', 'No such session');
  await endSession(ctx, sessionId, 'REVOKED');
  const [ended] = await ctx.database.db.select().from(refreshTokens).where(eq(refreshTokens.id, sessionId));
  return ended!;
}

/** Revokes a session with its announcement (its sockets close on every replica); false when it had already ended. */
async function endSession(ctx: ServiceContext, sessionId: string, reason: string): Promise<boolean> {
  return ctx.database.db.transaction(async (tx) => {
    const t = tx as unknown as Db;
    const revoked = await t
      .update(refreshTokens)
      .set({ revokedAt: ctx.now, revokedReason: reason, updatedAt: ctx.now })
      .where(and(eq(refreshTokens.id, sessionId), isNull(refreshTokens.revokedAt)))
      .returning({ id: refreshTokens.id });
    if (revoked.length) await ctx.events.publishIn(t, [{ type: 'sessionRevoked', sessionId }]);
    return revoked.length > 0;
  });
}

/**
 * Opens a session for `user` (inside the caller's transaction) and issues its tokens;
 * `apiKeyId` is the key it is opened with, whose revocation ends it.
 */
export async function openSession(db: Db, auth: AuthConfig, user: UserRow, now: Date, apiKeyId: string | null = null): Promise<Session> {
  const version = bs58.encode(randomBytes(12));
  const expiresAt = new Date(now.getTime() + auth.refreshTokenTtlSeconds * 1000);
  const [session] = await db
    .insert(refreshTokens)
    .values({ userId: user.id, version, expiresAt, apiKeyId, createdAt: now, updatedAt: now })
    .returning({ id: refreshTokens.id });
  return issueTokens(auth, user, session!.id, version, expiresAt, now);
}

async function issueTokens(
  auth: AuthConfig,
  user: UserRow,
  sessionId: string,
  version: string,
  refreshTokenExpiresAt: Date,
  now: Date,
): Promise<Session> {
  const accessTokenExpiresAt = new Date(now.getTime() + auth.accessTokenTtlSeconds * 1000);
  const [accessToken, refreshToken] = await Promise.all([
    signAccessToken(auth.secret, { userId: user.id, role: user.role, sessionId }, accessTokenExpiresAt),
    signRefreshToken(auth.secret, { userId: user.id, sessionId, version }, refreshTokenExpiresAt),
  ]);
  return { user, accessToken, accessTokenExpiresAt, refreshToken, refreshTokenExpiresAt };
}

/**
 * Sets the role of the user holding `walletAddress` and revokes all their sessions in the
 * same transaction, so no token issued under the old role outlives the change (the
 * grant-role tool and any other role update go through here), with an announcement of each
 * revocation, so the user's open sockets close on every replica as on sign-out.
 * Null when no user has the wallet.
 */
export async function changeUserRole(
  database: { db: Db },
  events: EventPublisher,
  walletAddress: string,
  role: 'USER' | 'ADMIN',
  now: Date,
): Promise<{ id: string; username: string; role: 'USER' | 'ADMIN'; revokedSessions: number } | null> {
  const changed = await database.db.transaction(async (tx) => {
    const db = tx as unknown as Db;
    const [user] = await db.update(users).set({ role, updatedAt: now }).where(eq(users.walletAddress, walletAddress)).returning();
    if (!user) return null;
    const revoked = await db
      .update(refreshTokens)
      .set({ revokedAt: now, revokedReason: 'ROLE_CHANGED', updatedAt: now })
      .where(and(eq(refreshTokens.userId, user.id), isNull(refreshTokens.revokedAt)))
      .returning({ id: refreshTokens.id });
    await events.publishIn(
      db,
      revoked.map(({ id }) => ({ type: 'sessionRevoked', sessionId: id })),
    );
    return { user, revoked };
  });
  if (!changed) return null;
  const { user, revoked } = changed;
  return { id: user.id, username: user.username, role: user.role, revokedSessions: revoked.length };
}
