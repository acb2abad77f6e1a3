import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, numeric, pgEnum, pgTable, smallint, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { at, id, timestamps, tsvector } from './columns.js';
import { streaks } from './streaks.js';
import { images, users } from './users.js';

export const poolStatus = pgEnum('pool_status', ['ACTIVE', 'PREDICTIONS_FROZEN', 'CLAIMS_FROZEN', 'FROZEN']);
export const poolUnit = pgEnum('pool_unit', ['USD']);

/**
 * Text configuration of pool search. 'simple' lower-cases and splits words without
 * language stemming, so every word prefix matches and PGlite and Postgres agree exactly.
 */
export const SEARCH_CONFIG = 'simple';

export const pools = pgTable(
  'pools',
  {
    id: id(),
    ...timestamps(),
    createdBy: uuid('created_by')
      .notNull()
      .references(() => users.id, { onDelete: 'restrict' }),
    imageId: uuid('image_id').references(() => images.id, { onDelete: 'set null' }),
    streakId: uuid('streak_id').references(() => streaks.id, { onDelete: 'set null' }),
    title: text('title').notNull(),
    description: text('description').notNull(),
    poolAccount: text('pool_account').notNull().unique(),
    resolutionSource: text('resolution_source').notNull(),
    unit: poolUnit('unit').notNull().default('USD'),
    /** Amounts are integer base units of the stake mint; `decimals` converts them. */
    minStake: bigint('min_stake', { mode: 'bigint' }).notNull(),
    maxStake: bigint('max_stake', { mode: 'bigint' }).notNull(),
    maxRoi: numeric('max_roi', { mode: 'number' }).notNull(),
    stakeTokenMint: text('stake_token_mint').notNull(),
    decimals: smallint('decimals').notNull(),
    minOutcome: numeric('min_outcome', { mode: 'number' }).notNull(),
    maxOutcome: numeric('max_outcome', { mode: 'number' }).notNull(),
    /** Decimal places of a predicted value. */
    precision: smallint('precision').notNull(),
    step: numeric('step', { mode: 'number' }).notNull(),
    predictionStartDate: at('prediction_start_date').notNull(),
    predictionEndDate: at('prediction_end_date').notNull(),
    referenceDate: at('reference_date').notNull(),
    status: poolStatus('status').notNull().default('ACTIVE'),
    isClosed: boolean('is_closed').notNull().default(false),
    indexedPredictionUpdateCount: integer('indexed_prediction_update_count').notNull().default(0),
    platformFeeRate: numeric('platform_fee_rate', { mode: 'number' }).notNull(),
    totalVolume: bigint('total_volume', { mode: 'bigint' })
      .notNull()
      .default(sql`0`),
    searchVector: tsvector('search_vector')
      .notNull()
      .generatedAlwaysAs(sql`to_tsvector('simple', title || ' ' || description)`),
  },
  (t) => [
    index('pools_prediction_end_date_id_idx').on(t.predictionEndDate, t.id),
    index('pools_created_at_id_idx').on(t.createdAt, t.id),
    index('pools_total_volume_id_idx').on(t.totalVolume, t.id),
    index('pools_streak_id_created_at_id_idx').on(t.streakId, t.createdAt, t.id),
    index('pools_created_by_created_at_id_idx').on(t.createdBy, t.createdAt, t.id),
    index('pools_reference_date_idx').on(t.referenceDate),
    index('pools_image_id_idx').on(t.imageId),
    index('pools_status_window_idx').on(t.status, t.predictionStartDate, t.predictionEndDate),
    index('pools_search_vector_idx').using('gin', t.searchVector),
    check('pools_stake_bounds', sql`${t.minStake} > 0 AND ${t.maxStake} >= ${t.minStake}`),
    check('pools_outcome_bounds', sql`${t.minOutcome} < ${t.maxOutcome}`),
    check('pools_step_positive', sql`${t.step} > 0`),
    check('pools_decimals_range', sql`${t.decimals} BETWEEN 0 AND 18`),
    check('pools_precision_range', sql`${t.precision} BETWEEN 0 AND 18`),
    check('pools_date_order', sql`${t.predictionStartDate} < ${t.predictionEndDate} AND ${t.predictionEndDate} <= ${t.referenceDate}`),
    check('pools_total_volume_nonnegative', sql`${t.totalVolume} >= 0`),
    check('pools_update_count_nonnegative', sql`${t.indexedPredictionUpdateCount} >= 0`),
    check('pools_fee_rate_range', sql`${t.platformFeeRate} >= 0 AND ${t.platformFeeRate} < 1`),
    check('pools_max_roi_positive', sql`${t.maxRoi} > 0`),
  ],
);

