import { sql } from 'drizzle-orm';
import { type AnyPgColumn, boolean, check, index, jsonb, pgEnum, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { at, id, timestamps } from './columns.js';
import { users } from './users.js';

/** Exactly the preference keys of the interface; every one defaults to true. */
export const NOTIFICATION_PREFERENCE_KEYS = [
  'is_notifications_enabled',
  'is_email_notifications_enabled',
  'is_push_notifications_enabled',
  'is_email_subscribe_popup_dismissed',
  'REWARD_CLAIMED',
  'REFUND_CLAIMED',
  'STREAK_REWARD_RECEIVED',
] as const;
export type NotificationPreferenceKey = (typeof NOTIFICATION_PREFERENCE_KEYS)[number];
export type NotificationPreferences = Record<NotificationPreferenceKey, boolean>;
/** The preferences of a user who set none: every key true. */
export const DEFAULT_NOTIFICATION_PREFERENCES: Readonly<NotificationPreferences> = Object.freeze(
  Object.fromEntries(NOTIFICATION_PREFERENCE_KEYS.map((key) => [key, true])) as NotificationPreferences,
);

export const settings = pgTable(
  'settings',
  {
    id: id(),
    ...timestamps(),
    userId: uuid('user_id')
      .notNull()
      .unique()
      .references(() => users.id, { onDelete: 'cascade' }),
    notificationPreferences: jsonb('notification_preferences').$type<NotificationPreferences>().notNull(),
  },
  (t) => [check('settings_preferences_is_object', sql`jsonb_typeof(${t.notificationPreferences}) = 'object'`)],
);

/**
 * POOL_CREATED and the *_CLAIMED / *_RECEIVED kinds are the interface's; the *_AVAILABLE
 * kinds announce what a pool's resolution made claimable (the interface allows more values).
 */
export const notificationType = pgEnum('notification_type', [
  'POOL_CREATED',
  'REWARD_CLAIMED',
  'REFUND_CLAIMED',
  'STREAK_REWARD_RECEIVED',
  'REWARD_AVAILABLE',
  'REFUND_AVAILABLE',
  'STREAK_REWARD_AVAILABLE',
]);

export const notifications = pgTable(
  'notifications',
  {
    id: id(),
    ...timestamps(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    message: text('message').notNull(),
    type: notificationType('type').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    readAt: at('read_at'),
  },
  (t) => [
    index('notifications_user_id_created_at_id_idx').on(t.userId, t.createdAt, t.id),
    index('notifications_user_id_unread_idx')
      .on(t.userId)
      .where(sql`${t.readAt} IS NULL`),
  ],
);

export const devicePlatform = pgEnum('device_platform', ['WEB', 'IOS', 'ANDROID']);

export const deviceTokens = pgTable(
  'device_tokens',
  {
    id: id(),
    ...timestamps(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    token: text('token').notNull().unique(),
    platform: devicePlatform('platform').notNull(),
  },
  (t) => [index('device_tokens_user_id_idx').on(t.userId)],
);

/**
 * A session: one row per sign-in, rotated in place. The refresh token a client holds is a
 * signed claim of (session id, version); the row keeps only the version, so a leaked table
 * yields no usable token. Presenting a version other than the current one means a token
 * was replayed after rotation, and the whole session is revoked.
 */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    id: id(),
    ...timestamps(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Rotation counter of the session; the token carries it and must match. */
    version: text('version').notNull(),
    /** The version before the last rotation, honoured briefly so racing refreshes do not revoke. */
    previousVersion: text('previous_version'),
    rotatedAt: at('rotated_at'),
    expiresAt: at('expires_at').notNull(),
    revokedAt: at('revoked_at'),
    revokedReason: text('revoked_reason'),
    /** The API key a session was opened with (signInWithApiKey); revoking the key ends the session. */
    apiKeyId: uuid('api_key_id').references((): AnyPgColumn => apiKeys.id, { onDelete: 'cascade' }),
  },
  (t) => [
    index('refresh_tokens_user_id_idx').on(t.userId),
    index('refresh_tokens_api_key_id_idx')
      .on(t.apiKeyId)
      .where(sql`${t.apiKeyId} IS NOT NULL`),
  ],
);

/** Single-use sign-in challenges (Sign-In With Solana style messages). */
export const signInChallenges = pgTable(
  'sign_in_challenges',
  {
    nonce: text('nonce').primaryKey(),
    createdAt: at('created_at').notNull().defaultNow(),
    walletAddress: text('wallet_address').notNull(),
    message: text('message').notNull(),
    expiresAt: at('expires_at').notNull(),
    consumedAt: at('consumed_at'),
  },
  (t) => [index('sign_in_challenges_expires_at_idx').on(t.expiresAt)],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: id(),
    ...timestamps(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Only a hash of the key is stored; the raw key is shown once at creation. */
    keyHash: text('key_hash').notNull().unique(),
    isActive: boolean('is_active').notNull().default(true),
    lastUsedAt: at('last_used_at'),
    /**
     * The key whose holder minted this one (with the key itself or a session opened with it);
     * revoking a key revokes every key minted under it, so a key's holder cannot outlive it.
     */
    mintedByApiKeyId: uuid('minted_by_api_key_id').references((): AnyPgColumn => apiKeys.id, { onDelete: 'cascade' }),
  },
  (t) => [
    index('api_keys_user_id_active_idx').on(t.userId, t.isActive),
    index('api_keys_minted_by_api_key_id_idx')
      .on(t.mintedByApiKeyId)
      .where(sql`${t.mintedByApiKeyId} IS NOT NULL`),
  ],
);

export type SettingsRow = typeof settings.$inferSelect;
export type NotificationRow = typeof notifications.$inferSelect;
export type NewNotificationRow = typeof notifications.$inferInsert;
export type DeviceTokenRow = typeof deviceTokens.$inferSelect;
export type RefreshTokenRow = typeof refreshTokens.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type SignInChallengeRow = typeof signInChallenges.$inferSelect;
