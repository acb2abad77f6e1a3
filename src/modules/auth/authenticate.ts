import { eq, getTableName } from 'drizzle-orm';
import { apiKeys, refreshTokens, users } from '../../../schema/index.js';
import type { ServiceDependencies } from '../context.js';
import { findActiveApiKey } from './api-key.service.js';
import { unauthenticated } from './session.service.js';
import { TokenError, verifyAccessToken } from './tokens.js';
import type { Viewer } from './viewer.js';

/** last_used_at of an API key is refreshed at most this often, so reads do not each write. */
const API_KEY_TOUCH_INTERVAL_MS = 60_000;

/**
 * A session's owner, role and whether it was revoked: read at every signed-in request, so
 * written once as a prepared statement of the read path (planned once per connection),
 * not built by the query builder and planned again at every request.
 */
const SESSION_CHECK =
  `SELECT t."${refreshTokens.userId.name}" AS "userId", t."${refreshTokens.revokedAt.name}" IS NOT NULL AS "revoked", u."${users.role.name}"::text AS "role" ` +
  `FROM "${getTableName(refreshTokens)}" t JOIN "${getTableName(users)}" u ON u."${users.id.name}" = t."${refreshTokens.userId.name}" ` +
  `WHERE t."${refreshTokens.id.name}" = $1::uuid`;

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
    const key = await findActiveApiKey(deps.database, credentials.apiKey);
    if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > API_KEY_TOUCH_INTERVAL_MS) {
      await deps.database.db.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, key.id));
    }
    return { userId: key.userId, role: key.role, sessionId: null, apiKeyId: key.id };
  }
  if (!credentials.bearerToken) return null;
  const claims = await verifyAccessToken(deps.auth.secret, credentials.bearerToken, now).catch((error: unknown) => {
    throw unauthenticated(error instanceof TokenError ? error.reason : 'TOKEN_INVALID', 'The access token is not valid');
  });
  // The session row, not the token, says whose it is and with which role: a token signed
  // with the key but naming another user or role is refused, and sign-out, reuse revocation
  // and role changes take effect at once.
  const [session] = await deps.database.query<{ userId: string; revoked: boolean; role: string }>(SESSION_CHECK, [claims.sessionId]);
  if (!session || session.revoked) throw unauthenticated('SESSION_REVOKED', 'The session has ended; sign in again');
  if (session.userId !== claims.userId || session.role !== claims.role) {
    throw unauthenticated('SESSION_MISMATCH', 'The access token does not match its session; sign in again');
  }
  return { userId: claims.userId, role: claims.role, sessionId: claims.sessionId, apiKeyId: null };
}
