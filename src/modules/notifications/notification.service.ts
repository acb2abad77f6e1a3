import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { DomainEvent } from '../events/events.js';

/** The notification types an on-chain event produces; each is also a preference key. */
export type EventNotificationType = 'REWARD_CLAIMED' | 'REFUND_CLAIMED' | 'STREAK_REWARD_RECEIVED';

/**
 * Writes a notification for `userId` in one statement, only if the user's preferences allow
 * it: `is_notifications_enabled` is the master switch and the type's own key gates the type
 * (a user without a settings row has the defaults, all true). Run it inside the database
 * transaction of the change it reports, so the two commit together. Returns the event that
 * announces the rows written (none when the preferences refused).
 */
export async function notifyIfAllowed(
  db: Db,
  n: { userId: string; type: EventNotificationType; title: string; message: string; data: Record<string, unknown>; now: Date },
): Promise<DomainEvent[]> {
  const written = await db.execute(sql`
    INSERT INTO notifications (user_id, title, message, type, data, created_at, updated_at)
    SELECT ${n.userId}::uuid, ${n.title}, ${n.message}, ${n.type}::notification_type, ${JSON.stringify(n.data)}::jsonb, ${n.now.toISOString()}::timestamptz, ${n.now.toISOString()}::timestamptz
    WHERE COALESCE((
      SELECT (s.notification_preferences->>'is_notifications_enabled')::boolean
         AND (s.notification_preferences->>${n.type})::boolean
      FROM settings s WHERE s.user_id = ${n.userId}
    ), true)
    RETURNING id`);
  const ids = rowsOf<{ id: string }>(written).map((row) => row.id);
  return ids.length ? [{ type: 'notificationsCreated', notifications: ids.map((id) => ({ userId: n.userId, id })) }] : [];
}

/** Rows a raw statement returned, across postgres.js (an array) and PGlite ({ rows }). */
function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}
