import { sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import * as t from '../../schema/index.js';
import type { Database, Db } from '../db/client.js';
import type { PoolSeed, RewardSeed, StreakRewardSeed, StreakSeed, UserSeed } from './model.js';
import { rebuildDerivedTables } from '../modules/derived-tables.js';

const INSERT_CHUNK = 500;

/** Every row the seeder made, as the stages left them. */
export interface DemoRows {
  users: UserSeed[];
  images: t.NewImageRow[];
  avatars: Array<{ id: string; avatarId: string }>;
  settings: Array<typeof t.settings.$inferInsert>;
  streaks: StreakSeed[];
  pools: PoolSeed[];
  predictions: t.NewPredictionRow[];
  resolutions: t.NewResolutionRow[];
  rewards: RewardSeed[];
  userStreaks: t.NewUserStreakRow[];
  streakRewards: StreakRewardSeed[];
  referralCodes: t.NewReferralCodeRow[];
  redemptions: t.NewReferralRedemptionRow[];
  notifications: t.NewNotificationRow[];
  deviceTokens: Array<typeof t.deviceTokens.$inferInsert>;
}

/** Writes everything in one transaction, tables in foreign-key order. */
export async function writeDemoRows(database: Database, rows: DemoRows): Promise<void> {
  const {
    users,
    images,
    avatars,
    settings,
    streaks,
    pools,
    predictions,
    resolutions,
    rewards,
    userStreaks,
    streakRewards,
    referralCodes,
    redemptions,
    notifications,
    deviceTokens,
  } = rows;
  await database.db.transaction(async (tx) => {
    const db = tx as unknown as Db;
    // Users and images reference each other: users first without avatars, then set them.
    await insertAll(
      db,
      t.users,
      users.map((u) => ({ ...u.row, avatarId: null })),
    );
    await insertAll(db, t.images, images);
    for (let i = 0; i < avatars.length; i += INSERT_CHUNK) {
      const values = avatars.slice(i, i + INSERT_CHUNK).map((a) => sql`(${a.id}::uuid, ${a.avatarId}::uuid)`);
      await db.execute(
        sql`update ${t.users} set avatar_id = v.avatar_id from (values ${sql.join(values, sql`, `)}) as v(id, avatar_id) where ${t.users.id} = v.id`,
      );
    }
    await insertAll(db, t.settings, settings);
    // Streaks and pools reference each other too (last_processed_pool_id).
    await insertAll(
      db,
      t.streaks,
      streaks.map((s) => ({ ...s.row, lastProcessedPoolId: null })),
    );
    await insertAll(
      db,
      t.pools,
      pools.map((p) => p.row),
    );
    const processed = streaks.filter((s) => s.row.lastProcessedPoolId);
    if (processed.length) {
      const values = processed.map((s) => sql`(${s.row.id}::uuid, ${s.row.lastProcessedPoolId}::uuid)`);
      const from = sql`from (values ${sql.join(values, sql`, `)}) as v(id, pool_id)`;
      await db.execute(sql`update ${t.streaks} set last_processed_pool_id = v.pool_id ${from} where ${t.streaks.id} = v.id`);
    }
    await insertAll(db, t.predictions, predictions);
    await insertAll(db, t.resolutions, resolutions);
    await insertAll(
      db,
      t.rewards,
      rewards.map(({ prediction: _p, pool: _pool, ...row }) => row),
    );
    await insertAll(db, t.userStreaks, userStreaks);
    await insertAll(
      db,
      t.streakRewards,
      streakRewards.map(({ streak: _s, userId: _u, ...row }) => row),
    );
    await insertAll(db, t.referralCodes, referralCodes);
    await insertAll(db, t.referralRedemptions, redemptions);
    await insertAll(db, t.notifications, notifications);
    await insertAll(db, t.deviceTokens, deviceTokens);
    // Rewards and redemptions were written directly, so the aggregates built from them are too.
    await rebuildDerivedTables(db);
  });
}

async function insertAll<TTable extends PgTable>(db: Db, table: TTable, rows: ReadonlyArray<TTable['$inferInsert']>): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await db.insert(table).values(rows.slice(i, i + INSERT_CHUNK) as TTable['$inferInsert'][]);
  }
}
