import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { until } from '../support/wait.js';

/**
 * Reads whose answer is estimated large (LARGE_ANSWER_BYTES) run one at a time per process,
 * so the largest reads allowed cannot take every core of the database from the rest; smaller
 * reads never wait for them. Postgres only: PGlite runs one statement at a time anyway.
 */
const LARGE = '{ pools(first: 20) { nodes { id title user { username } } } }';
const SMALL = '{ pools(first: 1) { totalCount } }';

describe.runIf(backends.includes('postgres'))('large reads on postgres', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  /** The statements of this database waiting for a lock on pools now, but for this test's own. */
  const waitingOnPools = async (app: TestApp) =>
    (
      await app.database.rows<{ n: number }>(
        sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'
          and query like '%pools%' and pid <> pg_backend_pid()`,
      )
    )[0]!.n;

  it('runs one at a time while a small read goes straight to the database; every answer whole', { timeout: 60_000 }, async () => {
    const app = (t = await startEmptyTestApp('postgres', {
      config: testConfig({ LARGE_ANSWER_BYTES: '1000', REQUEST_TIMEOUT_MS: '30000' }),
    }));
    await app.seed.user().withPool().withPool();
    const alone = await app.gql(LARGE);
    expect(alone.errors).toBeUndefined();
    expect(alone.data.pools.nodes).toHaveLength(2);
    let asked!: Promise<Array<Awaited<ReturnType<TestApp['gql']>>>>;
    await app.database.db.transaction(async (tx) => {
      await tx.execute(sql`lock table pools in access exclusive mode`);
      asked = Promise.all([app.gql(LARGE), app.gql(LARGE), app.gql(SMALL)]);
      // The first large read and the small one wait for the lock on the server; the second large one waits here.
      await until(async () => (await waitingOnPools(app)) === 2, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await waitingOnPools(app)).toBe(2);
    });
    // The commit released the lock: the first large read ran, then the queued one.
    const answers = await asked;
    expect(answers.map((a) => a.errors)).toEqual([undefined, undefined, undefined]);
    expect(answers[0]!.data).toEqual(alone.data);
    expect(answers[1]!.data).toEqual(alone.data);
    expect(answers[2]!.data).toEqual({ pools: { totalCount: 2 } });
  });

  it(
    'a large read whose budget ends while it waits its turn answers OPERATION_TIMEOUT without reaching the database',
    { timeout: 60_000 },
    async () => {
      const app = (t = await startEmptyTestApp('postgres', {
        config: testConfig({ LARGE_ANSWER_BYTES: '1000', REQUEST_TIMEOUT_MS: '700' }),
      }));
      await app.seed.user().withPool();
      let most = 0;
      await app.database.db.transaction(async (tx) => {
        await tx.execute(sql`lock table pools in access exclusive mode`);
        const watching = (async () => {
          for (let i = 0; i < 20; i++) {
            most = Math.max(most, await waitingOnPools(app));
            await new Promise((resolve) => setTimeout(resolve, 25));
          }
        })();
        const answers = await Promise.all([
          app.app.inject({ method: 'POST', url: '/graphql', payload: { query: LARGE } }),
          app.app.inject({ method: 'POST', url: '/graphql', payload: { query: LARGE } }),
        ]);
        await watching;
        expect(answers.map((a) => [a.statusCode, a.json().errors?.[0]?.extensions?.code])).toEqual([
          [504, 'OPERATION_TIMEOUT'],
          [504, 'OPERATION_TIMEOUT'],
        ]);
      });
      // One reached the lock; the other never left the queue.
      expect(most).toBe(1);
      const next = await app.gql(LARGE);
      expect(next.errors).toBeUndefined();
      expect(next.data.pools.nodes).toHaveLength(1);
    },
  );
});
