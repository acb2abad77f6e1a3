import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { at, id, timestamps } from './columns.js';
import { users } from './users.js';

export const referralCodes = pgTable(
  'referral_codes',
  {
    id: id(),
    ...timestamps(),
    code: text('code').notNull().unique(),
    notes: text('notes'),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
  },
  (t) => [
    index('referral_codes_user_id_idx').on(t.userId),
    check('referral_codes_code_format', sql`${t.code} ~ '^[A-Z0-9]{4,32}$'`),
  ],
);

export const referralRedemptions = pgTable(
  'referral_redemptions',
  {
    id: id(),
    ...timestamps(),
    referralCodeId: uuid('referral_code_id')
      .notNull()
      .references(() => referralCodes.id, { onDelete: 'cascade' }),
    /** A user redeems at most one code, ever. */
    userId: uuid('user_id')
      .notNull()
      .unique()
      .references(() => users.id, { onDelete: 'cascade' }),
    appliedAt: at('applied_at').notNull().defaultNow(),
  },
  (t) => [index('referral_redemptions_referral_code_id_idx').on(t.referralCodeId)],
);

export type ReferralCodeRow = typeof referralCodes.$inferSelect;
export type NewReferralCodeRow = typeof referralCodes.$inferInsert;
export type ReferralRedemptionRow = typeof referralRedemptions.$inferSelect;
export type NewReferralRedemptionRow = typeof referralRedemptions.$inferInsert;
