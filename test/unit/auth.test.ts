import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { deriveProofSecret } from '../../src/chain/runtime.js';
import type { UserRow } from '../../schema/index.js';
import { AppError } from '../../src/errors.js';
import { generateApiKey, hashApiKey, isWellFormedApiKey } from '../../src/modules/auth/api-keys.js';
import { FixedWindowLimiter } from '../../src/modules/common/fixed-window.js';
import { formatSignInMessage, parseSignInMessage } from '../../src/modules/auth/siws.js';
import { signAccessToken, verifyAccessToken } from '../../src/modules/auth/tokens.js';
import type { Viewer } from '../../src/modules/auth/viewer.js';
import type { ServiceContext } from '../../src/modules/context.js';
import { listUserNotifications } from '../../src/modules/notifications/notification.service.js';
import {
  userApiKeys,
  userDeviceTokens,
  userEmail,
  userReferralCodes,
  userReferralRedemption,
  userSessions,
  userSettings,
} from '../../src/modules/users/private.service.js';

describe('sign-in messages', () => {
  const message = {
    domain: 'poolgraph.test',
    address: 'Fueg659NLa5NuYxziRoaWcNHFZVic6ZiDRuCStqC4wtT',
    statement: 'Sign in.',
    uri: 'https://poolgraph.test',
    version: '1' as const,
    chainId: 'solana',
    nonce: 'abcDEF123456',
    issuedAt: new Date('2026-11-22T10:00:00.000Z'),
    expirationTime: new Date('2026-11-22T10:05:00.000Z'),
  };

  it('parses exactly what it formats', () => {
    expect(parseSignInMessage(formatSignInMessage(message))).toEqual(message);
  });

  it('refuses any other layout', () => {
    const text = formatSignInMessage(message);
    for (const broken of [
      `${text}\n`,
      text.replace('Version: 1', 'Version: 2'),
      text.replace('Nonce: ', 'Nonce:'),
      text.replace('\n\n', '\n'),
      'hello',
    ]) {
      expect(parseSignInMessage(broken)).toBeNull();
    }
  });
});

