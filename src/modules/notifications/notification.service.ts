import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';

/** The notification types an on-chain event produces; each is also a preference key. */
export type EventNotificationType = 'REWARD_CLAIMED' | 'REFUND_CLAIMED' | 'STREAK_REWARD_RECEIVED';

/**
 * Writes a notification for `userId` in one statement, only if the user's preferences allow
 * it: `is_notifications_enabled` is the master switch and the type's own key gates the type
 * (a user without a settings row has the defaults, all true). Run it inside the database
 * transaction of the change it reports, so the two commit together. Returns rows written.
 */
export async function notifyIfAllowed(
  db: Db,
  n: { userId: string; type: EventNotificationType; title: string; message: string; data: Record<string, unknown>; now: Date },
): Promise<number> {
  const written = await db.execute(sql`
    INSERT INTO notifications (user_id, title, message, type, data, created_at, updated_at)
    SELECT ${n.userId}::uuid, ${n.title}, ${n.message}, ${n.type}::notification_type, ${JSON.stringify(n.data)}::jsonb, ${n.now.toISOString()}::timestamptz, ${n.now.toISOString()}::timestamptz
    WHERE COALESCE((
      SELECT (s.notification_preferences->>'is_notifications_enabled')::boolean
         AND (s.notification_preferences->>${n.type})::boolean
      FROM settings s WHERE s.user_id = ${n.userId}
    ), true)
    RETURNING id`);
  return rowCount(written);
}

/** The notification types a pool's resolution produces: what became claimable, and by whom. */
export type ResolutionNotificationType = 'REWARD_AVAILABLE' | 'REFUND_AVAILABLE' | 'STREAK_REWARD_AVAILABLE';

/**
 * The preference key that gates each resolution notification besides the master switch:
 * a user who does not want to hear of claimed rewards does not want to hear of claimable ones.
 */
export const PREFERENCE_KEY_OF: Record<ResolutionNotificationType, EventNotificationType> = {
  REWARD_AVAILABLE: 'REWARD_CLAIMED',
  REFUND_AVAILABLE: 'REFUND_CLAIMED',
  STREAK_REWARD_AVAILABLE: 'STREAK_REWARD_RECEIVED',
};

/**
 * Writes a POOL_CREATED notification for every user whose master switch
 * (`is_notifications_enabled`) is on, in one INSERT ... SELECT whatever the number of users
 * (POOL_CREATED has no preference key of its own; a user without settings has the defaults).
 * `data` must carry `poolId`: subscribers find the broadcast rows by type and `data->>'poolId'`.
 * Run it inside the transaction that creates the pool. Returns rows written.
 */
export async function notifyAllUsersOfPool(
  db: Db,
  n: { title: string; message: string; data: { poolId: string } & Record<string, unknown>; now: Date },
): Promise<number> {
  const now = n.now.toISOString();
  const written = await db.execute(sql`
    INSERT INTO notifications (user_id, title, message, type, data, created_at, updated_at)
    SELECT u.id, ${n.title}, ${n.message}, 'POOL_CREATED'::notification_type, ${JSON.stringify(n.data)}::jsonb, ${now}::timestamptz, ${now}::timestamptz
    FROM users u LEFT JOIN settings s ON s.user_id = u.id
    WHERE COALESCE((s.notification_preferences->>'is_notifications_enabled')::boolean, true)`);
  return affectedRows(written);
}

/**
 * Writes one notification of `type` per entry, in one statement however many entries there
 * are, skipping users whose preferences refuse it (the master switch and the type's key of
 * PREFERENCE_KEY_OF; no settings row means the defaults, all true). Run it inside the
 * transaction of the change it reports. Returns the rows written, for the
 * `notificationsCreated` event.
 */
export async function notifyEachIfAllowed(
  db: Db,
  type: ResolutionNotificationType,
  entries: ReadonlyArray<{ userId: string; title: string; message: string; data: Record<string, unknown> }>,
  now: Date,
): Promise<Array<{ userId: string; id: string }>> {
  if (entries.length === 0) return [];
  const at = now.toISOString();
  const records = JSON.stringify(entries.map((e) => ({ user_id: e.userId, title: e.title, message: e.message, data: e.data })));
  const written = await db.execute(sql`
    INSERT INTO notifications (user_id, title, message, type, data, created_at, updated_at)
    SELECT x.user_id, x.title, x.message, ${type}::notification_type, x.data, ${at}::timestamptz, ${at}::timestamptz
    FROM jsonb_to_recordset(${records}::jsonb) AS x(user_id uuid, title text, message text, data jsonb)
    LEFT JOIN settings s ON s.user_id = x.user_id
    WHERE COALESCE((s.notification_preferences->>'is_notifications_enabled')::boolean
               AND (s.notification_preferences->>${PREFERENCE_KEY_OF[type]})::boolean, true)
    RETURNING id, user_id`);
  return resultRows<{ id: string; user_id: string }>(written).map((row) => ({ userId: row.user_id, id: row.id }));
}

/** Rows a raw statement returned, across postgres.js (an array) and PGlite ({ rows }). */
export function resultRows<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}

/** Rows a raw statement wrote, across postgres.js (`count`) and PGlite (`affectedRows`). */
function affectedRows(result: unknown): number {
  const r = result as { count?: number; affectedRows?: number };
  return r.count ?? r.affectedRows ?? 0;
}

/** Rows a raw statement returned, across postgres.js (an array) and PGlite ({ rows }). */
function rowCount(result: unknown): number {
  if (Array.isArray(result)) return result.length;
  return (result as { rows?: unknown[] }).rows?.length ?? 0;
}
