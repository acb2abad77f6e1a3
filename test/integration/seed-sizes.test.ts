import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type SQL, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { makeDemoRows, type SeedOptions, seedDemoData, type SeedSummary } from '../../src/seed/index.js';
import { EXACT_SAMPLING_LIMIT } from '../../src/seed/model.js';
import { backends, createTestDatabase, type TestDatabase } from '../support/harness.js';

/**
 * `npm run db:seed -- --pools N --users N`: the seeder's size options, run as the command
 * runs them, at a size above EXACT_SAMPLING_LIMIT users, where crowds, personas and
 * notifications are drawn per member rather than from every user. The rows are counted
 * and checked against what the service expects of them, and the schema against the
 * migrations' (the load drops and remakes the indexes and constraints). The seeder's work
 * is counted at two sizes, four times apart: its random draws, and its statements. Its
 * time is measured by `npm run bench:seed`, not here.
 */
const run = promisify(execFile);
const POOLS = 60;
const USERS = EXACT_SAMPLING_LIMIT + 200;
const STREAKS = 3;
/** Two sizes four times apart, both above EXACT_SAMPLING_LIMIT users. */
const SMALL: SeedOptions = { pools: POOLS, users: USERS, streaks: STREAKS, now: new Date('2026-06-15T09:30:00.000Z') };
const LARGE: SeedOptions = { pools: 4 * POOLS, users: 4 * USERS, streaks: 4 * STREAKS, now: SMALL.now };

/** Rows of every table the seeder writes. */
const rowsOf = (summary: SeedSummary) => Object.values(summary).reduce((sum, n) => sum + n, 0);

/** Every index, constraint and NOT NULL column of the public schema, as the catalog defines them. */
const SCHEMA = sql`
  select c.relname::text as table, 'index' as kind, i.relname::text as name, pg_get_indexdef(x.indexrelid) as definition
  from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class c on c.oid = x.indrelid
  where c.relnamespace = 'public'::regnamespace
  union all
  select c.relname, 'constraint ' || k.contype::text, k.conname,
    pg_get_constraintdef(k.oid) || case when k.convalidated then '' else ' (not validated)' end
  from pg_constraint k join pg_class c on c.oid = k.conrelid
  where c.relnamespace = 'public'::regnamespace
  union all
  select c.relname, 'not null', a.attname, ''
  from pg_attribute a join pg_class c on c.oid = a.attrelid
  where c.relnamespace = 'public'::regnamespace and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped and a.attnotnull
  order by 1, 2, 3`;
const schemaOf = async (database: Database) => [...(await database.rows<Record<string, string>>(SCHEMA))].map((row) => ({ ...row }));

describe('the demo seeder at two sizes, four times apart', () => {
  it('draws random numbers in proportion to the rows it makes, not to pools times users', () => {
    const small = makeDemoRows(SMALL);
    const large = makeDemoRows(LARGE);
    const rows = rowsOf(large.summary) / rowsOf(small.summary);
    expect(rows).toBeGreaterThan(3.6);
    expect(rows).toBeLessThan(4.4);
    // A crowd drawn from every user, or notifications from every pool, would make this
    // ratio about 16 (each pool's or user's draws growing with the size too).
    expect(large.randomDraws / small.randomDraws).toBeLessThan(rows * 1.1);
    expect(small.randomDraws / rowsOf(small.summary)).toBeLessThan(60);
  });
});

