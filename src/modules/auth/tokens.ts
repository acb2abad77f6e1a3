import { errors, jwtVerify, SignJWT } from 'jose';
import { deriveKey, KEY_LABELS } from '../../keys.js';

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
    if (payload.typ !== type || typeof payload.sub !== 'string' || typeof payload.sid !== 'string') {
      throw new TokenError('TOKEN_INVALID');
    }
    return payload;
  } catch (error) {
    if (error instanceof TokenError) throw error;
    throw new TokenError(error instanceof errors.JWTExpired ? 'TOKEN_EXPIRED' : 'TOKEN_INVALID');
  }
}

export async function verifyAccessToken(secret: Uint8Array, token: string, now: Date): Promise<AccessClaims> {
  const payload = await verifyToken(secret, token, 'access', now);
  if (payload.role !== 'USER' && payload.role !== 'ADMIN') throw new TokenError('TOKEN_INVALID');
  return { userId: payload.sub!, role: payload.role, sessionId: payload.sid as string };
}

export async function verifyRefreshToken(secret: Uint8Array, token: string, now: Date): Promise<RefreshClaims> {
  const payload = await verifyToken(secret, token, 'refresh', now);
  if (typeof payload.ver !== 'string') throw new TokenError('TOKEN_INVALID');
  return { userId: payload.sub!, sessionId: payload.sid as string, version: payload.ver };
}