export const resolutions = pgTable(
  'resolutions',
  {
    id: id(),
    ...timestamps(),
    poolId: uuid('pool_id')
      .notNull()
      .unique()
      .references(() => pools.id, { onDelete: 'cascade' }),
    result: numeric('result', { mode: 'number' }).notNull(),
    /** Amounts are base units of the pool's stake mint, copied here so they convert alone. */
    decimals: smallint('decimals').notNull(),
    protocolFee: bigint('protocol_fee', { mode: 'bigint' }).notNull(),
    leftover: bigint('leftover', { mode: 'bigint' }).notNull(),
    median: numeric('median', { mode: 'number' }).notNull(),
  },
  (t) => [check('resolutions_amounts_nonnegative', sql`${t.protocolFee} >= 0 AND ${t.leftover} >= 0`)],
);

export const predictions = pgTable(
  'predictions',
  {
    id: id(),
    ...timestamps(),
    poolId: uuid('pool_id')
      .notNull()
      .references(() => pools.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    poolAccount: text('pool_account').notNull(),
    predictorAccount: text('predictor_account').notNull(),
    predictionAccount: text('prediction_account').notNull().unique(),
    prediction: numeric('prediction', { mode: 'number' }).notNull(),
    precision: smallint('precision').notNull(),
    stakeTokenMint: text('stake_token_mint').notNull(),
    stake: bigint('stake', { mode: 'bigint' }).notNull(),
    decimals: smallint('decimals').notNull(),
    lastAppliedValueRevision: integer('last_applied_value_revision').notNull().default(0),
    lastAppliedStakeRevision: integer('last_applied_stake_revision').notNull().default(0),
    isFeePayer: boolean('is_fee_payer').notNull().default(true),
    isClosed: boolean('is_closed').notNull().default(false),
    bump: smallint('bump').notNull(),
    lastSyncAt: at('last_sync_at'),
  },
  (t) => [
    index('predictions_pool_id_created_at_id_idx').on(t.poolId, t.createdAt, t.id),
    index('predictions_user_id_created_at_id_idx').on(t.userId, t.createdAt, t.id),
    // One prediction per user and pool (ALREADY_PREDICTED is this constraint's error).
    uniqueIndex('predictions_pool_id_user_id_key').on(t.poolId, t.userId),
    check('predictions_stake_positive', sql`${t.stake} > 0`),
    check('predictions_revisions_nonnegative', sql`${t.lastAppliedValueRevision} >= 0 AND ${t.lastAppliedStakeRevision} >= 0`),
    check('predictions_bump_range', sql`${t.bump} BETWEEN 0 AND 255`),
  ],
);

export const rewardType = pgEnum('reward_type', ['REWARD', 'REFUND']);

export const rewards = pgTable(
  'rewards',
  {
    id: id(),
    ...timestamps(),
    predictionId: uuid('prediction_id')
      .notNull()
      .unique()
      .references(() => predictions.id, { onDelete: 'cascade' }),
    /** Base units of the pool's stake mint, whose decimals are copied here so it converts alone. */
    decimals: smallint('decimals').notNull(),
    amount: bigint('amount', { mode: 'bigint' }).notNull(),
    precisionScore: numeric('precision_score', { mode: 'number' }).notNull(),
    isClaimed: boolean('is_claimed').notNull().default(false),
    type: rewardType('type').notNull().default('REWARD'),
  },
  (t) => [
    check('rewards_amount_nonnegative', sql`${t.amount} >= 0`),
    check('rewards_precision_score_range', sql`${t.precisionScore} >= 0 AND ${t.precisionScore} <= 1`),
  ],
);

export type PoolRow = typeof pools.$inferSelect;
export type NewPoolRow = typeof pools.$inferInsert;
export type ResolutionRow = typeof resolutions.$inferSelect;
export type NewResolutionRow = typeof resolutions.$inferInsert;
export type PredictionRow = typeof predictions.$inferSelect;
export type NewPredictionRow = typeof predictions.$inferInsert;
export type RewardRow = typeof rewards.$inferSelect;
export type NewRewardRow = typeof rewards.$inferInsert;