describe('API keys', () => {
  it('are prefixed, checksummed and distinct; only well-formed keys pass', () => {
    const keys = Array.from({ length: 50 }, generateApiKey);
    expect(new Set(keys).size).toBe(50);
    for (const key of keys) {
      expect(key.startsWith('pgk_')).toBe(true);
      expect(isWellFormedApiKey(key)).toBe(true);
      const last = key.at(-1)!;
      expect(isWellFormedApiKey(key.slice(0, -1) + (last === 'a' ? 'b' : 'a'))).toBe(false);
      expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(isWellFormedApiKey('pgk_short')).toBe(false);
    expect(isWellFormedApiKey(keys[0]!.replace('pgk_', 'xyz_'))).toBe(false);
  });
});

describe('window rate limiter', () => {
  it('allows the limit per key and window, then says how long to wait', () => {
    let now = 0;
    const limiter = new FixedWindowLimiter(3, 60_000, () => now);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([null, null, null]);
    expect(limiter.take('a')).toBe(60);
    expect(limiter.take('b')).toBeNull();
    now = 45_000;
    expect(limiter.take('a')).toBe(15);
    now = 60_000;
    expect(limiter.take('a')).toBeNull();
  });
});

describe('private data, checked in the service layer', () => {
  const ownerId = '00000000-0000-4000-8000-000000000001';
  const owner = { id: ownerId, email: 'owner@example.com' } as UserRow;
  const viewer = (userId: string, role: Viewer['role']): Viewer => ({ userId, role, sessionId: 'session', apiKeyId: null });

  /** A context whose loaders only record what was loaded. */
  function contextOf(signedIn: Viewer | null) {
    const loaded: string[] = [];
    const loader = (name: string) => ({ load: (key: string) => (loaded.push(`${name}:${key}`), Promise.resolve(null)) });
    const loaders = new Proxy({}, { get: (_, name) => (name === 'notificationsByUser' ? () => loader(name) : loader(String(name))) });
    return { ctx: { viewer: signedIn, loaders } as unknown as ServiceContext, loaded };
  }

  const reads: Record<string, (ctx: ServiceContext) => unknown> = {
    email: (ctx) => userEmail(ctx, owner),
    settings: (ctx) => userSettings(ctx, ownerId),
    notifications: (ctx) => listUserNotifications(ctx, ownerId, { first: 5 }),
    deviceTokens: (ctx) => userDeviceTokens(ctx, ownerId),
    refreshTokens: (ctx) => userSessions(ctx, ownerId),
    apiKeys: (ctx) => userApiKeys(ctx, ownerId),
    referralRedemption: (ctx) => userReferralRedemption(ctx, ownerId),
    createdReferralCodes: (ctx) => userReferralCodes(ctx, ownerId),
  };

  it.each(Object.keys(reads))('refuses %s to anyone but its user and admins, before loading anything', async (field) => {
    for (const stranger of [null, viewer('00000000-0000-4000-8000-000000000002', 'USER')]) {
      const { ctx, loaded } = contextOf(stranger);
      let thrown: unknown;
      try {
        await reads[field]!(ctx);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(AppError);
      expect(thrown).toMatchObject({ code: 'FORBIDDEN', message: `${field} is private to its user` });
      expect(loaded).toEqual([]);
    }
    for (const allowed of [viewer(ownerId, 'USER'), viewer('00000000-0000-4000-8000-000000000003', 'ADMIN')]) {
      const { ctx, loaded } = contextOf(allowed);
      const result = await reads[field]!(ctx);
      if (field === 'email') expect(result).toBe('owner@example.com');
      else expect(loaded).toEqual([expect.stringMatching(new RegExp(`:${ownerId}$`))]);
    }
  });
});

describe('the access-token key', () => {
  const secret = new TextEncoder().encode('a-service-secret-of-at-least-32-characters');
  const claims = {
    userId: '11111111-1111-4111-8111-111111111111',
    role: 'USER' as const,
    sessionId: '22222222-2222-4222-8222-222222222222',
  };
  const expiresAt = new Date(Date.now() + 60_000);
  const forge = (key: Uint8Array) =>
    new SignJWT({ role: 'ADMIN', sid: claims.sessionId, typ: 'access' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('poolgraph')
      .setSubject(claims.userId)
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(key);

  it('is derived from the secret, so neither the raw secret nor the proof key signs a token it accepts', async () => {
    const token = await signAccessToken(secret, claims, expiresAt);
    await expect(verifyAccessToken(secret, token, new Date())).resolves.toEqual(claims);
    await expect(verifyAccessToken(secret, await forge(secret), new Date())).rejects.toMatchObject({ reason: 'TOKEN_INVALID' });
    await expect(verifyAccessToken(secret, await forge(deriveProofSecret(secret)), new Date())).rejects.toMatchObject({
      reason: 'TOKEN_INVALID',
    });
  });

  it('is verified once per token text, and its expiry is checked again at every use', async () => {
    const expires = new Date(Math.floor(Date.now() / 1000) * 1000 + 5_000);
    const token = await signAccessToken(secret, claims, expires);
    await expect(verifyAccessToken(secret, token, new Date(expires.getTime() - 2_000))).resolves.toEqual(claims);
    await expect(verifyAccessToken(secret, token, new Date(expires.getTime() - 1_000))).resolves.toEqual(claims);
    await expect(verifyAccessToken(secret, token, expires)).rejects.toMatchObject({ reason: 'TOKEN_EXPIRED' });
    // Under another secret the same text is verified anew, and refused.
    const other = new TextEncoder().encode('another-service-secret-of-32-characters!');
    await expect(verifyAccessToken(other, token, new Date(expires.getTime() - 2_000))).rejects.toMatchObject({ reason: 'TOKEN_INVALID' });
    // A tampered copy (its claims changed, the signature kept) is a text never verified.
    const [header, , signature] = token.split('.');
    const payload = Buffer.from(
      JSON.stringify({
        role: 'ADMIN',
        sid: claims.sessionId,
        typ: 'access',
        iss: 'poolgraph',
        sub: claims.userId,
        exp: expires.getTime() / 1000,
      }),
    ).toString('base64url');
    await expect(verifyAccessToken(secret, `${header}.${payload}.${signature}`, new Date())).rejects.toMatchObject({
      reason: 'TOKEN_INVALID',
    });
  });
});
