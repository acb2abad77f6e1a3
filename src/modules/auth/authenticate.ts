import { eq, getTableName } from 'drizzle-orm';
import { apiKeys, refreshTokens, users } from '../../../schema/index.js';
import type { Database } from '../../db/client.js';
import type { FirstStatementCheck } from '../../db/statement-scope.js';
import type { ServiceDependencies } from '../context.js';
import { findActiveApiKey } from './api-key.service.js';
import { unauthenticated } from './session.service.js';
import { type AccessClaims, TokenError, verifyAccessToken } from './tokens.js';
import type { Viewer } from './viewer.js';

/** last_used_at of an API key is refreshed at most this often, so reads do not each write. */
const API_KEY_TOUCH_INTERVAL_MS = 60_000;

/**
 * The row that says whose a session is, with which role, and whether it was revoked, for the
 * session id `sessionId` (SQL: a placeholder); no row when there is no such session. Read at
 * every signed-in request: alone as a prepared statement of the read path ({@link
 * confirmSession}), or folded into a rendered read's statement ({@link sessionGuard}).
 */
const sessionRowSql = (sessionId: string) =>
  `SELECT t."${refreshTokens.userId.name}" AS "userId", t."${refreshTokens.revokedAt.name}" IS NOT NULL AS "revoked", u."${users.role.name}"::text AS "role" ` +
  `FROM "${getTableName(refreshTokens)}" t JOIN "${getTableName(users)}" u ON u."${users.id.name}" = t."${refreshTokens.userId.name}" ` +
  `WHERE t."${refreshTokens.id.name}" = ${sessionId}`;

const SESSION_CHECK = sessionRowSql('$1::uuid');

/** A session's row as {@link sessionRowSql} reads it; `userId` null (or no row) when there is no such session. */
export interface SessionRow {
  userId: string | null;
  revoked: boolean | null;
  role: string | null;
}

export interface Credentials {
  bearerToken: string | null;
  apiKey: string | null;
}

/** Whether a request gave any credentials: without, it is anonymous and there is nothing to check. */
export const hasCredentials = (credentials: Credentials) => Boolean(credentials.apiKey || credentials.bearerToken);

/**
 * Resolves a request's credentials to its viewer (null when there are none; an
 * UNAUTHENTICATED error, with a reason, when they are present but not valid), short of a
 * bearer token's session: an API key is checked in full, an access token's signature and
 * expiry. `session` is then the session the token names, which the caller must confirm
 * ({@link confirmSession}, or a statement guarded by {@link sessionGuard}) before anything
 * relies on the viewer.
 */
export async function verifyCredentials(
  deps: Pick<ServiceDependencies, 'database' | 'auth'>,
  credentials: Credentials,
  now: Date,
): Promise<{ viewer: Viewer | null; session: AccessClaims | null }> {
  if (credentials.apiKey) {
    const key = await findActiveApiKey(deps.database, credentials.apiKey);
    if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > API_KEY_TOUCH_INTERVAL_MS) {
      await deps.database.db.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, key.id));
    }
    return { viewer: { userId: key.userId, role: key.role, sessionId: null, apiKeyId: key.id }, session: null };
  }
  if (!credentials.bearerToken) return { viewer: null, session: null };
  const claims = await verifyAccessToken(deps.auth.secret, credentials.bearerToken, now).catch((error: unknown) => {
    throw unauthenticated(error instanceof TokenError ? error.reason : 'TOKEN_INVALID', 'The access token is not valid');
  });
  return { viewer: { userId: claims.userId, role: claims.role, sessionId: claims.sessionId, apiKeyId: null }, session: claims };
}

/** Reads the session an access token names and judges it ({@link judgeSession}). */
export async function confirmSession(database: Database, claims: AccessClaims): Promise<void> {
  const [row] = await database.query<SessionRow>(SESSION_CHECK, [claims.sessionId]);
  judgeSession(claims, row);
}

/**
 * Throws UNAUTHENTICATED unless the session row is open and is the token's: the session
 * row, not the token, says whose it is and with which role, so a token signed with the key
 * but naming another user or role is refused, and sign-out, reuse revocation and role
 * changes take effect at once.
 */
export function judgeSession(claims: AccessClaims, row: SessionRow | undefined): void {
  if (!row || row.userId === null || row.revoked) throw unauthenticated('SESSION_REVOKED', 'The session has ended; sign in again');
  if (row.userId !== claims.userId || row.role !== claims.role) {
    throw unauthenticated('SESSION_MISMATCH', 'The access token does not match its session; sign in again');
  }
}

/**
 * The session check folded into another statement (StatementScope.checkWithFirstStatement):
 * the statement reads the session row beside its own rows, and computes them only where the
 * session is open and the token's, so an ended session costs the lookup alone. The caller
 * judges the row it read with {@link judgeSession}.
 */
export function sessionGuard(claims: AccessClaims): Omit<FirstStatementCheck, 'judge'> {
  return { write: writeSessionGuard, values: [claims.sessionId, claims.userId, claims.role] };
}

function writeSessionGuard(param: (type: string) => string): { row: string; holds: string } {
  const [sessionId, userId, role] = [param('uuid'), param('uuid'), param('text')];
  return { row: sessionRowSql(sessionId), holds: `g."userId" = ${userId} AND g."role" = ${role} AND NOT g."revoked"` };
}
