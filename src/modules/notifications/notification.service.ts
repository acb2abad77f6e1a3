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

/** Rows a raw statement returned, across postgres.js (an array) and PGlite ({ rows }). */
function rowCount(result: unknown): number {
  if (Array.isArray(result)) return result.length;
  return (result as { rows?: unknown[] }).rows?.length ?? 0;
}
