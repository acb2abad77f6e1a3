import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, isWellFormedApiKey } from '../../src/modules/auth/api-keys.js';
import { WindowRateLimiter } from '../../src/modules/auth/rate-limit.js';
import { formatSignInMessage, parseSignInMessage } from '../../src/modules/auth/siws.js';

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
    for (const broken of [`${text}\n`, text.replace('Version: 1', 'Version: 2'), text.replace('Nonce: ', 'Nonce:'), text.replace('\n\n', '\n'), 'hello']) {
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
    const limiter = new WindowRateLimiter(3, 60_000, () => now);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([null, null, null]);
    expect(limiter.take('a')).toBe(60);
    expect(limiter.take('b')).toBeNull();
    now = 45_000;
    expect(limiter.take('a')).toBe(15);
    now = 60_000;
    expect(limiter.take('a')).toBeNull();
  });
});
