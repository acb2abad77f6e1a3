import { sql } from 'drizzle-orm';
import { type AnyPgColumn, boolean, check, index, integer, pgEnum, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { at, id, timestamps } from './columns.js';

export const userRole = pgEnum('user_role', ['USER', 'ADMIN']);

export const users = pgTable(
  'users',
  {
    id: id(),
    ...timestamps(),
    lastSeenAt: at('last_seen_at'),
    username: text('username').notNull().unique(),
    hasSeenTour: boolean('has_seen_tour').notNull().default(false),
    role: userRole('role').notNull().default('USER'),
    walletAddress: text('wallet_address').notNull().unique(),
    avatarId: uuid('avatar_id').references((): AnyPgColumn => images.id, { onDelete: 'set null' }),
    email: text('email').unique(),
    twitterUsername: text('twitter_username'),
  },
  (t) => [index('users_avatar_id_idx').on(t.avatarId), check('users_username_format', sql`${t.username} ~ '^[A-Za-z0-9_]{3,32}$'`)],
);

export const images = pgTable(
  'images',
  {
    id: id(),
    ...timestamps(),
    userId: uuid('user_id')
      .notNull()
      .references((): AnyPgColumn => users.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    /** The stored file's size: what the upload counts against its user's storage quota. */
    byteSize: integer('byte_size').notNull().default(0),
  },
  (t) => [index('images_user_id_idx').on(t.userId)],
);

export type UserRow = typeof users.$inferSelect;
export type NewUserRow = typeof users.$inferInsert;
export type ImageRow = typeof images.$inferSelect;
export type NewImageRow = typeof images.$inferInsert;
