import { and, count, eq, getTableName, sql } from 'drizzle-orm';
import { apiKeys, refreshTokens, users, type ApiKeyRow } from '../../../schema/index.js';
import { type Database, type Db, resultRows } from '../../db/client.js';
import { AppError } from '../../errors.js';
import { requireText } from '../common/input.js';
import type { ServiceContext } from '../context.js';
import { parseId } from '../common/ids.js';
import { generateApiKey, hashApiKey, isWellFormedApiKey } from './api-keys.js';
import { unauthenticated } from './session.service.js';
import { requireViewer } from './viewer.js';

export const MAX_ACTIVE_API_KEYS = 5;

export interface CreatedApiKey {
  apiKey: string;
  key: ApiKeyRow;
}

/**
 * Creates an API key; the raw key is returned here once and never again. A key minted by the
 * holder of another key (with the key itself, or with a session opened with it) is recorded
 * as minted by that key, and ends when it is revoked (see {@link revokeApiKey}).
 */
export async function createApiKey(ctx: ServiceContext, name: string): Promise<CreatedApiKey> {
  const viewer = requireViewer(ctx.viewer);
  const trimmed = requireText(name, 'name', 64);
  const apiKey = generateApiKey();
  const key = await ctx.database.db.transaction(async (tx) => {
    const db = tx as unknown as Db;
    // Lock the owner so concurrent creations cannot pass the limit together.
    await db.select({ id: users.id }).from(users).where(eq(users.id, viewer.userId)).for('update');
    const mintedByApiKeyId = viewer.apiKeyId ?? (viewer.sessionId ? await keyOfSession(db, viewer.sessionId) : null);
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
      .values({
        userId: viewer.userId,
        name: trimmed,
        keyHash: hashApiKey(apiKey),
        mintedByApiKeyId,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      })
      .returning();
    return row!;
  });
  return { apiKey, key };
}

/** The API key a session was opened with; null for a wallet session. */
async function keyOfSession(db: Db, sessionId: string): Promise<string | null> {
  const [session] = await db.select({ apiKeyId: refreshTokens.apiKeyId }).from(refreshTokens).where(eq(refreshTokens.id, sessionId));
  return session?.apiKeyId ?? null;
}

/**
 * Revokes a key and everything its holder opened with it, in one transaction: the keys
 * minted under it (recursively, active or not, so a chain is cut wherever it is revoked),
 * and the sessions opened with any of them, whose access tokens are refused from the next
 * request (the session row is read at every one) and whose refresh tokens no longer rotate.
 * Each revoked key and session is announced, so the sockets opened with them close on every
 * replica. Returns the key named, with isActive false.
 */
export async function revokeApiKey(ctx: ServiceContext, id: string): Promise<ApiKeyRow> {
  const viewer = requireViewer(ctx.viewer);
  const keyId = parseId(id, 'id');
  const [key] = await ctx.database.db.select().from(apiKeys).where(eq(apiKeys.id, keyId));
  if (!key || (key.userId !== viewer.userId && viewer.role !== 'ADMIN')) throw new AppError('NOT_FOUND', 'No such API key');
  return ctx.database.db.transaction(async (tx) => {
    const t = tx as unknown as Db;
    const lineage = sql`WITH RECURSIVE lineage(id) AS (
        SELECT ${keyId}::uuid
        UNION SELECT k.id FROM api_keys k JOIN lineage l ON k.minted_by_api_key_id = l.id
      )`;
    const keys = resultRows<{ id: string }>(
      await t.execute(sql`${lineage}
        UPDATE api_keys SET is_active = false, updated_at = ${ctx.now.toISOString()}::timestamptz
        WHERE id IN (SELECT id FROM lineage) AND is_active RETURNING id`),
    );
    const sessions = resultRows<{ id: string }>(
      await t.execute(sql`${lineage}
        UPDATE refresh_tokens SET revoked_at = ${ctx.now.toISOString()}::timestamptz, revoked_reason = 'API_KEY_REVOKED',
          updated_at = ${ctx.now.toISOString()}::timestamptz
        WHERE api_key_id IN (SELECT id FROM lineage) AND revoked_at IS NULL RETURNING id`),
    );
    await ctx.events.publishIn(t, [
      ...keys.map(({ id: apiKeyId }) => ({ type: 'apiKeyRevoked' as const, apiKeyId })),
      ...sessions.map(({ id: sessionId }) => ({ type: 'sessionRevoked' as const, sessionId })),
    ]);
    const [revoked] = await t.select().from(apiKeys).where(eq(apiKeys.id, keyId));
    return revoked!;
  });
}

/** An active API key, with its owner's role. */
export interface ActiveApiKey {
  id: string;
  userId: string;
  lastUsedAt: Date | null;
  role: 'USER' | 'ADMIN';
}

/**
 * A key by its hash, whether it is active, and its owner's role: read at every request made
 * with a key, so one fixed prepared statement of the read path (planned once per connection).
 */
const API_KEY_BY_HASH =
  `SELECT k."${apiKeys.id.name}" AS "id", k."${apiKeys.userId.name}" AS "userId", k."${apiKeys.isActive.name}" AS "isActive", ` +
  `k."${apiKeys.lastUsedAt.name}" AS "lastUsedAt", u."${users.role.name}"::text AS "role" ` +
  `FROM "${getTableName(apiKeys)}" k JOIN "${getTableName(users)}" u ON u."${users.id.name}" = k."${apiKeys.userId.name}" ` +
  `WHERE k."${apiKeys.keyHash.name}" = $1`;

/** The active key `apiKey` hashes to, with its owner's role; UNAUTHENTICATED (with a reason) otherwise. */
export async function findActiveApiKey(database: Pick<Database, 'query'>, apiKey: string): Promise<ActiveApiKey> {
  if (!isWellFormedApiKey(apiKey)) throw unauthenticated('API_KEY_MALFORMED', 'The API key is malformed');
  const [key] = await database.query<ActiveApiKey & { isActive: boolean; lastUsedAt: Date | string | null }>(API_KEY_BY_HASH, [
    hashApiKey(apiKey),
  ]);
  if (!key) throw unauthenticated('API_KEY_INVALID', 'The API key is not valid');
  if (!key.isActive) throw unauthenticated('API_KEY_REVOKED', 'The API key has been revoked');
  return { id: key.id, userId: key.userId, lastUsedAt: key.lastUsedAt === null ? null : new Date(key.lastUsedAt), role: key.role };
}
