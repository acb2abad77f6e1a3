import { errors, jwtVerify, SignJWT } from 'jose';
import { deriveKey, KEY_LABELS } from '../../keys.js';
import { isUuid } from '../common/ids.js';

/**
 * Access and refresh tokens: compact JWTs signed with HS256 by the access-token key, which is
 * derived from the service's secret under its own label (the proof key has another), so a
 * key leaked from one job signs nothing for the other.
 * An access token names the user, role and session for a few minutes; a refresh token
 * names a session and its rotation version. Neither is ever stored.
 */
const ISSUER = 'poolgraph';
const ALGORITHM = 'HS256';

const derivedKeys = new WeakMap<Uint8Array, Uint8Array>();

/** The access-token key of a service secret (derived once per secret). */
export function accessTokenKey(serviceSecret: Uint8Array): Uint8Array {
  let key = derivedKeys.get(serviceSecret);
  if (!key) {
    key = deriveKey(serviceSecret, KEY_LABELS.accessToken);
    derivedKeys.set(serviceSecret, key);
  }
  return key;
}

export interface AccessClaims {
  userId: string;
  role: 'USER' | 'ADMIN';
  sessionId: string;
}

export interface RefreshClaims {
  userId: string;
  sessionId: string;
  version: string;
}

export type TokenProblem = 'TOKEN_EXPIRED' | 'TOKEN_INVALID';

export class TokenError extends Error {
  constructor(readonly reason: TokenProblem) {
    super(reason === 'TOKEN_EXPIRED' ? 'The token has expired' : 'The token is not valid');
  }
}

/** A token of the user `subject` carrying `payload`, signed with the access-token key; the two kinds differ by `typ`. */
function signToken(secret: Uint8Array, payload: Record<string, unknown>, subject: string, expiresAt: Date): Promise<string> {
  return new SignJWT(payload)
    .setProtectedHeader({ alg: ALGORITHM })
    .setIssuer(ISSUER)
    .setSubject(subject)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(accessTokenKey(secret));
}

export async function signAccessToken(secret: Uint8Array, claims: AccessClaims, expiresAt: Date): Promise<string> {
  return signToken(secret, { role: claims.role, sid: claims.sessionId, typ: 'access' }, claims.userId, expiresAt);
}

export async function signRefreshToken(secret: Uint8Array, claims: RefreshClaims, expiresAt: Date): Promise<string> {
  return signToken(secret, { sid: claims.sessionId, ver: claims.version, typ: 'refresh' }, claims.userId, expiresAt);
}

async function verifyToken(secret: Uint8Array, token: string, type: 'access' | 'refresh', now: Date) {
  try {
    const { payload } = await jwtVerify(token, accessTokenKey(secret), { issuer: ISSUER, algorithms: [ALGORITHM], currentDate: now });
    // The ids are read as UUIDs by the session check: a signed token naming anything else is refused here, not there.
    if (
      payload.typ !== type ||
      typeof payload.sub !== 'string' ||
      typeof payload.sid !== 'string' ||
      !isUuid(payload.sub) ||
      !isUuid(payload.sid)
    ) {
      throw new TokenError('TOKEN_INVALID');
    }
    return payload;
  } catch (error) {
    if (error instanceof TokenError) throw error;
    throw new TokenError(error instanceof errors.JWTExpired ? 'TOKEN_EXPIRED' : 'TOKEN_INVALID');
  }
}

/** The most verified access tokens remembered per secret (a few hundred bytes each); past it the oldest is forgotten. */
export const VERIFIED_ACCESS_TOKENS = 10_000;

/** Access tokens whose signature and claims were checked, per secret, with their expiry (seconds since the epoch). */
const verifiedAccessTokens = new WeakMap<Uint8Array, Map<string, { claims: AccessClaims; expiresAt: number }>>();

/**
 * The claims of a valid access token. A client sends the same token with every request for
 * its lifetime, and checking its signature (jose, through WebCrypto: a key import and an
 * HMAC job per call) was a fifth of a signed-in request's Node time; so a token once
 * verified is remembered by its exact text, whose signature the text carries, and only its
 * expiry is checked again, against `now`, as jose checks it. Only the token is remembered:
 * its session is still read at every request (authenticate.ts), so sign-out and
 * revocation take effect at once.
 */
export async function verifyAccessToken(secret: Uint8Array, token: string, now: Date): Promise<AccessClaims> {
  let verified = verifiedAccessTokens.get(secret);
  if (!verified) verifiedAccessTokens.set(secret, (verified = new Map()));
  const known = verified.get(token);
  if (known) {
    if (known.expiresAt <= Math.floor(now.getTime() / 1000)) throw new TokenError('TOKEN_EXPIRED');
    return { ...known.claims };
  }
  const payload = await verifyToken(secret, token, 'access', now);
  if (payload.role !== 'USER' && payload.role !== 'ADMIN') throw new TokenError('TOKEN_INVALID');
  const claims: AccessClaims = { userId: payload.sub!, role: payload.role, sessionId: payload.sid as string };
  // A token without an expiry, or not valid before some time, is checked in full every time.
  if (typeof payload.exp === 'number' && payload.nbf === undefined) {
    if (verified.size >= VERIFIED_ACCESS_TOKENS) verified.delete(verified.keys().next().value!);
    verified.set(token, { claims: { ...claims }, expiresAt: payload.exp });
  }
  return claims;
}

export async function verifyRefreshToken(secret: Uint8Array, token: string, now: Date): Promise<RefreshClaims> {
  const payload = await verifyToken(secret, token, 'refresh', now);
  if (typeof payload.ver !== 'string') throw new TokenError('TOKEN_INVALID');
  return { userId: payload.sub!, sessionId: payload.sid as string, version: payload.ver };
}
