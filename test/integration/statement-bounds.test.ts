import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { createApp } from '../../src/server/app.js';
import { backends, type BackendKind, createTestDatabase, preparePgliteDataDir, testConfig } from '../support/harness.js';
import { CHALLENGE, slowDownSignInChallenges, someWallet } from '../support/slow-database.js';
import { until } from '../support/wait.js';

interface Served {
  database: Database;
  app: FastifyInstance;
  gql(query: string, variables?: Record<string, unknown>): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  close(): Promise<void>;
}

/**
 * The app on a database of its own opened with `statementTimeoutMs` (and at most
 * `maxConnections` on Postgres); PGlite keeps its files in a directory, as `npm start` does,
 * so a stuck worker can be replaced. Sign-in challenges take `slowSeconds` to insert.
 */
async function serve(
  kind: BackendKind,
  options: { env?: Record<string, string>; statementTimeoutMs?: number; maxConnections?: number; slowSeconds: number },
): Promise<Served> {
  const { statementTimeoutMs = 0 } = options;
  let database: Database;
  let drop = async () => {};
  if (kind === 'postgres') {
    const test = await createTestDatabase('postgres');
    await test.database.close();
    database = await openDatabase({ kind: 'postgres', url: test.url!, statementTimeoutMs, maxConnections: options.maxConnections });
    drop = async () => {
      await database.close();
      await test.drop().catch(() => {});
    };
  } else {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'poolgraph-bounds-')), 'pglite');
    await preparePgliteDataDir(dataDir);
    database = await openDatabase({ kind: 'pglite', dataDir, statementTimeoutMs });
    drop = () => database.close();
  }
  await slowDownSignInChallenges(database, options.slowSeconds);
  const app = await createApp({ config: testConfig(options.env), database });
  await app.ready();
  return {
    database,
    app,
    async gql(query, variables) {
      const response = await app.inject({ method: 'POST', url: '/graphql', payload: { query, variables } });
      return { status: response.statusCode, body: response.json(), headers: response.headers };
    },
    async close() {
      await app.close();
      await drop();
    },
  };
}

const COUNT_POOLS = '{ pools(first: 1) { totalCount } }';

