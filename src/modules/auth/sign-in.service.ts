import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { and, eq, gt, isNull, lte } from 'drizzle-orm';
import { apiKeys, DEFAULT_NOTIFICATION_PREFERENCES, settings, signInChallenges, users, type UserRow } from '../../../schema/index.js';
import type { AuthConfig } from '../../config.js';
import type { Db } from '../../db/client.js';
import { AppError, badInput } from '../../errors.js';
import type { ServiceContext, ServiceDependencies } from '../context.js';
import { findActiveApiKey } from './api-key.service.js';
import { decodeAddress, decodeSignature, verifyEd25519 } from './ed25519.js';
import { type LimiterFactory, memoryLimiters } from '../common/limiter.js';
import { openSession, type Session, unauthenticated } from './session.service.js';
import { formatSignInMessage, parseSignInMessage, SIGN_IN_STATEMENT } from './siws.js';

/** How far in the future a signed message's issue time may lie (clock skew between hosts). */
const CLOCK_SKEW_MS = 60_000;

export function createSignInLimits(auth: AuthConfig, limiters: LimiterFactory = memoryLimiters): ServiceDependencies['signInLimits'] {
  return {
    perAddress: limiters('signInPerAddress', auth.signInAttemptsPerMinute.perAddress, 60_000),
    perClient: limiters('signInPerClient', auth.signInAttemptsPerMinute.perClient, 60_000),
  };
}

/**
 * Counts a sign-in attempt against the client's budget and against the budget of this
 * wallet address from this client. The wallet's budget is kept per client so that a
 * stranger spending it elsewhere cannot lock the wallet's owner out; forging a signature
 * is not a guessing game a wider budget would need to stop.
 */
async function countSignInAttempt(ctx: ServiceContext, walletAddress: string): Promise<void> {
  const wait =
    (await ctx.signInLimits.perClient.consume(ctx.clientAddress)).retryAfterSeconds ??
    (await ctx.signInLimits.perAddress.consume(`${walletAddress} ${ctx.clientAddress}`)).retryAfterSeconds;
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
  await countSignInAttempt(ctx, walletAddress);
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
  // Expired challenges can never be signed: each issue sweeps them (an index range scan),
  // so the table holds at most one TTL's worth of challenges.
  await ctx.database.db.delete(signInChallenges).where(lte(signInChallenges.expiresAt, ctx.now));
  await ctx.database.db.insert(signInChallenges).values({ nonce, walletAddress, message, expiresAt, createdAt: ctx.now });
  return { message, nonce, expiresAt };
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
  await countSignInAttempt(ctx, input.walletAddress);
  const message = parseSignInMessage(input.message);
  if (!message) throw unauthenticated('MESSAGE_INVALID', 'The message is not a sign-in message of this service');
  if (message.domain !== ctx.auth.domain)
    throw unauthenticated('DOMAIN_MISMATCH', `The message is for ${message.domain}, not ${ctx.auth.domain}`);
  if (message.address !== input.walletAddress) throw unauthenticated('ADDRESS_MISMATCH', 'The message names another wallet address');
  const signature = decodeSignature(input.signature);
  if (!signature || !verifyEd25519(new TextEncoder().encode(input.message), signature, publicKey)) {
    throw unauthenticated('SIGNATURE_INVALID', 'The signature does not match the message and wallet address');
  }
  if (message.expirationTime.getTime() <= ctx.now.getTime())
    throw unauthenticated('CHALLENGE_EXPIRED', 'The challenge has expired; request a new one');
  if (message.issuedAt.getTime() > ctx.now.getTime() + CLOCK_SKEW_MS)
    throw unauthenticated('MESSAGE_INVALID', 'The message is issued in the future');

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

/** Exchanges an API key for a session, which lives only as long as the key: revoking the key ends it. */
export async function signInWithApiKey(ctx: ServiceContext, apiKey: string): Promise<Session> {
  await countSignInAttempt(ctx, `api-key:${apiKey.slice(0, 12)}`);
  const key = await findActiveApiKey(ctx.database, apiKey);
  return ctx.database.db.transaction(async (tx) => {
    const db = tx as unknown as Db;
    const [user] = await db.select().from(users).where(eq(users.id, key.userId));
    await db.update(apiKeys).set({ lastUsedAt: ctx.now }).where(eq(apiKeys.id, key.id));
    return openSession(db, ctx.auth, user!, ctx.now, key.id);
  });
}

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
    await db
      .insert(settings)
      .values({ userId: created.id, notificationPreferences: DEFAULT_NOTIFICATION_PREFERENCES, createdAt: now, updatedAt: now });
    return created;
  }
  const [existing] = await db.update(users).set({ lastSeenAt: now }).where(eq(users.walletAddress, walletAddress)).returning();
  return existing!;
}
