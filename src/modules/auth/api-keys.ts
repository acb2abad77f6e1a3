import { createHash, randomBytes } from 'node:crypto';
import bs58 from 'bs58';

/**
 * API keys: `pgk_` + 32 random bytes in base58 + a 6-character checksum. The prefix makes
 * a leaked key recognisable (secret scanners); the checksum rejects typos and garbage
 * without a database lookup. Only a SHA-256 hash is stored.
 */
export const API_KEY_PREFIX = 'pgk_';
const CHECKSUM_LENGTH = 6;

function checksum(body: string): string {
  return bs58.encode(createHash('sha256').update(body).digest()).slice(0, CHECKSUM_LENGTH);
}

export function generateApiKey(): string {
  const body = bs58.encode(randomBytes(32));
  return `${API_KEY_PREFIX}${body}${checksum(body)}`;
}

/** True when `key` has the shape and a valid checksum of a key this service issued. */
export function isWellFormedApiKey(key: string): boolean {
  if (!key.startsWith(API_KEY_PREFIX) || key.length < API_KEY_PREFIX.length + 40 || key.length > 80) return false;
  const rest = key.slice(API_KEY_PREFIX.length);
  const body = rest.slice(0, -CHECKSUM_LENGTH);
  return /^[1-9A-HJ-NP-Za-km-z]+$/.test(rest) && checksum(body) === rest.slice(-CHECKSUM_LENGTH);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
