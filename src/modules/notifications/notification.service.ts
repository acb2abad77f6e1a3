import { and, eq, inArray, sql } from 'drizzle-orm';
import {
  deviceTokens,
  type DeviceTokenRow,
  DEFAULT_NOTIFICATION_PREFERENCES,
  type NotificationPreferenceKey,
  type NotificationPreferences,
  type NotificationRow,
  notifications,
  settings,
  type SettingsRow,
} from '../../../schema/index.js';
import { affectedRows, type Db, resultRows } from '../../db/client.js';
import { badInput } from '../../errors.js';
import { assertCanReadPrivate, requireViewer } from '../auth/viewer.js';
import { parseNewestFirstPage } from '../common/loaders.js';
import type { Page, PageArguments } from '../common/pagination.js';
import { isUuid } from '../common/ids.js';
import type { ServiceContext } from '../context.js';
import type { DomainEvent } from '../events/events.js';
import type { NotificationFilter } from './notification.loaders.js';

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
  const written = await notifyEachIfAllowed(db, n.type, [n], n.now);
  return written.length ? [{ type: 'notificationsCreated', notifications: written }] : [];
}

/** The notification types a pool's resolution produces: what became claimable, and by whom. */
export type ResolutionNotificationType = 'REWARD_AVAILABLE' | 'REFUND_AVAILABLE' | 'STREAK_REWARD_AVAILABLE';

/**
 * The preference key that gates each notification type besides the master switch: an
 * event's type is its own key, and a user who does not want to hear of claimed rewards
 * does not want to hear of claimable ones either.
 */
export const PREFERENCE_KEY_OF: Record<EventNotificationType | ResolutionNotificationType, EventNotificationType> = {
  REWARD_CLAIMED: 'REWARD_CLAIMED',
  REFUND_CLAIMED: 'REFUND_CLAIMED',
  STREAK_REWARD_RECEIVED: 'STREAK_REWARD_RECEIVED',
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
  type: EventNotificationType | ResolutionNotificationType,
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

// ---- The viewer's notifications, preferences and devices ---------------------------------

/** The signed-in viewer's unread notifications; UNAUTHENTICATED when signed out. */
export function unreadNotificationCount(ctx: ServiceContext): Promise<number> {
  const viewer = requireViewer(ctx.viewer);
  return ctx.loaders.unreadNotificationCountByUser.load(viewer.userId);
}

/** Most ids one markNotificationsRead call takes. */
export const MAX_MARK_READ_IDS = 100;

/**
 * Marks the viewer's unread notifications among `ids` read, in one statement; returns how
 * many changed. Ids of other users' notifications, unknown ids and notifications already
 * read are ignored, not refused: the result counts only what changed, and the call reveals
 * nothing about notifications that are not the viewer's.
 */
export async function markNotificationsRead(ctx: ServiceContext, ids: readonly string[]): Promise<number> {
  const viewer = requireViewer(ctx.viewer);
  if (ids.length > MAX_MARK_READ_IDS) throw badInput('ids', `ids may name at most ${MAX_MARK_READ_IDS} notifications, got ${ids.length}`);
  const malformed = ids.findIndex((id) => !isUuid(id));
  if (malformed >= 0) throw badInput('ids', `ids[${malformed}] must be a UUID, got ${JSON.stringify(ids[malformed])}`);
  if (ids.length === 0) return 0;
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  return markRead(ctx, viewer.userId, inArray(notifications.id, unique));
}

/** Marks every unread notification of the viewer read, in one statement; returns how many changed. */
export async function markAllNotificationsRead(ctx: ServiceContext): Promise<number> {
  const viewer = requireViewer(ctx.viewer);
  return markRead(ctx, viewer.userId);
}

async function markRead(ctx: ServiceContext, userId: string, onlyThese?: ReturnType<typeof inArray>): Promise<number> {
  const now = ctx.now.toISOString();
  const changed = await ctx.database.db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    const [result] = resultRows<{ changed: number }>(
      await tx.execute(sql`
        WITH changed AS (
          UPDATE ${notifications} SET read_at = ${now}::timestamptz, updated_at = ${now}::timestamptz
          WHERE ${and(eq(notifications.userId, userId), sql`${notifications.readAt} IS NULL`, onlyThese)}
          RETURNING 1
        )
        SELECT count(*)::int AS changed FROM changed`),
    );
    const count = Number(result?.changed ?? 0);
    if (count > 0) await ctx.events.publishIn(tx, [{ type: 'notificationsRead', userId }]);
    return count;
  });
  // Subscribers read the new count once the transaction has committed.
  if (changed > 0) ctx.loaders.unreadNotificationCountByUser.clear(userId);
  return changed;
}

