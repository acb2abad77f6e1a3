import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { seedDemoData, TEST_SIZE } from '../../src/seed/index.js';
import { createApp } from '../../src/server/app.js';
import { createTestDatabase, type TestDatabase, testConfig } from '../support/harness.js';
import { TcpProxy } from '../support/tcp-proxy.js';

const QUERY = '{ pools(first: 3) { totalCount nodes { id user { username } } } }';

/** Polls `check` until it returns true or `ms` pass. */
async function eventually(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('database outages on postgres', () => {
  let testDatabase: TestDatabase;
  const proxy = new TcpProxy('127.0.0.1', Number(new URL(process.env.TEST_DATABASE_URL ?? 'postgres://x:5432').port || 5432));

  beforeAll(async () => {
    testDatabase = await createTestDatabase('postgres');
    await seedDemoData(testDatabase.database, TEST_SIZE);
    await proxy.start();
  });
  afterAll(async () => {
    await proxy.stop();
    await testDatabase.drop();
  });

  async function appThroughProxy() {
    const url = new URL(testDatabase.url!);
    url.host = `127.0.0.1:${proxy.port}`;
    const database = await openDatabase({ kind: 'postgres', url: url.toString(), connectTimeoutSeconds: 2 });
    const app = await createApp({ config: testConfig(), database });
    const gql = async () => (await app.inject({ method: 'POST', url: '/graphql', payload: { query: QUERY } })).json();
    return { app, database, gql };
  }

  it('fails fast with DATABASE_UNAVAILABLE and a 503 /readyz while the database is away, then resumes by itself', async () => {
    const { app, database, gql } = await appThroughProxy();
    try {
      const before = await gql();
      expect(before.errors).toBeUndefined();
      expect(before.data.pools.nodes).toHaveLength(3);

      await proxy.stop();
      const started = Date.now();
      const during = await gql();
      const elapsed = Date.now() - started;
      expect(during.errors?.[0]?.extensions?.code).toBe('DATABASE_UNAVAILABLE');
      expect(JSON.stringify(during)).not.toMatch(/ECONN|at \w+ \(/);
      expect(elapsed).toBeLessThan(5000); // the connect timeout, not a hang
      expect((await app.inject({ url: '/readyz' })).statusCode).toBe(503);

      await proxy.start();
      expect(await eventually(async () => (await app.inject({ url: '/readyz' })).statusCode === 200, 10_000)).toBe(true);
      const after = await gql();
      expect(after.errors).toBeUndefined();
      expect(after.data).toEqual(before.data);
    } finally {
      await app.close();
      await database.close();
    }
  });

  it('answers DATABASE_UNAVAILABLE with 503 and Retry-After whatever else the query answered, over GraphQL and REST', async () => {
    const { app, database } = await appThroughProxy();
    const post = (query: string) => app.inject({ method: 'POST', url: '/graphql', payload: { query } });
    try {
      expect((await post(QUERY)).statusCode).toBe(200);
      await proxy.stop();
      // `__typename` answers without the database, and `pool` is nullable: the response has data beside the error.
      const partial = '{ __typename pool(id: "00000000-0000-4000-8000-000000000000") { id title } }';
      for (const query of [QUERY, partial, `{ pools(first: 1) { totalCount } ${partial.slice(1, -1)} }`]) {
        const response = await post(query);
        const body = response.json();
        expect(body.errors?.[0]?.extensions?.code, query).toBe('DATABASE_UNAVAILABLE');
        expect(response.statusCode, query).toBe(503);
        expect(Number(response.headers['retry-after']), query).toBeGreaterThan(0);
      }
      const rest = await app.inject({ url: '/pools?limit=2' });
      expect(rest.statusCode).toBe(503);
      expect(rest.json().error.code).toBe('DATABASE_UNAVAILABLE');
      expect(Number(rest.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await proxy.start();
      await app.close();
      await database.close();
    }
  });

  it('recovers from killed database connections without a restart', async () => {
    const database = await openDatabase({ kind: 'postgres', url: testDatabase.url!, applicationName: 'outage-kill-test' });
    const app = await createApp({ config: testConfig(), database });
    const gql = async () => (await app.inject({ method: 'POST', url: '/graphql', payload: { query: QUERY } })).json();
    const killer = await openDatabase({ kind: 'postgres', url: testDatabase.url! });
    try {
      const before = await gql();
      expect(before.errors).toBeUndefined();
      const killed = await killer.rows<{ killed: boolean }>(
        sql`select pg_terminate_backend(pid) as killed from pg_stat_activity where application_name = 'outage-kill-test'`,
      );
      expect(killed.length).toBeGreaterThan(0);
      expect(await eventually(async () => (await gql()).errors === undefined, 10_000)).toBe(true);
      expect((await gql()).data).toEqual(before.data);
    } finally {
      await killer.close();
      await app.close();
      await database.close();
    }
  });
});
