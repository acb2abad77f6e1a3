import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
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
    /** How many users may redeem the code; null = any number. */
    maxUses: integer('max_uses'),
    /** Redemptions so far, counted where they are written so max_uses holds under concurrency. */
    redemptionCount: integer('redemption_count').notNull().default(0),
    expiresAt: at('expires_at'),
    /** Set by the operator's deactivation: the code can no longer be redeemed. */
    deactivatedAt: at('deactivated_at'),
  },
  (t) => [
    index('referral_codes_user_id_idx').on(t.userId),
    check('referral_codes_code_format', sql`${t.code} ~ '^[A-Z0-9]{4,32}$'`),
    check('referral_codes_max_uses_positive', sql`${t.maxUses} IS NULL OR ${t.maxUses} > 0`),
    check(
      'referral_codes_uses_within_max',
      sql`${t.redemptionCount} >= 0 AND (${t.maxUses} IS NULL OR ${t.redemptionCount} <= ${t.maxUses})`,
    ),
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
