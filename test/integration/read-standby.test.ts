import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { createApp } from '../../src/server/app.js';
import { metricSample, testConfig } from '../support/harness.js';
import { freePort } from '../support/ports.js';
import { walletSignIn } from '../support/sessions.js';
import { until } from '../support/wait.js';
import { kitWallet } from '../support/wallets.js';

/**
 * Queries read from a streaming standby (DATABASE_READ_URL), made as deploy/local-cluster.sh
 * makes it: a primary and a `pg_basebackup -R` standby on ports of the suite's own. Runs as
 * root (the clusters belong to the postgres user) where the Postgres server binaries are
 * installed, as the cluster suite does.
 */
const runnable =
  Boolean(process.env.TEST_DATABASE_URL) &&
  process.getuid?.() === 0 &&
  existsSync('/usr/lib/postgresql') &&
  readdirSync('/usr/lib/postgresql').some((version) => existsSync(`/usr/lib/postgresql/${version}/bin/pg_basebackup`));
// Below Linux's ephemeral range (32768-60999), where the local end of any connection another suite opens may take a port
// at any moment (a CI run's primary could not start on 38700, inside it), and below cluster.test's ports (20,000 up).
const base = 10_000 + 100 * ((process.pid % 90) + 1);
const env = { ...process.env, CLUSTER_DIR: `/tmp/poolgraph-standby-test-${process.pid}`, CLUSTER_PG_PORT: String(base) };
const primaryUrl = `postgres://postgres@127.0.0.1:${base}/poolgraph`;
const standbyUrl = `postgres://postgres@127.0.0.1:${base + 1}/poolgraph`;
const cluster = (...args: string[]) => {
  const run = spawnSync('deploy/local-cluster.sh', args, { env, encoding: 'utf8', timeout: 120_000 });
  if (run.status !== 0) throw new Error(`local-cluster.sh ${args.join(' ')} failed:\n${run.stdout}\n${run.stderr}`);
};

const API_KEYS = '{ viewer { apiKeys { name } } }';
const CREATE_KEY = 'mutation($n: String!) { createApiKey(name: $n) { key { name } } }';

