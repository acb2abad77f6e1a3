import { getTableColumns, getTableName, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import * as t from '../../schema/index.js';
import type { Database, Db } from '../db/client.js';
import type { PoolSeed, RewardSeed, SeedOptions, StreakRewardSeed, StreakSeed, UserSeed } from './model.js';
import { rebuildDerivedTables } from '../modules/derived-tables.js';

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

/**
 * Writes everything in one transaction, tables in foreign-key order, in batches of
 * WRITE_BATCH rows: each batch is one statement whose one parameter is the batch as JSON,
 * unpacked by `json_populate_recordset` into the table's own column types. One statement
 * per batch whatever its width, the same on Postgres and PGlite, and no parameter limit.
 */
export async function writeDemoRows(database: Database, rows: DemoRows, onProgress?: SeedOptions['onProgress']): Promise<void> {
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
    const write = <TTable extends PgTable>(table: TTable, tableRows: ReadonlyArray<TTable['$inferInsert']>) =>
      insertAll(db, table, tableRows, onProgress);
    // Users and images reference each other: users first without avatars, then set them.
    await write(
      t.users,
      users.map((u) => ({ ...u.row, avatarId: null })),
    );
    await write(t.images, images);
    for (let i = 0; i < avatars.length; i += WRITE_BATCH) {
      const batch = JSON.stringify(avatars.slice(i, i + WRITE_BATCH));
      await db.execute(
        sql`update ${t.users} set avatar_id = v."avatarId" from json_to_recordset(${batch}::json) as v(id uuid, "avatarId" uuid) where ${t.users.id} = v.id`,
      );
    }
    await write(t.settings, settings);
    // Streaks and pools reference each other too (last_processed_pool_id).
    await write(
      t.streaks,
      streaks.map((s) => ({ ...s.row, lastProcessedPoolId: null })),
    );
    await write(
      t.pools,
      pools.map((p) => p.row),
    );
    const processed = streaks.filter((s) => s.row.lastProcessedPoolId).map((s) => ({ id: s.row.id, poolId: s.row.lastProcessedPoolId }));
    for (let i = 0; i < processed.length; i += WRITE_BATCH) {
      const batch = JSON.stringify(processed.slice(i, i + WRITE_BATCH));
      await db.execute(
        sql`update ${t.streaks} set last_processed_pool_id = v."poolId" from json_to_recordset(${batch}::json) as v(id uuid, "poolId" uuid) where ${t.streaks.id} = v.id`,
      );
    }
    await write(t.predictions, predictions);
    await write(t.resolutions, resolutions);
    await write(
      t.rewards,
      rewards.map(({ prediction: _p, pool: _pool, ...row }) => row),
    );
    await write(t.userStreaks, userStreaks);
    await write(
      t.streakRewards,
      streakRewards.map(({ streak: _s, userId: _u, ...row }) => row),
    );
    await write(t.referralCodes, referralCodes);
    await write(t.referralRedemptions, redemptions);
    await write(t.notifications, notifications);
    await write(t.deviceTokens, deviceTokens);
    // Rewards and redemptions were written directly, so the aggregates built from them are too.
    onProgress?.({ stage: 'derived tables', done: 0, total: 1 });
    await rebuildDerivedTables(db);
    onProgress?.({ stage: 'derived tables', done: 1, total: 1 });
  });
}

/** Rows per statement: about a MB of JSON. */
const WRITE_BATCH = 2_000;

/**
 * Inserts `rows` into `table` in batches. Every row must give the same columns (the
 * seeder's do): a column left out of one row would be NULL there, not its default.
 */
async function insertAll<TTable extends PgTable>(
  db: Db,
  table: TTable,
  rows: ReadonlyArray<TTable['$inferInsert']>,
  onProgress?: SeedOptions['onProgress'],
): Promise<void> {
  if (!rows.length) return;
  const stage = getTableName(table);
  const given = new Set<string>();
  for (const row of rows) for (const [key, value] of Object.entries(row)) if (value !== undefined) given.add(key);
  const columns = Object.entries(getTableColumns(table)).filter(([key]) => given.has(key));
  const names = sql.join(
    columns.map(([, column]) => sql.identifier(column.name)),
    sql`, `,
  );
  for (let i = 0; i < rows.length; i += WRITE_BATCH) {
    const batch = rows.slice(i, i + WRITE_BATCH).map((row) => {
      const values = row as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [key, column] of columns) {
        const value = values[key];
        if (value === undefined) throw new Error(`demo seed: a row of ${stage} has no ${key} where others do`);
        // Bigints as their digits (JSON numbers would round them); dates write ISO text themselves.
        out[column.name] = typeof value === 'bigint' ? value.toString() : value;
      }
      return out;
    });
    const json = JSON.stringify(batch);
    await db.execute(sql`insert into ${table} (${names}) select ${names} from json_populate_recordset(null::${table}, ${json}::json)`);
    onProgress?.({ stage, done: Math.min(rows.length, i + WRITE_BATCH), total: rows.length });
  }
}
