import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The service secret (AUTH_SECRET), from which the access-token key and the proof key are
 * derived. A missing or public secret is refused whenever someone other than the local
 * developer can reach what it protects: the server listens beyond loopback, it talks to a
 * real cluster (its proofs move real tokens), or it runs in production. In development on
 * loopback, a random secret is generated on first start and kept, owner-only, in the data
 * directory, so even there no fixed key signs sessions.
 */

/** Public, in the source: accepted only on loopback outside production, and used by test mode. */
export const PUBLIC_DEVELOPMENT_SECRET = 'poolgraph-development-secret-not-for-production-use';
export const MIN_SECRET_LENGTH = 32;
/**
 * The least estimated entropy of a given secret. 32 random hex characters estimate about
 * 112 bits, but the estimate of so short a string spreads: of two million, 27 fell under 90
 * bits and 2 under 85, and the tail thins about tenfold every 5 bits, so 72 refuses about one
 * in a billion of them. `openssl rand -hex 32` estimates about 250. What is plainly not random
 * stays far below: 32 identical characters estimate 0, a word repeated to 32 characters 8, a
 * counted run 2.
 */
export const MIN_SECRET_ENTROPY_BITS = 72;

/** Words that mark a placeholder, an example or a name rather than a random secret. */
const PLACEHOLDER_WORDS = [
  'password',
  'passw0rd',
  'changeme',
  'change-me',
  'change_me',
  'secret',
  'example',
  'default',
  'letmein',
  'qwerty',
  'admin',
  'poolgraph',
  'placeholder',
  'sample',
];