async function seedCli(args: string[], env: Record<string, string>) {
  return run(process.execPath, ['--import', 'tsx/esm', 'src/seed/cli.ts', ...args], {
    env: { ...process.env, DATABASE_URL: '', PGLITE_DATA_DIR: '', ...env },
    timeout: 300_000,
  }).then(
    ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

describe.each(backends)('npm run db:seed with sizes on %s', (kind) => {
  let scratch: string;
  let testDatabase: TestDatabase | null = null;
  let env: Record<string, string>;
  let database: Database;
  let output: string;
  const count = async (query: SQL) => Number((await database.rows<{ n: number }>(sql`select count(*)::int as n from (${query}) q`))[0]!.n);
  const table = (name: string) => count(sql.raw(`select 1 from ${name}`));

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'poolgraph-seed-sizes-'));
    if (kind === 'postgres') {
      testDatabase = await createTestDatabase('postgres');
      env = { DATABASE_URL: testDatabase.url! };
    } else {
      env = { PGLITE_DATA_DIR: join(scratch, 'pglite') };
    }
    const refused = await seedCli(['--pools', 'many'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--pools takes a whole number, got "many"/);
    const seeded = await seedCli(['--pools', String(POOLS), '--users', String(USERS), '--streaks', String(STREAKS)], env);
    expect(seeded.code, seeded.stderr).toBe(0);
    output = seeded.stdout;
    database = testDatabase ? testDatabase.database : await openDatabase({ kind: 'pglite', dataDir: env.PGLITE_DATA_DIR });
  }, 600_000);
  afterAll(async () => {
    if (testDatabase) await testDatabase.drop();
    else await database?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('refuses a size that is not a number before writing anything, then seeds the sizes asked for', async () => {
    expect(await table('users')).toBe(USERS);
    expect(await table('pools')).toBe(POOLS);
    expect(await table('streaks')).toBe(STREAKS);
    expect(await table('settings')).toBe(USERS);
    expect(await table('predictions')).toBeGreaterThan(POOLS * 5);
    expect(await table('notifications')).toBeGreaterThan(USERS);
  });

  it('shows its progress, table by table, and a summary that matches the rows', async () => {
    for (const stage of [
      'making users',
      'making predictions',
      'users',
      'pools',
      'predictions',
      'rewards',
      'notifications',
      'derived tables',
    ])
      expect(output).toContain(`  ${stage}: `);
    const predictions = Number(/predictions: (\d+)/.exec(output.slice(output.indexOf('Seeded demo data')))![1]);
    expect(predictions).toBe(await table('predictions'));
  });

  it('keeps volumes, stakes, grids, dates and vault balances consistent', async () => {
    // Volume is the sum of stakes; a vault holds the volume less the rewards claimed from it.
    expect(
      await count(sql`select p.id from pools p left join predictions x on x.pool_id = p.id
        group by p.id having p.total_volume <> coalesce(sum(x.stake), 0)`),
    ).toBe(0);
    expect(
      await count(sql`select p.id from pools p where p.total_volume < coalesce((select sum(r.amount) from rewards r
        join predictions x on x.id = r.prediction_id where x.pool_id = p.id and r.is_claimed), 0)`),
    ).toBe(0);
    expect(
      await count(sql`select x.id from predictions x join pools p on p.id = x.pool_id
        where x.stake < p.min_stake or x.stake > p.max_stake or x.prediction < p.min_outcome or x.prediction > p.max_outcome
          or mod(x.prediction - p.min_outcome, p.step) <> 0`),
    ).toBe(0);
    // Nobody predicts twice in a pool, before signing up, or outside the pool's window.
    expect(await count(sql`select pool_id, user_id from predictions group by 1, 2 having count(*) > 1`)).toBe(0);
    expect(
      await count(sql`select x.id from predictions x join pools p on p.id = x.pool_id join users u on u.id = x.user_id
        where x.created_at < u.created_at or x.created_at < p.prediction_start_date or x.created_at > p.prediction_end_date`),
    ).toBe(0);
    // A reward for each prediction of a resolved pool and no other; each resolution splits its pool's volume exactly.
    expect(
      await count(sql`select x.id from predictions x join pools p on p.id = x.pool_id left join resolutions s on s.pool_id = p.id
        left join rewards r on r.prediction_id = x.id where (s.id is null) <> (r.id is null)`),
    ).toBe(0);
    expect(
      await count(sql`select s.id from resolutions s join pools p on p.id = s.pool_id
        where s.protocol_fee + s.leftover + (select coalesce(sum(r.amount), 0) from rewards r join predictions x on x.id = r.prediction_id
          where x.pool_id = p.id) <> p.total_volume`),
    ).toBe(0);
  });

  it('leaves the indexes and constraints as the migrations made them', async () => {
    const fresh = await createTestDatabase(kind);
    try {
      const migrated = await schemaOf(fresh.database);
      expect(migrated.filter((row) => row.kind === 'constraint f').length).toBeGreaterThan(10);
      expect(await schemaOf(database)).toEqual(migrated);
    } finally {
      await fresh.drop();
    }
  });

  it(
    kind === 'postgres'
      ? 'writes each table with one COPY: the same statements at four times the size'
      : 'writes a statement per 2,000 rows of a table, and as many others at any size',
    async () => {
      const statements = async (options: SeedOptions) => {
        const { database: target, drop } = await createTestDatabase(kind);
        try {
          const before = target.statementCount;
          const summary = await seedDemoData(target, options);
          return { count: target.statementCount - before, rows: rowsOf(summary) };
        } finally {
          await drop();
        }
      };
      const small = await statements(SMALL);
      const large = await statements(LARGE);
      if (kind === 'postgres') expect(large.count).toBe(small.count);
      else expect(large.count - small.count).toBeLessThanOrEqual(Math.ceil((large.rows - small.rows) / 2000) + 14);
      // Besides the batches, a constant: the load's DDL and the derived tables' rebuild (the leaderboard's three windows built, 12 of them).
      expect(large.count).toBeLessThan(165 + large.rows / 2000);
    },
    120_000,
  );

  it('gives every streak users in every state of the streak rule, and a pool-created notification only of a newer pool', async () => {
    expect(
      await count(
        sql`select s.id from streaks s where (select count(distinct last_streak_event) from user_streaks u where u.streak_id = s.id) < 4`,
      ),
    ).toBe(0);
    expect(
      await count(sql`select n.id from notifications n join users u on u.id = n.user_id join pools p on p.id = (n.data->>'poolId')::uuid
        where n.type = 'POOL_CREATED' and p.created_at <= u.created_at`),
    ).toBe(0);
    expect(
      await count(sql`select user_id from notifications where type = 'POOL_CREATED' group by user_id, data->>'poolId' having count(*) > 1`),
    ).toBe(0);
  });
});
