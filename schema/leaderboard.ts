import { sql } from 'drizzle-orm';
import { bigint, check, date, index, integer, numeric, pgTable, primaryKey, smallint, text, uuid } from 'drizzle-orm/pg-core';
import { users } from './users.js';

/**
 * What the leaderboard ranks, kept current by pool resolution (one upsert per resolved
 * pool), so no request scans predictions. Only REWARD payouts count: a refunded pool was
 * called off, so it neither wins nor scores. Amounts are base units of the stake mint.
 */
const standing = {
  /** Sum of reward payouts. */
  payout: bigint('payout', { mode: 'bigint' })
    .notNull()
    .default(sql`0`),
  /** Sum of the stakes of the rewarded predictions. */
  staked: bigint('staked', { mode: 'bigint' })
    .notNull()
    .default(sql`0`),
  /** Sum of precision scores, and how many predictions they cover. */
  scoreSum: numeric('score_sum', { mode: 'string' }).notNull().default('0'),
  scoredCount: integer('scored_count').notNull().default(0),
  decimals: smallint('decimals').notNull(),
};

/** One row per user and day (UTC) of resolution: the DAY, WEEK and MONTH windows sum these. */
export const leaderboardDaily = pgTable(
  'leaderboard_daily',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    ...standing,
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.day] }),
    index('leaderboard_daily_day_idx').on(t.day),
    check('leaderboard_daily_count_positive', sql`${t.scoredCount} > 0`),
  ],
);

/**
 * One row per user over all time (the ALL window), indexed in each metric's board order
 * (best first, ties by user id), so a page of the board reads its own entries and no others.
 */
export const leaderboardTotals = pgTable(
  'leaderboard_totals',
  {
    userId: uuid('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    ...standing,
  },
  (t) => [
    index('leaderboard_totals_payout_idx').on(t.payout.desc().nullsFirst(), t.userId),
    index('leaderboard_totals_precision_idx').on(sql`(${t.scoreSum} / ${t.scoredCount}) DESC`, t.userId),
    check('leaderboard_totals_count_positive', sql`${t.scoredCount} > 0`),
  ],
);

/**
 * How many users the ALL board ranks (the rows of leaderboard_totals), in its one row, kept
 * by triggers on that table (migration 0012): the board's size without counting it.
 */
export const leaderboardSize = pgTable('leaderboard_size', {
  users: integer('users').notNull(),
});

/**
 * The windowed boards (DAY, WEEK, MONTH): how many days each covers, the UTC day its kept
 * totals (leaderboard_window_totals) are as of, and how many users they rank (kept by
 * triggers on that table, migration 0013). A window's totals as of a day sum the daily rows
 * of the `days` days ending with it; `as_of` is null until the first read builds them.
 */
export const leaderboardWindows = pgTable('leaderboard_windows', {
  period: text('period').primaryKey(),
  days: integer('days').notNull(),
  asOf: date('as_of', { mode: 'string' }),
  users: integer('users').notNull().default(0),
});

/**
 * One row per window and user: the window's daily rows summed as of its day, indexed like
 * leaderboard_totals within each window, so a windowed board's page is read as the ALL
 * board's is. Resolution adds to the windows its days fall in; a window's first read on
 * another day brings it to that day (leaderboard-aggregate.ts).
 */
export const leaderboardWindowTotals = pgTable(
  'leaderboard_window_totals',
  {
    period: text('period')
      .notNull()
      .references(() => leaderboardWindows.period),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    ...standing,
  },
  (t) => [
    primaryKey({ columns: [t.period, t.userId] }),
    index('leaderboard_window_totals_payout_idx').on(t.period, t.payout.desc().nullsFirst(), t.userId),
    index('leaderboard_window_totals_precision_idx').on(t.period, sql`(${t.scoreSum} / ${t.scoredCount}) DESC`, t.userId),
    check('leaderboard_window_totals_count_positive', sql`${t.scoredCount} > 0`),
  ],
);

export type LeaderboardDailyRow = typeof leaderboardDaily.$inferSelect;
export type LeaderboardTotalsRow = typeof leaderboardTotals.$inferSelect;