/** Orders in which a run of characters is typed or counted rather than chosen (case folded). */
const SEQUENCES = ['0123456789abcdefghijklmnopqrstuvwxyz', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm'];
/** A run this long (ascending or descending in one of SEQUENCES) counts as one choice. */
const MIN_RUN = 5;

/** Whether `b` follows `a` (`step` 1) or precedes it (-1) in one of SEQUENCES. */
function follows(a: string, b: string, step: 1 | -1): boolean {
  return SEQUENCES.some((sequence) => {
    const at = sequence.indexOf(a);
    return at >= 0 && sequence[at + step] === b;
  });
}

/**
 * The secret as the choices that made it: each run of MIN_RUN or more characters in sequence
 * ("0123", "abcdef", "qwer", either way) is one token, every other character its own; and a
 * sequence of tokens repeating a shorter one is only that one ("Password123Password123").
 */
function choices(secret: string): string[] {
  const text = [...secret.toLowerCase()];
  const tokens: string[] = [];
  let i = 0;
  while (i < text.length) {
    let end = i + 1;
    for (const step of [1, -1] as const) {
      let j = i + 1;
      while (j < text.length && follows(text[j - 1]!, text[j]!, step)) j++;
      if (j - i >= MIN_RUN) end = Math.max(end, j);
    }
    tokens.push(text.slice(i, end).join(''));
    i = end;
  }
  for (let period = 1; period < tokens.length; period++) {
    if (tokens.every((token, index) => index < period || token === tokens[index - period])) return tokens.slice(0, period);
  }
  return tokens;
}

/**
 * An upper estimate of a secret's entropy: the number of choices that made it (see
 * {@link choices}) times the Shannon entropy of their frequencies. It cannot tell a
 * random-looking phrase from a random one, but it refuses what is plainly not random: few
 * distinct characters, one repeated, a counted or typed run, a repeated pattern.
 */
export function estimatedEntropyBits(secret: string): number {
  const tokens = choices(secret);
  const counts = new Map<string, number>();
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  let perToken = 0;
  for (const count of counts.values()) perToken -= (count / tokens.length) * Math.log2(count / tokens.length);
  return perToken * tokens.length;
}

/** The placeholder word `secret` contains, if any (see PLACEHOLDER_WORDS). */
export function placeholderWordIn(secret: string): string | null {
  const folded = secret.toLowerCase();
  return PLACEHOLDER_WORDS.find((word) => folded.includes(word)) ?? null;
}
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', '[::1]', 'localhost']);

export interface SecretSettings {
  mode: 'development' | 'production' | 'test';
  host: string;
  /** SOLANA_RPC_URL: the chain is a real cluster. */
  rpcUrl: string | null;
  /** AUTH_SECRET as given. */
  secret: string | undefined;
  /** AUTH_SECRET_FILE: where development keeps its generated secret; 'memory' = a new one each start. */
  secretFile: string;
}

/** Why a public or missing secret would be unsafe here; empty when nobody else can reach the server. */
function exposures(settings: SecretSettings): string[] {
  const reasons: string[] = [];
  if (settings.mode === 'production') reasons.push('in production');
  if (!LOOPBACK_HOSTS.has(settings.host)) reasons.push(`when HOST (${settings.host}) is not a loopback address`);
  if (settings.rpcUrl) reasons.push('with SOLANA_RPC_URL (a real cluster)');
  return reasons;
}

/** The secret's bytes; every problem is added to `problems` (the caller reports them all at once). */
export function resolveAuthSecret(settings: SecretSettings, problems: string[]): Uint8Array {
  const reasons = exposures(settings);
  const given = settings.secret || null;
  if (given !== null) {
    const word = given === PUBLIC_DEVELOPMENT_SECRET ? null : placeholderWordIn(given);
    if (given.length < MIN_SECRET_LENGTH) problems.push(`AUTH_SECRET must be at least ${MIN_SECRET_LENGTH} characters`);
    else if (word !== null) {
      problems.push(
        `AUTH_SECRET contains "${word}": a placeholder or a phrase, not a random secret; generate one, e.g. \`openssl rand -hex 32\``,
      );
    } else if (estimatedEntropyBits(given) < MIN_SECRET_ENTROPY_BITS) {
      problems.push(
        `AUTH_SECRET is too predictable: about ${Math.floor(estimatedEntropyBits(given))} bits by its characters' frequencies, ` +
          `at least ${MIN_SECRET_ENTROPY_BITS} needed (repeated, counted or few distinct characters); generate one, e.g. \`openssl rand -hex 32\``,
      );
    } else if (given === PUBLIC_DEVELOPMENT_SECRET && reasons.length) {
      problems.push(`AUTH_SECRET is the public development secret, refused ${reasons.join(' and ')}; set a secret of your own`);
    }
    return new TextEncoder().encode(given);
  }
  if (reasons.length) {
    problems.push(
      `AUTH_SECRET is required ${reasons.join(' and ')} (at least ${MIN_SECRET_LENGTH} random characters, e.g. \`openssl rand -hex 32\`)`,
    );
    return new Uint8Array();
  }
  // Tests run many servers (and processes) that must agree on one key without a file.
  if (settings.mode === 'test') return new TextEncoder().encode(PUBLIC_DEVELOPMENT_SECRET);
  if (settings.secretFile === 'memory') return new TextEncoder().encode(randomBytes(32).toString('hex'));
  return loadOrCreateSecretFile(settings.secretFile, problems);
}

function loadOrCreateSecretFile(path: string, problems: string[]): Uint8Array {
  try {
    if (!existsSync(path)) createSecretFile(path);
    if ((statSync(path).mode & 0o077) !== 0) {
      problems.push(`AUTH_SECRET_FILE ${path} is readable by other users; run chmod 600 on it`);
    }
    const secret = readFileSync(path, 'utf8').trim();
    if (secret.length < MIN_SECRET_LENGTH) problems.push(`AUTH_SECRET_FILE ${path} holds fewer than ${MIN_SECRET_LENGTH} characters`);
    return new TextEncoder().encode(secret);
  } catch (error) {
    problems.push(`AUTH_SECRET_FILE ${path} cannot be read or created: ${(error as Error).message}`);
    return new Uint8Array();
  }
}

/** Writes a fresh secret owner-only, published by a hard link so a concurrent start never reads it half-written. */
function createSecretFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temporary, path);
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
}