describe.each(backends)('every statement bounded (%s)', (kind) => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  it(
    'cancels a statement past DATABASE_STATEMENT_TIMEOUT_MS with OPERATION_TIMEOUT, and serves the next request',
    { timeout: 300_000 },
    async () => {
      served = await serve(kind, { statementTimeoutMs: 2000, slowSeconds: 30, env: { REQUEST_TIMEOUT_MS: '0' } });
      const started = performance.now();
      const timedOut = await served.gql(CHALLENGE, { a: someWallet() });
      expect(timedOut.body.errors?.[0]?.extensions?.code).toBe('OPERATION_TIMEOUT');
      expect(performance.now() - started).toBeLessThan(30_000);
      const next = await served.gql(COUNT_POOLS);
      expect(next.body).toEqual({ data: { pools: { totalCount: 0 } } });
    },
  );

  it(
    'a request past its time budget cancels its statement and the next request is served within the budget',
    { timeout: 300_000 },
    async () => {
      // PGlite: the budget leaves room to reopen the data directory (seconds on a busy machine).
      const budgetMs = kind === 'postgres' ? 700 : 20_000;
      served = await serve(kind, { slowSeconds: 120, env: { REQUEST_TIMEOUT_MS: String(budgetMs) } });
      const timedOut = await served.gql(CHALLENGE, { a: someWallet() });
      expect(timedOut.status).toBe(504);
      expect(timedOut.body.errors[0].extensions.code).toBe('OPERATION_TIMEOUT');
      const after = performance.now();
      if (kind === 'postgres') {
        // The statement is gone from the server, not just no longer waited for.
        const database = served.database;
        await until(async () => {
          const rows = await database.rows<{ n: number }>(
            sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'active' and query like '%sign_in_challenges%' and pid <> pg_backend_pid()`,
          );
          return rows[0]!.n === 0;
        }, 5000);
        expect(performance.now() - after).toBeLessThan(1000);
      }
      const started = performance.now();
      const next = await served.gql(COUNT_POOLS);
      expect(next.body).toEqual({ data: { pools: { totalCount: 0 } } });
      expect(performance.now() - started).toBeLessThan(budgetMs);
    },
  );

  it.runIf(kind === 'postgres')(
    "a read past its time budget cancels its statement (the read path's, rendered and executed)",
    { timeout: 120_000 },
    async () => {
      const budgetMs = 700;
      served = await serve(kind, { slowSeconds: 0, env: { REQUEST_TIMEOUT_MS: String(budgetMs) } });
      const { database } = served;
      const waitingOnPools = async () =>
        (
          await database.rows<{ n: number }>(
            sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%pools%' and pid <> pg_backend_pid()`,
          )
        )[0]!.n;
      // The same read executed by resolvers and loaders, on the same database.
      const executor = await createApp({ config: testConfig({ REQUEST_TIMEOUT_MS: String(budgetMs), RENDERED_READS: 'false' }), database });
      try {
        // A transaction holds the pools table: a read of it waits for the lock, on the server, until cancelled.
        await database.db.transaction(async (tx) => {
          await tx.execute(sql`lock table pools in access exclusive mode`);
          for (const app of [served!.app, executor]) {
            const timedOut = await app.inject({ method: 'POST', url: '/graphql', payload: { query: COUNT_POOLS } });
            expect([timedOut.statusCode, timedOut.json().errors?.[0]?.extensions?.code]).toEqual([504, 'OPERATION_TIMEOUT']);
            // The statement is gone from the server, not just no longer waited for.
            await until(async () => (await waitingOnPools()) === 0, 5000);
          }
        });
      } finally {
        await executor.close();
      }
      const next = await served.gql(COUNT_POOLS);
      expect(next.body).toEqual({ data: { pools: { totalCount: 0 } } });
    },
  );
  it.runIf(kind === 'postgres')(
    'with the pools table locked, no statement of 100 reads past their budget is left running or waiting once they answered',
    { timeout: 180_000 },
    async () => {
      const budgetMs = 2000;
      served = await serve(kind, { slowSeconds: 0, env: { REQUEST_TIMEOUT_MS: String(budgetMs) } });
      const { app, database } = served;
      /** The statements running or waiting on the server now, but for this test's own. */
      const active = () =>
        database.rows<{ pid: number; query: string; wait: string | null }>(
          sql`select pid, query, wait_event_type as wait from pg_stat_activity
            where datname = current_database() and state = 'active' and pid <> pg_backend_pid() and query not like 'LISTEN %'`,
        );
      const seen: Array<{ pid: number; query: string; wait: string | null }> = [];
      await database.db.transaction(async (tx) => {
        await tx.execute(sql`lock table pools in access exclusive mode`);
        const answers = await Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            app.inject({
              method: 'POST',
              url: '/graphql',
              payload: { query: i % 2 ? COUNT_POOLS : '{ pools(first: 5) { nodes { id title user { username } } } }' },
            }),
          ),
        );
        expect(new Set(answers.map((a) => `${a.statusCode} ${a.json().errors?.[0]?.extensions?.code}`))).toEqual(
          new Set(['504 OPERATION_TIMEOUT']),
        );
        // From the last answer on, for 5 s: not one of their statements still runs or waits for the lock.
        const end = performance.now() + 5000;
        while (performance.now() < end) {
          seen.push(...(await active()));
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      });
      expect(seen).toEqual([]);
    },
  );
});

describe.each(backends)('database pressure sheds load (%s)', (kind) => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  it('a saturated pool gives 503 with Retry-After and /readyz says so; then it recovers', { timeout: 300_000 }, async () => {
    served = await serve(kind, { maxConnections: 2, slowSeconds: 0, env: { LOAD_SHED_DATABASE_WAIT_MS: '200' } });
    const { database } = served;
    const capacity = database.load().capacity;
    // One more sleeping statement than there are connections: the last one waits.
    const sleepers = Array.from({ length: capacity + 1 }, () => database.rows(sql`select pg_sleep(2)`));
    await until(() => database.load().waiting > 0 && database.load().oldestWaitMs > 250);
    const refused = await served.gql(COUNT_POOLS);
    expect(refused.status).toBe(503);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.body.errors[0].extensions.code).toBe('OVERLOADED');
    const ready = await served.app.inject({ method: 'GET', url: '/readyz' });
    expect([ready.statusCode, ready.json()]).toEqual([503, { status: 'overloaded', pressure: 'database' }]);
    await Promise.all(sleepers);
    expect(database.load()).toMatchObject({ waiting: 0, oldestWaitMs: 0 });
    const served2 = await served.gql(COUNT_POOLS);
    expect(served2.body).toEqual({ data: { pools: { totalCount: 0 } } });
    expect((await served.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });
});
