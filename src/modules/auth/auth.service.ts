import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { and, count, eq, gt, isNull } from 'drizzle-orm';
import { NOTIFICATION_PREFERENCE_KEYS, type NotificationPreferences } from '../../../schema/index.js';
import { apiKeys, refreshTokens, settings, signInChallenges, users, type ApiKeyRow, type UserRow } from '../../../schema/index.js';
import type { AuthConfig } from '../../config.js';
import type { Db } from '../../db/client.js';
import { AppError, badInput } from '../../errors.js';
import type { ServiceContext, ServiceDependencies } from '../context.js';
import { parseId } from '../common/ids.js';
import { generateApiKey, hashApiKey, isWellFormedApiKey } from './api-keys.js';
import { decodeAddress, decodeSignature, verifyEd25519 } from './ed25519.js';
import { WindowRateLimiter } from './rate-limit.js';
import { formatSignInMessage, parseSignInMessage, SIGN_IN_STATEMENT } from './siws.js';
import { signAccessToken, signRefreshToken, TokenError, verifyAccessToken, verifyRefreshToken } from './tokens.js';
import { requireViewer, type Viewer } from './viewer.js';

export const MAX_ACTIVE_API_KEYS = 5;
/** last_used_at of an API key is refreshed at most this often, so reads do not each write. */
const API_KEY_TOUCH_INTERVAL_MS = 60_000;
const CLOCK_SKEW_MS = 60_000;
/** A refresh racing another with the same token within this window fails without revoking. */
const REFRESH_RACE_GRACE_MS = 10_000;

function unauthenticated(reason: string, message: string): AppError {
  return new AppError('UNAUTHENTICATED', message, { reason });
}

export function createSignInLimits(auth: AuthConfig): ServiceDependencies['signInLimits'] {
  return {
    perAddress: new WindowRateLimiter(auth.signInAttemptsPerMinute.perAddress, 60_000),
    perClient: new WindowRateLimiter(auth.signInAttemptsPerMinute.perClient, 60_000),
  };
}

function countSignInAttempt(ctx: ServiceContext, walletAddress: string): void {
  const wait = ctx.signInLimits.perClient.take(ctx.clientAddress) ?? ctx.signInLimits.perAddress.take(walletAddress);
  if (wait !== null) {
    throw new AppError('RATE_LIMITED', `Too many sign-in attempts; retry in ${wait} s`, { retryAfter: wait });
  }
}

function parseWalletAddress(walletAddress: string, argumentName: string): Uint8Array {
  const key = decodeAddress(walletAddress);
  if (!key) throw badInput(argumentName, `${argumentName} must be a base58 Solana address`);
  return key;
}

export interface SignInChallenge {
  message: string;
  nonce: string;
  expiresAt: Date;
}

/** Writes a single-use message for the wallet to sign (Sign-In With Solana layout). */
export async function requestSignInChallenge(ctx: ServiceContext, walletAddress: string): Promise<SignInChallenge> {
  parseWalletAddress(walletAddress, 'walletAddress');
  countSignInAttempt(ctx, walletAddress);
  const nonce = bs58.encode(randomBytes(16));
  const expiresAt = new Date(ctx.now.getTime() + ctx.auth.challengeTtlSeconds * 1000);
  const message = formatSignInMessage({
    domain: ctx.auth.domain,
    address: walletAddress,
    statement: SIGN_IN_STATEMENT,
    uri: ctx.auth.uri,
    version: '1',
    chainId: 'solana',
    nonce,
    issuedAt: ctx.now,
    expirationTime: expiresAt,
  });
  await ctx.database.db.insert(signInChallenges).values({ nonce, walletAddress, message, expiresAt, createdAt: ctx.now });
  return { message, nonce, expiresAt };
}

export interface Session {
  user: UserRow;
  accessToken: string;
  accessTokenExpiresAt: Date;
  refreshToken: string;
  refreshTokenExpiresAt: Date;
}

/**
 * Verifies the wallet's ed25519 signature over exactly the challenge message, consumes the
 * challenge, creates the user on first sign-in, and opens a session. Every check runs
 * before anything is written.
 */
