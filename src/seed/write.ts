import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { getTableColumns, getTableName, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type postgres from 'postgres';
import * as t from '../../schema/index.js';
import { type Database, type Db, resultRows } from '../db/client.js';
import type { PoolSeed, RewardSeed, SeedOptions, StreakRewardSeed, StreakSeed, UserSeed } from './model.js';
import { rebuildDerivedTables } from '../modules/derived-tables.js';

/** Every row the seeder made, as the stages left them. */
export interface DemoRows {
  /** The time the rows were made as of (the seed's `now`): the leaderboard's windows are built as of its day. */
  asOf: Date;
  users: UserSeed[];
  images: t.NewImageRow[];
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

type Rows<TTable extends PgTable> = ReadonlyArray<TTable['$inferInsert']>;

/**
 * Writes everything in one transaction as a bulk load: the indexes, primary keys, unique
 * and foreign-key constraints of the seeded tables and of the tables derived from them are
 * dropped first and made again from their own catalog definitions once the rows are in
 * (same names, same definitions; each index built in one pass, each foreign key checked by
 * one join instead of a lookup per row). The rows go in by COPY on Postgres and by JSON
 * batches on PGlite (see {@link insertAll}). With no foreign key in force, users and
 * images, and streaks and pools, which reference each other, are written whole.
 *
 * The transaction holds these tables exclusively until it commits (DDL): a seed is a load
 * into an empty database, which no one is reading yet.
 */
export async function writeDemoRows(database: Database, rows: DemoRows, onProgress?: SeedOptions['onProgress']): Promise<void> {
  const tables: Array<readonly [PgTable, Rows<PgTable>]> = [
    [t.users, rows.users.map((u) => u.row)],
    [t.images, rows.images],
    [t.settings, rows.settings],
    [t.streaks, rows.streaks.map((s) => s.row)],
    [t.pools, rows.pools.map((p) => p.row)],
    [t.predictions, rows.predictions],
    [t.resolutions, rows.resolutions],
    [t.rewards, rows.rewards.map(({ prediction: _p, pool: _pool, ...row }) => row)],
    [t.userStreaks, rows.userStreaks],
    [t.streakRewards, rows.streakRewards.map(({ streak: _s, userId: _u, ...row }) => row)],
    [t.referralCodes, rows.referralCodes],
    [t.referralRedemptions, rows.redemptions],
    [t.notifications, rows.notifications],
    [t.deviceTokens, rows.deviceTokens],
  ];
  /** What rebuildDerivedTables writes besides the seeded tables: `derived` loaded without its indexes, `upserted` through them (an upsert needs its key's). */
  const derived = [t.leaderboardDaily, t.leaderboardTotals];
  const upserted = [t.leaderboardWindowTotals];
  await database.db.transaction(async (tx) => {
    const db = tx as unknown as Db;
    const run = async (stage: string, statements: readonly SQL[]) => {
      onProgress?.({ stage, done: 0, total: statements.length });
      for (const [i, statement] of statements.entries()) {
        await db.execute(statement);
        onProgress?.({ stage, done: i + 1, total: statements.length });
      }
    };
    // postgres.js's transaction client, for COPY (PGlite in its worker takes no COPY data).
    const copyClient = database.kind === 'postgres' ? (tx as unknown as { session: { client: postgres.Sql } }).session.client : null;
    if (copyClient) {
      // Sorts and hashes in memory (index builds, the derived tables' aggregate), and no JIT
      // compilation for the few large statements of a load: it costs them more than it saves.
      await db.execute(sql`set local maintenance_work_mem = '256MB'`);
      await db.execute(sql`set local work_mem = '64MB'`);
      await db.execute(sql`set local jit = off`);
    }
    const deferred = await indexesAndConstraints(db, [...tables.map(([table]) => table), ...derived]);
    for (const statement of deferred.drop) await db.execute(statement);
    for (const [table, tableRows] of tables) {
      if (copyClient) await copyAll(copyClient, table, tableRows, onProgress);
      else await insertAll(db, table, tableRows, onProgress);
    }
    const indexesOf = (list: readonly PgTable[]) => list.flatMap((table) => deferred.indexes.get(getTableName(table)) ?? []);
    await run('indexes', indexesOf(tables.map(([table]) => table)));
    // Statistics, so that the rebuild below and the first requests are planned for the rows
    // there are (a table loaded in this transaction has none, and its joins would be planned
    // as nested loops over "a few" rows).
    const analyze = (list: readonly PgTable[]) => sql`analyze ${sql.join([...list], sql`, `)}`;
    await run('statistics', [analyze(tables.map(([table]) => table))]);
    // Rewards and redemptions were written directly, so the aggregates built from them are too.
    onProgress?.({ stage: 'derived tables', done: 0, total: 1 });
    await rebuildDerivedTables(db, rows.asOf);
    for (const statement of indexesOf(derived)) await db.execute(statement);
    await db.execute(analyze([...derived, ...upserted]));
    onProgress?.({ stage: 'derived tables', done: 1, total: 1 });
    await run('foreign keys', deferred.foreignKeys);
  });
  // A bulk load leaves no visibility map (nor hint bits): until autovacuum comes by, the
  // planner shuns index-only scans. At 10,000 pools a deep page's key selection (ORDER BY
  // created_at, id OFFSET 8000) was a sequential scan and a sort, 5.4 ms, instead of 0.8 ms.
  // Vacuumed, the database is as one that has been running. Outside the transaction: VACUUM
  // runs in none.
  onProgress?.({ stage: 'vacuum', done: 0, total: 1 });
  await database.db.execute(sql`vacuum ${sql.join([...tables.map(([table]) => table), ...derived, ...upserted], sql`, `)}`);
  onProgress?.({ stage: 'vacuum', done: 1, total: 1 });
}

/** What a bulk load defers: the statements dropping it, and those making it again. */
interface Deferred {
  drop: SQL[];
  /** Per table (by name): its indexes, primary key and unique constraints. */
  indexes: Map<string, SQL[]>;
  /** Made last: they need the keys they reference. */
  foreignKeys: SQL[];
}

/**
 * What a bulk load into `tables` would otherwise maintain row by row, read from the
 * catalog: every index of the tables (those of primary keys and unique constraints by
 * their constraint), and every foreign key from or to them (one to a table's primary key
 * has to go with that key).
 */
async function indexesAndConstraints(db: Db, tables: readonly PgTable[]): Promise<Deferred> {
  const oids = sql`array[${sql.join(
    tables.map((table) => sql`${getTableName(table)}::regclass`),
    sql`, `,
  )}]::oid[]`;
  const foreignKeys = resultRows<{ on: string; name: string; definition: string }>(
    await db.execute(sql`
      select conrelid::regclass::text as on, quote_ident(conname) as name, pg_get_constraintdef(oid) as definition
      from pg_constraint
      where contype = 'f' and (conrelid = any(${oids}) or confrelid = any(${oids}))
      order by 1, 2`),
  );
  const indexes = resultRows<{
    table: string;
    on: string;
    name: string;
    definition: string;
    constraint: string | null;
    key: string | null;
  }>(
    await db.execute(sql`
      select t.relname as table, t.oid::regclass::text as on, i.indexrelid::regclass::text as name,
        pg_get_indexdef(i.indexrelid) as definition, quote_ident(c.conname) as constraint, pg_get_constraintdef(c.oid) as key
      from pg_index i
      join pg_class t on t.oid = i.indrelid
      left join pg_constraint c on c.conindid = i.indexrelid and c.conrelid = i.indrelid and c.contype in ('p', 'u', 'x')
      where i.indrelid = any(${oids})
      order by 1, 3`),
  );
  // One statement per table for its constraints, one for the plain indexes.
  const alter = new Map<string, string[]>();
  for (const { on, name } of foreignKeys) alter.set(on, [...(alter.get(on) ?? []), `drop constraint ${name}`]);
  const drop = [...alter].map(([on, actions]) => sql.raw(`alter table ${on} ${actions.join(', ')}`));
  alter.clear();
  for (const { on, constraint } of indexes) if (constraint) alter.set(on, [...(alter.get(on) ?? []), `drop constraint ${constraint}`]);
  drop.push(...[...alter].map(([on, actions]) => sql.raw(`alter table ${on} ${actions.join(', ')}`)));
  const plain = indexes.filter((index) => !index.constraint).map((index) => index.name);
  if (plain.length) drop.push(sql.raw(`drop index ${plain.join(', ')}`));

  const make = new Map<string, SQL[]>();
  for (const { table, on, definition, constraint, key } of indexes)
    make.set(table, [
      ...(make.get(table) ?? []),
      sql.raw(constraint ? `alter table ${on} add constraint ${constraint} ${key}` : definition),
    ]);
  return {
    drop,
    indexes: make,
    foreignKeys: foreignKeys.map(({ on, name, definition }) => sql.raw(`alter table ${on} add constraint ${name} ${definition}`)),
  };
}

/** The columns of `table` that any of its rows gives (each row is then checked to give them all). */
function givenColumns(table: PgTable, rows: Rows<PgTable>): Array<[string, PgColumn]> {
  const given = new Set<string>();
  for (const row of rows) {
    const values = row as Record<string, unknown>;
    for (const key in values) if (values[key] !== undefined && !given.has(key)) given.add(key);
  }
  return Object.entries(getTableColumns(table)).filter(([key]) => given.has(key));
}

function missing(table: PgTable, key: string): Error {
  return new Error(`demo seed: a row of ${getTableName(table)} has no ${key} where others do`);
}

/** Rows per statement on PGlite: about a MB of JSON. */
const WRITE_BATCH = 2_000;

/**
 * PGlite: inserts `rows` into `table` in batches, each one statement whose one parameter is
 * the batch as JSON, unpacked by `json_populate_recordset` into the table's own column
 * types. Every row must give the same columns (the seeder's do): a column left out of one
 * row would be NULL there, not its default.
 */
async function insertAll(db: Db, table: PgTable, rows: Rows<PgTable>, onProgress?: SeedOptions['onProgress']): Promise<void> {
  if (!rows.length) return;
  const stage = getTableName(table);
  const columns = givenColumns(table, rows);
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
        if (value === undefined) throw missing(table, key);
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

/** Rows per COPY chunk on Postgres (some hundreds of kB of text). */
const COPY_CHUNK = 1_000;

/**
 * Postgres: writes `rows` into `table` with one `COPY ... FROM STDIN` (text format), in
 * chunks as the socket takes them, so Postgres parses one chunk while this process writes
 * the next. Every row must give the same columns, as for {@link insertAll}.
 */
async function copyAll(client: postgres.Sql, table: PgTable, rows: Rows<PgTable>, onProgress?: SeedOptions['onProgress']): Promise<void> {
  if (!rows.length) return;
  const stage = getTableName(table);
  const columns = givenColumns(table, rows);
  const fields = columns.map(([key, column]) => ({ key, text: copyText(column) }));
  const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const query = client.unsafe(`copy ${quote(stage)} (${columns.map(([, column]) => quote(column.name)).join(', ')}) from stdin`);
  // postgres.js settles a COPY's query with its stream, and an error Postgres reports once
  // the stream has ended (a bad last row) reaches only the query's reject: watched there too.
  let failed: (error: unknown) => void = () => {};
  const failure = new Promise<never>((_, reject) => (failed = reject));
  failure.catch(() => {});
  const settles = query as unknown as { reject: (error: unknown) => void };
  const reject = settles.reject;
  settles.reject = (error) => {
    failed(error);
    reject(error);
  };
  const stream = await query.writable();
  // Its errors are the query's too (failure), and are awaited there.
  stream.on('error', () => {});
  // Each row's fields, then each chunk's lines, joined: a join writes one flat string, where
  // `+=` would build a rope of a node per piece that encoding the chunk then has to walk.
  const line = new Array<string>(fields.length);
  const lines: string[] = [];
  try {
    for (let i = 0; i < rows.length; i += COPY_CHUNK) {
      lines.length = 0;
      for (let r = i; r < Math.min(rows.length, i + COPY_CHUNK); r++) {
        const values = rows[r] as Record<string, unknown>;
        for (let f = 0; f < fields.length; f++) {
          const { key, text } = fields[f]!;
          const value = values[key];
          if (value === undefined) throw missing(table, key);
          line[f] = value === null ? '\\N' : text(value);
        }
        lines.push(line.join('\t'));
      }
      lines.push('');
      if (!stream.write(lines.join('\n'))) await Promise.race([once(stream, 'drain'), failure]);
      onProgress?.({ stage, done: Math.min(rows.length, i + COPY_CHUNK), total: rows.length });
    }
  } catch (error) {
    // Abandons the COPY (CopyFail) and waits for Postgres to end it, so that the connection
    // takes the transaction's ROLLBACK next.
    if (!stream.destroyed) stream.destroy(error as Error);
    await failure.catch(() => {});
    throw error;
  }
  stream.end();
  await Promise.race([finished(stream), failure]);
}

/** A value's text in COPY's text format: Postgres's input syntax, with backslash, tab and line breaks escaped. */
function copyText(column: PgColumn): (value: unknown) => string {
  switch (column.columnType) {
    case 'PgUUID':
    case 'PgInteger':
    case 'PgSmallInt':
    case 'PgBigInt64':
    case 'PgNumericNumber':
    case 'PgEnumColumn':
      return String;
    case 'PgBoolean':
      return (value) => (value ? 't' : 'f');
    case 'PgTimestamp':
      return (value) => (value instanceof Date ? value.toISOString() : escapeCopy(String(value)));
    case 'PgJsonb':
    case 'PgJson':
      return (value) => escapeCopy(JSON.stringify(value));
    case 'PgArray':
      return (value) => `{${(value as unknown[]).map((item) => (typeof item === 'number' ? String(item) : arrayElement(item))).join(',')}}`;
    default:
      return (value) => escapeCopy(typeof value === 'string' ? value : String(value));
  }
}

/** An array literal's element other than a number: NULL, or a quoted string. */
function arrayElement(item: unknown): string {
  if (item === null) return 'NULL';
  return escapeCopy(`"${String(item).replace(/["\\]/g, '\\$&')}"`);
}

const COPY_SPECIAL = /[\\\t\n\r]/;

function escapeCopy(text: string): string {
  if (!COPY_SPECIAL.test(text)) return text;
  return text.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}
