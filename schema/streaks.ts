import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  boolean,
  check,
  doublePrecision,
  index,
  integer,
  numeric,
  pgEnum,
  pgTable,
  smallint,
  text,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';
import { at, id, timestamps } from './columns.js';
import { pools } from './pools.js';
import { users } from './users.js';

export const streaks = pgTable(
  'streaks',
  {
    id: id(),
    ...timestamps(),
    title: text('title').notNull(),
    streakAccumulatorAccount: text('streak_accumulator_account').notNull().unique(),
    feePercentage: numeric('fee_percentage', { mode: 'number' }).notNull(),
    payoutPercentage: numeric('payout_percentage', { mode: 'number' }).notNull(),
    bump: smallint('bump').notNull(),
    streakCountRequired: integer('streak_count_required').notNull(),
    minPrecisionScoreRequired: numeric('min_precision_score_required', { mode: 'number' }).notNull(),
    /** Amounts are integer base units of the stake mint; `decimals` converts them. */
    decimals: smallint('decimals').notNull().default(6),
    totalAccumulated: bigint('total_accumulated', { mode: 'bigint' })
      .notNull()
      .default(sql`0`),
    availableBalance: bigint('available_balance', { mode: 'bigint' })
      .notNull()
      .default(sql`0`),
    onchainBalance: bigint('onchain_balance', { mode: 'bigint' })
      .notNull()
      .default(sql`0`),
    lastSyncAt: at('last_sync_at'),
    lastProcessedPoolId: uuid('last_processed_pool_id').references((): AnyPgColumn => pools.id, {
      onDelete: 'set null',
    }),
  },
  (t) => [
    index('streaks_created_at_id_idx').on(t.createdAt, t.id),
    check('streaks_fee_percentage_range', sql`${t.feePercentage} >= 0 AND ${t.feePercentage} <= 100`),
    check('streaks_payout_percentage_range', sql`${t.payoutPercentage} > 0 AND ${t.payoutPercentage} <= 100`),
    check('streaks_count_required_positive', sql`${t.streakCountRequired} > 0`),
    check('streaks_bump_range', sql`${t.bump} BETWEEN 0 AND 255`),
    check('streaks_balances_nonnegative', sql`${t.totalAccumulated} >= 0 AND ${t.availableBalance} >= 0 AND ${t.onchainBalance} >= 0`),
    check('streaks_available_within_accumulated', sql`${t.availableBalance} <= ${t.totalAccumulated}`),
  ],
);

export const streakRewards = pgTable(
  'streak_rewards',
  {
    id: id(),
    ...timestamps(),
    streakId: uuid('streak_id')
      .notNull()
      .references(() => streaks.id, { onDelete: 'cascade' }),
    userWalletAddress: text('user_wallet_address')
      .notNull()
      .references(() => users.walletAddress, { onDelete: 'cascade', onUpdate: 'cascade' }),
    amount: bigint('amount', { mode: 'bigint' }).notNull(),
    isClaimed: boolean('is_claimed').notNull().default(false),
  },
  (t) => [
    index('streak_rewards_streak_id_idx').on(t.streakId, t.createdAt, t.id),
    index('streak_rewards_user_streak_idx').on(t.userWalletAddress, t.streakId, t.isClaimed),
    check('streak_rewards_amount_positive', sql`${t.amount} > 0`),
  ],
);

export const lastStreakEvent = pgEnum('last_streak_event', ['NONE', 'QUALIFIED', 'RESET', 'REWARDED']);

/** Per user and streak: the state the streak processor keeps (the streak rule, docs/design.md). */
export const userStreaks = pgTable(
  'user_streaks',
  {
    id: id(),
    ...timestamps(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    streakId: uuid('streak_id')
      .notNull()
      .references(() => streaks.id, { onDelete: 'cascade' }),
    currentStreakCount: integer('current_streak_count').notNull().default(0),
    lastStreakEvent: lastStreakEvent('last_streak_event').notNull().default('NONE'),
    lastPoolParticipatedAt: at('last_pool_participated_at'),
    currentStreakScores: doublePrecision('current_streak_scores')
      .array()
      .notNull()
      .default(sql`'{}'`),
    lastProcessedPoolId: uuid('last_processed_pool_id').references(() => pools.id, { onDelete: 'set null' }),
  },
  (t) => [
    unique('user_streaks_user_streak_key').on(t.userId, t.streakId),
    index('user_streaks_streak_id_idx').on(t.streakId),
    check('user_streaks_count_nonnegative', sql`${t.currentStreakCount} >= 0`),
    check('user_streaks_scores_match_count', sql`cardinality(${t.currentStreakScores}) = ${t.currentStreakCount}`),
  ],
);

export type StreakRow = typeof streaks.$inferSelect;
export type NewStreakRow = typeof streaks.$inferInsert;
export type StreakRewardRow = typeof streakRewards.$inferSelect;
export type NewStreakRewardRow = typeof streakRewards.$inferInsert;
export type UserStreakRow = typeof userStreaks.$inferSelect;
export type NewUserStreakRow = typeof userStreaks.$inferInsert;