export async function signInWithWallet(
  ctx: ServiceContext,
  input: { walletAddress: string; message: string; signature: string },
): Promise<Session> {
  const publicKey = parseWalletAddress(input.walletAddress, 'input.walletAddress');
  countSignInAttempt(ctx, input.walletAddress);
  const message = parseSignInMessage(input.message);
  if (!message) throw unauthenticated('MESSAGE_INVALID', 'The message is not a sign-in message of this service');
  if (message.domain !== ctx.auth.domain) throw unauthenticated('DOMAIN_MISMATCH', `The message is for ${message.domain}, not ${ctx.auth.domain}`);
  if (message.address !== input.walletAddress) throw unauthenticated('ADDRESS_MISMATCH', 'The message names another wallet address');
  const signature = decodeSignature(input.signature);
  if (!signature || !verifyEd25519(new TextEncoder().encode(input.message), signature, publicKey)) {
    throw unauthenticated('SIGNATURE_INVALID', 'The signature does not match the message and wallet address');
  }
  if (message.expirationTime.getTime() <= ctx.now.getTime()) throw unauthenticated('CHALLENGE_EXPIRED', 'The challenge has expired; request a new one');
  if (message.issuedAt.getTime() > ctx.now.getTime() + CLOCK_SKEW_MS) throw unauthenticated('MESSAGE_INVALID', 'The message is issued in the future');

  return ctx.database.db.transaction(async (tx) => {
    const db = tx as unknown as Db;
    // Consuming is a compare-and-set: a replayed or concurrent second use finds nothing.
    const consumed = await db
      .update(signInChallenges)
      .set({ consumedAt: ctx.now })
      .where(
        and(
          eq(signInChallenges.nonce, message.nonce),
          eq(signInChallenges.walletAddress, input.walletAddress),
          eq(signInChallenges.message, input.message),
          isNull(signInChallenges.consumedAt),
          gt(signInChallenges.expiresAt, ctx.now),
        ),
      )
      .returning({ nonce: signInChallenges.nonce });
    if (consumed.length === 0) throw unauthenticated('CHALLENGE_INVALID', 'The challenge is unknown, expired or already used');
    const user = await findOrCreateWalletUser(db, input.walletAddress, ctx.now);
    return openSession(db, ctx.auth, user, ctx.now);
  });
}

/** Exchanges an API key for a session, like the service's own API-key session. */
export async function signInWithApiKey(ctx: ServiceContext, apiKey: string): Promise<Session> {
  countSignInAttempt(ctx, `api-key:${apiKey.slice(0, 12)}`);
  const key = await findActiveApiKey(ctx.database.db, apiKey);
  return ctx.database.db.transaction(async (tx) => {
    const db = tx as unknown as Db;
    const [user] = await db.select().from(users).where(eq(users.id, key.userId));
    await db.update(apiKeys).set({ lastUsedAt: ctx.now }).where(eq(apiKeys.id, key.id));
    return openSession(db, ctx.auth, user!, ctx.now);
  });
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
      await db
        .update(refreshTokens)
        .set({ revokedAt: ctx.now, revokedReason: 'REFRESH_TOKEN_REUSED', updatedAt: ctx.now })
        .where(and(eq(refreshTokens.id, session.id), isNull(refreshTokens.revokedAt)));
      await ctx.events.publish([{ type: 'sessionRevoked', sessionId: session.id }]);
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
  const revoked = await ctx.database.db
    .update(refreshTokens)
    .set({ revokedAt: ctx.now, revokedReason: 'SIGNED_OUT', updatedAt: ctx.now })
    .where(and(eq(refreshTokens.id, sessionId), isNull(refreshTokens.revokedAt)))
    .returning({ id: refreshTokens.id });
  if (revoked.length) await ctx.events.publish([{ type: 'sessionRevoked', sessionId }]);
  return revoked.length > 0;
}

export interface CreatedApiKey {
  apiKey: string;
  key: ApiKeyRow;
}

/** Creates an API key; the raw key is returned here once and never again. */
export async function createApiKey(ctx: ServiceContext, name: string): Promise<CreatedApiKey> {
  const viewer = requireViewer(ctx.viewer);
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 64) throw badInput('name', 'name must be 1 to 64 characters');
  const apiKey = generateApiKey();
  const key = await ctx.database.db.transaction(async (tx) => {
    const db = tx as unknown as Db;
    // Lock the owner so concurrent creations cannot pass the limit together.
    await db.select({ id: users.id }).from(users).where(eq(users.id, viewer.userId)).for('update');
    const [active] = await db
      .select({ total: count() })
      .from(apiKeys)
      .where(and(eq(apiKeys.userId, viewer.userId), eq(apiKeys.isActive, true)));
    if ((active?.total ?? 0) >= MAX_ACTIVE_API_KEYS) {
      throw new AppError('BAD_USER_INPUT', `At most ${MAX_ACTIVE_API_KEYS} API keys can be active; revoke one first`, {
        argumentName: 'name',
        reason: 'API_KEY_LIMIT',
      });
    }
    const [row] = await db
      .insert(apiKeys)
      .values({ userId: viewer.userId, name: trimmed, keyHash: hashApiKey(apiKey), createdAt: ctx.now, updatedAt: ctx.now })
      .returning();
    return row!;
  });
  return { apiKey, key };
}

