import type { ChildProcess } from 'node:child_process';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createApp } from '../../src/server/app.js';
import { openSharedRedis } from '../../src/server/redis.js';
import { redisLimiters } from '../../src/server/redis-limiter.js';
import { createTestDatabase, type TestDatabase, testConfig } from '../support/harness.js';
import { type SocketClient, socketClient, Subscription } from '../support/sockets.js';
import { freePort } from '../support/ports.js';
import { startRedis } from '../support/redis-server.js';
import { subscriptionsOpen, until } from '../support/wait.js';

/**
 * A Postgres database and a redis-server of the calling describe block's own, started before
 * its tests and stopped after them (a test may stop the server itself).
 */
function databaseAndRedis(): { database: TestDatabase; redis: ChildProcess; redisUrl: string } {
  const fixture = {} as { database: TestDatabase; redis: ChildProcess; redisUrl: string };
  beforeAll(async () => {
    fixture.database = await createTestDatabase('postgres');
    const port = await freePort();
    fixture.redis = await startRedis(port);
    fixture.redisUrl = `redis://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    fixture.redis?.kill('SIGKILL');
    await fixture.database?.drop();
  });
  return fixture;
}

const LIMIT = 10;
const QUERY = { query: '{ pools(first: 1) { totalCount } }' };

describe.runIf(process.env.TEST_DATABASE_URL)('limits shared by two replicas in Redis', () => {
  const fixture = databaseAndRedis();

  /** Two apps on one database (two replicas), with the query budget of LIMIT a minute, Redis or not. */
  async function replicas(redisUrl: string | null) {
    const env: Record<string, string> = { RATE_LIMIT_QUERIES_PER_MINUTE: String(LIMIT) };
    if (redisUrl) Object.assign(env, { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `test-${process.pid}-${Date.now()}` });
    // Used at once: a replica's first commands wait for its connection (redis.ts), no readiness wait here.
    return Promise.all([1, 2].map(() => createApp({ config: testConfig(env), database: fixture.database.database })));
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

  it('a process just started shares from its first command: it waits for its connection, no outage reported', async () => {
    const outages: unknown[] = [];
    const redis = openSharedRedis(fixture.redisUrl, { commandTimeoutMs: 2_000, onOutage: (error) => outages.push(error) });
    try {
      expect(redis.client.status).not.toBe('ready');
      const key = `test-${process.pid}-${Date.now()}-first`;
      expect(
        await redis.attempt(
          (client) => client.set(key, 'shared'),
          () => 'fallback',
        ),
      ).toBe('OK');
      expect(
        await redis.attempt(
          (client) => client.get(key),
          () => 'fallback',
        ),
      ).toBe('shared');
      expect(outages).toEqual([]);
    } finally {
      await redis.close();
    }
  });

  it('a Redis refusing connections at start is an outage at once, not a wait for the timeout', async () => {
    const outages: unknown[] = [];
    const redis = openSharedRedis(`redis://127.0.0.1:${await freePort()}`, {
      commandTimeoutMs: 5_000,
      onOutage: (error) => outages.push(error),
    });
    try {
      const started = Date.now();
      expect(
        await redis.attempt(
          (client) => client.get('anything'),
          () => 'fallback',
        ),
      ).toBe('fallback');
      expect(Date.now() - started).toBeLessThan(4_000);
      expect(outages).toHaveLength(1);
    } finally {
      await redis.close();
    }
  });

  it('units given back on one replica are there for the other', async () => {
    const redis = openSharedRedis(fixture.redisUrl, { commandTimeoutMs: 250, onOutage: () => {} });
    try {
      const prefix = `test-${process.pid}-${Date.now()}`;
      const [first, second] = [1, 2].map(() => redisLimiters(redis, prefix)('queries', LIMIT, 60_000));
      expect((await first!.consume('user:a', LIMIT)).retryAfterSeconds).toBeNull();
      expect((await second!.consume('user:a', 1)).retryAfterSeconds).not.toBeNull();
      await first!.giveBack('user:a', 3);
      expect((await second!.state('user:a')).remaining).toBe(3);
      expect((await second!.consume('user:a', 3)).retryAfterSeconds).toBeNull();
    } finally {
      await redis.close();
    }
  });

  it('in Redis the replicas share one budget: accepted queries never exceed it; with Redis stopped each process falls back to its own, nothing fails', async () => {
    const apps = await replicas(fixture.redisUrl);
    try {
      const statuses = await alternate(apps, 3 * LIMIT);
      expect(accepted(statuses)).toBe(LIMIT);
      expect(new Set(statuses)).toEqual(new Set([200, 429]));

      fixture.redis.kill('SIGKILL');
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

describe.runIf(process.env.TEST_DATABASE_URL)('socket caps shared by two replicas in Redis', () => {
  const fixture = databaseAndRedis();
  const CAP = 2;

  /** Two listening apps on one database, at most CAP sockets and CAP subscriptions per client address, counted in Redis at `redisUrl`. */
  async function replicas(redisUrl: string): Promise<{ apps: FastifyInstance[]; urls: string[] }> {
    const env = {
      MAX_SOCKETS_PER_CLIENT: String(CAP),
      MAX_SUBSCRIPTIONS_PER_CLIENT: String(CAP),
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: `test-${process.pid}-${Date.now()}`,
    };
    const apps = await Promise.all([1, 2].map(() => createApp({ config: testConfig(env), database: fixture.database.database })));
    const urls = await Promise.all(
      apps.map(async (app) => `${(await app.listen({ host: '127.0.0.1', port: 0 })).replace(/^http/, 'ws')}/graphql`),
    );
    return { apps, urls };
  }

  /** Opens a graphql-ws socket to `url`: 101 and the socket, or the status the upgrade was refused with. */
  const upgrade = (url: string) =>
    new Promise<{ status: number; ws: WebSocket }>((resolve) => {
      const ws = new WebSocket(url, 'graphql-transport-ws');
      ws.on('unexpected-response', (_request, response) => resolve({ status: response.statusCode ?? 0, ws }));
      ws.on('open', () => resolve({ status: 101, ws }));
      ws.on('error', () => {});
    });

  it('a client at the cap on one replica is refused by the other; a socket closed anywhere frees its place', async () => {
    const { apps, urls } = await replicas(fixture.redisUrl);
    const [a, b] = urls as [string, string];
    const open: WebSocket[] = [];
    try {
      for (const url of [a, b]) {
        const { status, ws } = await upgrade(url);
        expect(status).toBe(101);
        open.push(ws);
      }
      expect((await upgrade(a)).status).toBe(429);
      expect((await upgrade(b)).status).toBe(429);

      open.shift()!.close();
      let reopened: { status: number; ws: WebSocket } | null = null;
      await until(async () => (reopened = await upgrade(b)).status === 101, 5000, 'the closed socket to free its place');
      open.push(reopened!.ws);
      expect((await upgrade(a)).status).toBe(429);
    } finally {
      for (const ws of open) ws.close();
      await Promise.all(apps.map((app) => app.close()));
    }
  });

  it('subscriptions per client are capped across the replicas too', async () => {
    const { apps, urls } = await replicas(fixture.redisUrl);
    const clients = urls.map((url) => socketClient(url));
    try {
      await Promise.all(clients.map((client) => client.connected));
      const [onA, onB] = clients as [SocketClient, SocketClient];
      const first = new Subscription(onA.client, 'subscription { poolCreated { id } }');
      await subscriptionsOpen(apps[0]!, 1);
      const second = new Subscription(onB.client, 'subscription { poolCreated { id } }');
      await subscriptionsOpen(apps[1]!, 1);
      const third = new Subscription(onA.client, 'subscription { poolCreated { id } }');
      await third.waitForEnd();
      expect((third.error as Array<{ extensions: { code: string } }>)[0]!.extensions.code).toBe('RATE_LIMITED');
      expect([first.error, second.error]).toEqual([null, null]);
    } finally {
      await Promise.all(clients.map((client) => client.dispose()));
      await Promise.all(apps.map((app) => app.close()));
    }
  });

  it('with Redis unreachable each replica caps its own sockets, in memory; nothing fails', async () => {
    const { apps, urls } = await replicas(`redis://127.0.0.1:${await freePort()}`);
    const open: WebSocket[] = [];
    try {
      for (const url of urls) {
        for (let i = 0; i < CAP; i++) {
          const { status, ws } = await upgrade(url);
          expect(status).toBe(101);
          open.push(ws);
        }
        expect((await upgrade(url)).status).toBe(429);
      }
      for (const app of apps) expect((await app.inject({ method: 'POST', url: '/graphql', payload: QUERY })).statusCode).toBe(200);
    } finally {
      for (const ws of open) ws.close();
      await Promise.all(apps.map((app) => app.close()));
    }
  });
});