/** The preference keys under their camelCase names (as the GraphQL API spells them). */
export const PREFERENCE_KEYS_BY_FIELD = {
  isNotificationsEnabled: 'is_notifications_enabled',
  isEmailNotificationsEnabled: 'is_email_notifications_enabled',
  isPushNotificationsEnabled: 'is_push_notifications_enabled',
  isEmailSubscribePopupDismissed: 'is_email_subscribe_popup_dismissed',
  rewardClaimed: 'REWARD_CLAIMED',
  refundClaimed: 'REFUND_CLAIMED',
  streakRewardReceived: 'STREAK_REWARD_RECEIVED',
} as const satisfies Record<string, NotificationPreferenceKey>;

// Fails to compile when a preference key of the interface has no field above.
const everyKeyHasAField: Exclude<
  NotificationPreferenceKey,
  (typeof PREFERENCE_KEYS_BY_FIELD)[keyof typeof PREFERENCE_KEYS_BY_FIELD]
> extends never
  ? true
  : never = true;
void everyKeyHasAField;

/** Preference changes: a field that is absent or null stays as it is. */
export type NotificationPreferencesChanges = { [F in keyof typeof PREFERENCE_KEYS_BY_FIELD]?: boolean | null };

/**
 * Changes only the given preferences of the viewer, merged into the stored object in one
 * statement (so concurrent updates of different keys both survive); a viewer without a
 * settings row gets one with the defaults (all true) plus the changes.
 */
export async function updateNotificationPreferences(ctx: ServiceContext, changes: NotificationPreferencesChanges): Promise<SettingsRow> {
  const viewer = requireViewer(ctx.viewer);
  const patch: Partial<NotificationPreferences> = {};
  for (const [field, key] of Object.entries(PREFERENCE_KEYS_BY_FIELD) as Array<
    [keyof NotificationPreferencesChanges, NotificationPreferenceKey]
  >) {
    const value = changes[field];
    if (value != null) patch[key] = value;
  }
  const [row] = await ctx.database.db
    .insert(settings)
    .values({
      userId: viewer.userId,
      notificationPreferences: { ...DEFAULT_NOTIFICATION_PREFERENCES, ...patch },
      createdAt: ctx.now,
      updatedAt: ctx.now,
    })
    .onConflictDoUpdate({
      target: settings.userId,
      set: {
        notificationPreferences: sql`${settings.notificationPreferences} || ${JSON.stringify(patch)}::jsonb`,
        updatedAt: ctx.now,
      },
    })
    .returning();
  ctx.loaders.settingsByUser.clear(viewer.userId).prime(viewer.userId, row!);
  return row!;
}

/**
 * What a push token may look like: APNs (hex), FCM (letters, digits, `-_:`) and web push
 * tokens (base64 or base64url) fit; whitespace, quotes and control characters do not.
 */
export const DEVICE_TOKEN_PATTERN = /^[A-Za-z0-9_\-:.~+/=]{16,1024}$/;

function parseDeviceToken(token: string): string {
  if (!DEVICE_TOKEN_PATTERN.test(token)) {
    throw badInput('token', 'token must be 16 to 1024 letters, digits or the characters - _ : . ~ + / =');
  }
  return token;
}

/**
 * Registers a push token for the viewer; registering it again only updates its platform.
 * A token is one app install, so when another user registers a token already held, it
 * moves to them: the install's previous user no longer receives pushes on it.
 */
export async function registerDeviceToken(
  ctx: ServiceContext,
  token: string,
  platform: DeviceTokenRow['platform'],
): Promise<DeviceTokenRow> {
  const viewer = requireViewer(ctx.viewer);
  const value = parseDeviceToken(token);
  const [row] = await ctx.database.db
    .insert(deviceTokens)
    .values({ userId: viewer.userId, token: value, platform, createdAt: ctx.now, updatedAt: ctx.now })
    .onConflictDoUpdate({ target: deviceTokens.token, set: { userId: viewer.userId, platform, updatedAt: ctx.now } })
    .returning();
  ctx.loaders.deviceTokensByUser.clearAll();
  return row!;
}

/** Removes one of the viewer's push tokens; false when the viewer holds no such token. */
export async function removeDeviceToken(ctx: ServiceContext, token: string): Promise<boolean> {
  const viewer = requireViewer(ctx.viewer);
  const value = parseDeviceToken(token);
  const removed = await ctx.database.db
    .delete(deviceTokens)
    .where(and(eq(deviceTokens.token, value), eq(deviceTokens.userId, viewer.userId)))
    .returning({ id: deviceTokens.id });
  ctx.loaders.deviceTokensByUser.clear(viewer.userId);
  return removed.length > 0;
}

/** A user's notifications, newest first: private, readable by that user and by admins (see users/private.service.ts). */
export function listUserNotifications(
  ctx: ServiceContext,
  userId: string,
  page: PageArguments,
  filter?: NotificationFilter | null,
): Promise<Page<NotificationRow>> {
  assertCanReadPrivate(ctx.viewer, userId, 'notifications');
  return ctx.loaders.notificationsByUser(parseNewestFirstPage(page), filter).load(userId);
}