export async function revokeApiKey(ctx: ServiceContext, id: string): Promise<ApiKeyRow> {
  const viewer = requireViewer(ctx.viewer);
  const keyId = parseId(id, 'id');
  const [key] = await ctx.database.db.select().from(apiKeys).where(eq(apiKeys.id, keyId));
  if (!key || (key.userId !== viewer.userId && viewer.role !== 'ADMIN')) throw new AppError('NOT_FOUND', 'No such API key');
  const [revoked] = await ctx.database.db
    .update(apiKeys)
    .set({ isActive: false, updatedAt: ctx.now })
    .where(eq(apiKeys.id, keyId))
    .returning();
  await ctx.events.publish([{ type: 'apiKeyRevoked', apiKeyId: keyId }]);
  return revoked!;
}

export interface Credentials {
  bearerToken: string | null;
  apiKey: string | null;
}

/**
 * Resolves a request's credentials to its viewer: null when there are none, an
 * UNAUTHENTICATED error (with a reason) when they are present but not valid.
 */
export async function authenticate(
  deps: Pick<ServiceDependencies, 'database' | 'auth'>,
  credentials: Credentials,
  now: Date,
): Promise<Viewer | null> {
  if (credentials.apiKey) {
    const key = await findActiveApiKey(deps.database.db, credentials.apiKey);
    const [owner] = await deps.database.db.select({ role: users.role }).from(users).where(eq(users.id, key.userId));
    if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > API_KEY_TOUCH_INTERVAL_MS) {
      await deps.database.db.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, key.id));
    }
    return { userId: key.userId, role: owner!.role, sessionId: null, apiKeyId: key.id };
  }
  if (!credentials.bearerToken) return null;
  const claims = await verifyAccessToken(deps.auth.secret, credentials.bearerToken, now).catch((error: unknown) => {
    throw unauthenticated(error instanceof TokenError ? error.reason : 'TOKEN_INVALID', 'The access token is not valid');
  });
  // Checking the session makes sign-out and reuse revocation take effect at once.
  const [session] = await deps.database.db
    .select({ revokedAt: refreshTokens.revokedAt })
    .from(refreshTokens)
    .where(eq(refreshTokens.id, claims.sessionId));
  if (!session || session.revokedAt) throw unauthenticated('SESSION_REVOKED', 'The session has ended; sign in again');
  return { userId: claims.userId, role: claims.role, sessionId: claims.sessionId, apiKeyId: null };
}

async function findActiveApiKey(db: Db, apiKey: string): Promise<ApiKeyRow> {
  if (!isWellFormedApiKey(apiKey)) throw unauthenticated('API_KEY_MALFORMED', 'The API key is malformed');
  const [key] = await db.select().from(apiKeys).where(eq(apiKeys.keyHash, hashApiKey(apiKey)));
  if (!key) throw unauthenticated('API_KEY_INVALID', 'The API key is not valid');
  if (!key.isActive) throw unauthenticated('API_KEY_REVOKED', 'The API key has been revoked');
  return key;
}

const DEFAULT_PREFERENCES = Object.fromEntries(NOTIFICATION_PREFERENCE_KEYS.map((key) => [key, true])) as NotificationPreferences;

/** The user of a wallet; created with a generated username and default settings on first sign-in. */
async function findOrCreateWalletUser(db: Db, walletAddress: string, now: Date): Promise<UserRow> {
  const base = `user_${walletAddress.slice(0, 8)}`.replace(/[^A-Za-z0-9_]/g, '');
  const [created] = await db
    .insert(users)
    .values({
      walletAddress,
      // A random suffix keeps generated usernames unique without a retry loop.
      username: `${base}_${randomBytes(3).toString('hex')}`,
      role: 'USER',
      lastSeenAt: now,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing({ target: users.walletAddress })
    .returning();
  if (created) {
    await db.insert(settings).values({ userId: created.id, notificationPreferences: DEFAULT_PREFERENCES, createdAt: now, updatedAt: now });
    return created;
  }
  const [existing] = await db
    .update(users)
    .set({ lastSeenAt: now })
    .where(eq(users.walletAddress, walletAddress))
    .returning();
  return existing!;
}

async function openSession(db: Db, auth: AuthConfig, user: UserRow, now: Date): Promise<Session> {
  const version = bs58.encode(randomBytes(12));
  const expiresAt = new Date(now.getTime() + auth.refreshTokenTtlSeconds * 1000);
  const [session] = await db
    .insert(refreshTokens)
    .values({ userId: user.id, version, expiresAt, createdAt: now, updatedAt: now })
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

