import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { createTestDatabase, type TestDatabase, testConfig } from '../support/harness.js';
import { until } from '../support/wait.js';

/** A port nobody listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A redis-server of this suite's own, on its own port, without persistence. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  await until(
    () =>
      new Promise<boolean>((resolve) => {
        const probe = createServer();
        probe.once('error', () => resolve(true)).listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
      }),
    5000,
    'redis-server to listen',
  );
  return child;
}

const LIMIT = 10;
const QUERY = { query: '{ pools(first: 1) { totalCount } }' };

describe.runIf(process.env.TEST_DATABASE_URL)('limits shared by two replicas in Redis', () => {
  let database: TestDatabase;
  let redis: ChildProcess | null = null;
  let redisPort: number;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    redisPort = await freePort();
    redis = await startRedis(redisPort);
  });
  afterAll(async () => {
    redis?.kill('SIGKILL');
    await database?.drop();
  });

  /** Two apps on one database (two replicas), with the query budget of LIMIT a minute, Redis or not. */
  async function replicas(redisUrl: string | null) {
    const env: Record<string, string> = { RATE_LIMIT_QUERIES_PER_MINUTE: String(LIMIT) };
    if (redisUrl) Object.assign(env, { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `test-${process.pid}-${Date.now()}` });
    return Promise.all([1, 2].map(() => createApp({ config: testConfig(env), database: database.database })));
  }

  /** `n` queries from one client address, alternating the replicas: the statuses answered. */
  async function alternate(apps: Awaited<ReturnType<typeof replicas>>, n: number): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++)
      statuses.push((await apps[i % apps.length]!.inject({ method: 'POST', url: '/graphql', payload: QUERY })).statusCode);
    return statuses;
  }
  const accepted = (statuses: number[]) => statuses.filter((s) => s === 200).length;

  it('in memory each replica counts alone: alternating replicas doubles the budget', async () => {
    const apps = await replicas(null);
    try {
      expect(accepted(await alternate(apps, 3 * LIMIT))).toBe(2 * LIMIT);
    } finally {
      await Promise.all(apps.map((app) => app.close()));
    }
  });

  it('in Redis the replicas share one budget: accepted queries never exceed it; with Redis stopped each process falls back to its own, nothing fails', async () => {
    const apps = await replicas(`redis://127.0.0.1:${redisPort}`);
    try {
      const statuses = await alternate(apps, 3 * LIMIT);
      expect(accepted(statuses)).toBe(LIMIT);
      expect(new Set(statuses)).toEqual(new Set([200, 429]));

      redis!.kill('SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 300));
      // The documented fallback: each process counts alone, in memory, so 2 x LIMIT across the two; no 5xx.
      const during = await alternate(apps, 3 * LIMIT);
      expect(during.filter((s) => s >= 500)).toEqual([]);
      expect(accepted(during)).toBe(2 * LIMIT);
    } finally {
      await Promise.all(apps.map((app) => app.close()));
    }
  });
});