describe.runIf(runnable)('reads from a streaming standby', () => {
  let primary: Database;
  let standby: Database;
  let redis: ChildProcess;
  let redisUrl: string;
  const apps: FastifyInstance[] = [];

  beforeAll(async () => {
    cluster('postgres');
    primary = await openDatabase({ kind: 'postgres', url: primaryUrl, applicationName: 'standby-test' });
    await primary.migrate();
    standby = await openDatabase({ kind: 'postgres', url: standbyUrl, applicationName: 'standby-test:reads' });
    const redisPort = await freePort();
    redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    redisUrl = `redis://127.0.0.1:${redisPort}`;
    await until(async () => spawnSync('redis-cli', ['-p', String(redisPort), 'ping']).status === 0, 5000, 'redis-server');
  }, 180_000);
  afterAll(async () => {
    for (const app of apps) await app.close();
    await standby?.close();
    await primary?.close();
    redis?.kill('SIGKILL');
    if (existsSync(env.CLUSTER_DIR)) cluster('stop');
  }, 60_000);

  /** A replica reading from the standby; `shared`: its callers' write positions in Redis (else in its memory). */
  async function replica(options: { shared: boolean; maxLagMs?: number }): Promise<FastifyInstance> {
    const config = testConfig({
      DATABASE_URL: primaryUrl,
      DATABASE_READ_URL: standbyUrl,
      DATABASE_READ_MAX_LAG_MS: String(options.maxLagMs ?? 60_000),
      SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '1000',
      ...(options.shared ? { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `standby-test-${process.pid}` } : {}),
    });
    const app = await createApp({ config, database: primary, readDatabase: standby });
    apps.push(app);
    return app;
  }

  const gqlOf =
    (app: FastifyInstance, remoteAddress = '127.0.0.1') =>
    async (query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}) =>
      (await app.inject({ method: 'POST', url: '/graphql', remoteAddress, headers, payload: { query, variables } })).json();

  /** Statements `work` sent to the primary and to the standby. */
  async function counted(work: () => Promise<unknown>): Promise<{ primary: number; standby: number }> {
    const before = { primary: primary.statementCount, standby: standby.statementCount };
    await work();
    return { primary: primary.statementCount - before.primary, standby: standby.statementCount - before.standby };
  }

  /** Waits until the standby has replayed everything the primary has written by now. */
  async function replayed(): Promise<void> {
    const [{ lsn }] = (await primary.rows<{ lsn: string }>(sql.raw('SELECT pg_current_wal_lsn()::text AS lsn'))) as [{ lsn: string }];
    await until(
      async () => (await standby.rows<{ done: boolean }>(sql.raw(`SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`)))[0]!.done,
      10_000,
      'the standby to replay the primary',
    );
  }

  it('queries are read from the standby, mutations never reach it; the caller then reads its write from the primary', async () => {
    const app = await replica({ shared: false });
    const gql = gqlOf(app, '10.0.0.1');
    const session = await walletSignIn(gql, await kitWallet());
    await replayed();
    // The sign-in was a write of this client: its reads come back to the standby once the routing sees the standby replayed it.
    let read = { primary: 0, standby: 0 };
    await until(
      async () => (read = await counted(() => gql(API_KEYS, {}, session.headers))).standby > 0,
      10_000,
      'a query served by the standby',
    );
    expect(read.standby).toBeGreaterThan(0);

    const write = await counted(async () => expect((await gql(CREATE_KEY, { n: 'first' }, session.headers)).errors).toBeUndefined());
    expect(write.standby).toBe(0);
    expect(write.primary).toBeGreaterThan(0);

    // Whether or not the standby has replayed it yet, the caller's next read shows its write.
    const after = await gql(API_KEYS, {}, session.headers);
    expect(after.errors).toBeUndefined();
    expect(after.data.viewer.apiKeys.map((key: { name: string }) => key.name)).toEqual(['first']);
  });

  it('read-your-writes holds across replicas through Redis; in memory only the replica that took the write knows of it', async () => {
    const [writer, reader] = [await replica({ shared: true }), await replica({ shared: true })];
    const [memoryWriter, memoryReader] = [await replica({ shared: false }), await replica({ shared: false })];
    const session = await walletSignIn(gqlOf(writer, '10.0.0.2'), await kitWallet());
    await replayed();
    await until(
      async () => (await counted(() => gqlOf(reader, '10.0.0.2')(API_KEYS, {}, session.headers))).standby > 0,
      10_000,
      'the reader to serve the caller from the standby',
    );
    await until(
      async () => (await counted(() => gqlOf(memoryReader, '10.0.0.2')(API_KEYS, {}, session.headers))).standby > 0,
      10_000,
      'the in-memory reader to serve the caller from the standby',
    );
    // The standby stops replaying: a write now stays off it for as long as the test needs.
    await standby.rows(sql.raw('SELECT pg_wal_replay_pause()'));
    try {
      expect((await gqlOf(writer, '10.0.0.2')(CREATE_KEY, { n: 'shared' }, session.headers)).errors).toBeUndefined();
      let answer: any;
      const onReader = await counted(async () => (answer = await gqlOf(reader, '10.0.0.2')(API_KEYS, {}, session.headers)));
      expect(answer.data.viewer.apiKeys.map((key: { name: string }) => key.name)).toEqual(['shared']);
      expect(onReader.standby).toBe(0);

      expect((await gqlOf(memoryWriter, '10.0.0.2')(CREATE_KEY, { n: 'memory' }, session.headers)).errors).toBeUndefined();
      const onMemoryWriter = await gqlOf(memoryWriter, '10.0.0.2')(API_KEYS, {}, session.headers);
      expect(onMemoryWriter.data.viewer.apiKeys.map((key: { name: string }) => key.name)).toEqual(['shared', 'memory']);
      // The other replica never heard of the write and reads the standby, which has neither key yet.
      const onMemoryReader = await counted(async () => (answer = await gqlOf(memoryReader, '10.0.0.2')(API_KEYS, {}, session.headers)));
      expect(onMemoryReader.standby).toBeGreaterThan(0);
      expect(answer.data.viewer.apiKeys).toEqual([]);
    } finally {
      await standby.rows(sql.raw('SELECT pg_wal_replay_resume()'));
    }
  });

  it('a standby further behind than the bound: reads go to the primary, counted', async () => {
    const app = await replica({ shared: false, maxLagMs: 200 });
    const gql = gqlOf(app, '10.0.0.3');
    const lagging = async () =>
      metricSample((await app.inject({ url: '/metrics' })).body, 'poolgraph_database_reads_total', { route: 'lagging' });
    // First the standby in use: a replica just started counts it lagging until a probe sees it caught up, which must not pass for the lag below.
    await replayed();
    await until(async () => (await counted(() => gql('{ pools(first: 1) { totalCount } }'))).standby > 0, 10_000, 'a standby read');
    const laggingBefore = await lagging();
    await standby.rows(sql.raw('SELECT pg_wal_replay_pause()'));
    try {
      // Transactional, so its commit flushes the WAL: the primary's position moves past the standby's now, not when the WAL writer wakes.
      await primary.rows(sql.raw("SELECT pg_logical_emit_message(true, 'standby-test', 'lag')"));
      await until(
        async () => {
          await gql('{ pools(first: 1) { totalCount } }');
          return (await lagging()) > laggingBefore;
        },
        10_000,
        'a read sent to the primary for lag',
      );
      const read = await counted(async () => expect((await gql('{ pools(first: 1) { totalCount } }')).errors).toBeUndefined());
      expect(read.standby).toBe(0);
      expect(read.primary).toBeGreaterThan(0);
    } finally {
      await standby.rows(sql.raw('SELECT pg_wal_replay_resume()'));
    }
  });

  it('a leaderboard window read first on a day is built on the primary (the standby refuses the write), then read from the standby', async () => {
    const app = await replica({ shared: false });
    const gql = gqlOf(app, '10.0.0.5');
    const WEEK = '{ leaderboard(period: WEEK, first: 1) { totalCount } }';
    const routed = async (route: string) =>
      metricSample((await app.inject({ url: '/metrics' })).body, 'poolgraph_database_reads_total', { route });
    await replayed();
    await until(async () => (await counted(() => gql('{ pools(first: 1) { totalCount } }'))).standby > 0, 10_000, 'a standby read');
    // The week's totals are as of no day yet (or of another), so its first read builds them.
    await primary.rows(sql.raw("UPDATE leaderboard_windows SET as_of = NULL WHERE period = 'WEEK'"));
    await replayed();
    const [writesBefore, retriedBefore] = [await routed('writes'), await routed('retried')];
    const first = await counted(async () => expect(await gql(WEEK)).toEqual({ data: { leaderboard: { totalCount: 0 } } }));
    expect(first.primary).toBeGreaterThan(0);
    expect(await routed('writes')).toBe(writesBefore + 1);
    // A refused write is not the standby failing: it is not counted unreachable, and serves the next reads.
    expect(await routed('retried')).toBe(retriedBefore);
    const [built] = await primary.rows<{ as_of: string }>(
      sql.raw("SELECT as_of::text AS as_of FROM leaderboard_windows WHERE period = 'WEEK'"),
    );
    expect(built!.as_of).toBe(new Date().toISOString().slice(0, 10));
    await replayed();
    const next = await counted(async () => expect(await gql(WEEK)).toEqual({ data: { leaderboard: { totalCount: 0 } } }));
    expect(next).toEqual({ primary: 0, standby: 1 });
  });

  it('with the standby stopped, queries are answered from the primary without an error, and it is used again once back', async () => {
    const app = await replica({ shared: false });
    const gql = gqlOf(app, '10.0.0.4');
    await replayed();
    await until(async () => (await counted(() => gql('{ pools(first: 1) { totalCount } }'))).standby > 0, 10_000, 'a standby read');
    cluster('stop-standby');
    try {
      for (let i = 0; i < 5; i++) {
        const read = await counted(async () =>
          expect(await gql('{ pools(first: 1) { totalCount } }')).toEqual({ data: { pools: { totalCount: 0 } } }),
        );
        expect(read.primary).toBeGreaterThan(0);
      }
      const metrics = (await app.inject({ url: '/metrics' })).body;
      expect(
        metricSample(metrics, 'poolgraph_database_reads_total', { route: 'unreachable' }) +
          metricSample(metrics, 'poolgraph_database_reads_total', { route: 'retried' }),
      ).toBeGreaterThanOrEqual(5);
    } finally {
      cluster('start-standby');
    }
    await until(
      async () => (await counted(() => gql('{ pools(first: 1) { totalCount } }'))).standby > 0,
      20_000,
      'the standby back in use',
    );
  });
});
