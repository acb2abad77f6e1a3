import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createApp } from '../../src/server/app.js';
import { createTestDatabase, metricSample, startEmptyTestApp, testConfig, type TestApp, type TestDatabase } from '../support/harness.js';
import { until } from '../support/wait.js';

/** Blocks this process's event loop (and so the in-process server's) for `ms`. */
function busyWait(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

describe('load shedding', () => {
  let t: TestApp;
  /** Refusals counted before the tests (readiness probes refused while the start-up blocked the loop). */
  let shedBefore = 0;
  // One pool: a served query counts it; a refused one must not have read it.
  beforeAll(async () => {
    t = await startEmptyTestApp('pglite', { config: testConfig({ LOAD_SHED_EVENT_LOOP_DELAY_MS: '200' }) });
    await t.seed.user().withPool();
    // The monitor reports a free loop (the start-up may have blocked it for longer than 200 ms).
    await until(async () => (await t.app.inject({ url: '/readyz' })).statusCode === 200, 10_000, 'a free event loop');
    shedBefore = metricSample((await t.app.inject({ url: '/metrics' })).body, 'poolgraph_load_shed_total', { pressure: 'event-loop' });
  });
  afterAll(() => t.close());

  const query = () => t.gql('{ pools(first: 1) { totalCount } }');

  it('serves while the event loop runs freely', async () => {
    const served = await query();
    expect(served.status).toBe(200);
    expect(served.data).toEqual({ pools: { totalCount: 1 } });
  });

  it('answers 503 with Retry-After, unread and at once, while the event loop is saturated; then recovers', async () => {
    busyWait(600);
    let response!: Awaited<ReturnType<typeof query>>;
    const statements = await t.countStatements(async () => {
      response = await query();
    });
    expect(response.status).toBe(503);
    expect(response.data).toBeUndefined();
    expect(response.headers['retry-after']).toBe('1');
    expect(response.errors?.[0]?.extensions).toEqual({ code: 'OVERLOADED', retryAfter: 1 });
    expect(statements).toBe(0);

    // Readiness is refused too, so a balancer stops sending; liveness and metrics still answer.
    busyWait(600);
    const ready = await t.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    // Whole seconds of the delay measured so far (one or two blocks, as the sampler ran between).
    expect(ready.headers['retry-after']).toMatch(/^[12]$/);
    expect(ready.json()).toEqual({ status: 'overloaded', pressure: 'event-loop' });
    busyWait(600);
    expect((await t.app.inject({ url: '/healthz' })).statusCode).toBe(200);
    const metrics = await t.app.inject({ url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    // The refused query and the refused readiness probe.
    expect(metricSample(metrics.body, 'poolgraph_load_shed_total', { pressure: 'event-loop' }) - shedBefore).toBe(2);

    // Keeps saturating: each request arrives after another 600 ms block and is refused.
    for (let i = 0; i < 3; i++) {
      busyWait(600);
      expect((await query()).status).toBe(503);
    }

    // The load stops: within a few samples requests are served again.
    await until(async () => (await query()).status === 200, 5000, 'a query served again');
    expect((await query()).data).toEqual({ pools: { totalCount: 1 } });
    expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(200);
  });
});

/** The collector itself: V8 gives `gc` to contexts created once --expose-gc is set. */
function exposedGc(): () => void {
  const { gc } = globalThis;
  // A full collection, synchronously (the function also has an asynchronous form).
  if (typeof gc === 'function') return () => gc();
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** The share of the heap limit in use, measured as the load monitor measures it. */
function heapUsedRatio(): number {
  const heap = getHeapStatistics();
  return heap.used_heap_size / heap.heap_size_limit;
}

/** What this test holds on the heap to put it under pressure: 256 MiB of doubles, in 16 arrays. */
const HELD_BYTES = 256 * 2 ** 20;
const holdHeap = () => Array.from({ length: 16 }, () => new Array<number>(HELD_BYTES / 16 / 8).fill(0.5));

describe('load shedding under memory pressure, measured for real', () => {
  const gc = exposedGc();
  let database: TestDatabase;
  let app: FastifyInstance;
  let threshold: number;
  beforeAll(async () => {
    database = await createTestDatabase('pglite');
    // Warm up (schema, modules) on a throwaway app, so the real one adds little to the heap.
    await (await createApp({ config: testConfig(), database: database.database })).close();
    gc();
    // Half of what the test will hold above today's heap: crossed when it holds, not before.
    threshold = Number((heapUsedRatio() + HELD_BYTES / getHeapStatistics().heap_size_limit / 2).toFixed(6));
    const config = testConfig({ LOAD_SHED_HEAP_USED_RATIO: String(threshold), LOAD_SHED_EVENT_LOOP_DELAY_MS: '0' });
    app = await createApp({ config, database: database.database });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await database?.drop();
  });

  const query = () => app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ pools(first: 1) { totalCount } }' } });
  /** Queries every 50 ms until one answers `status`; false if none does within 5 s (a sample is every 100 ms). */
  async function untilStatus(status: number): Promise<boolean> {
    return until(async () => (await query()).statusCode === status, 5000).then(
      () => true,
      () => false,
    );
  }

  it('refuses with 503 and Retry-After while the heap is over LOAD_SHED_HEAP_USED_RATIO, and serves again once it is freed', async () => {
    gc();
    expect(heapUsedRatio()).toBeLessThan(threshold);
    expect((await query()).statusCode).toBe(200);

    let held: number[][] | null = holdHeap();
    expect(heapUsedRatio()).toBeGreaterThan(threshold);
    expect(await untilStatus(503)).toBe(true);

    const statementsBefore = database.database.statementCount;
    const response = await query();
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.json().errors[0].extensions).toEqual({ code: 'OVERLOADED', retryAfter: 5 });
    expect(database.database.statementCount).toBe(statementsBefore);
    const ready = await app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.headers['retry-after']).toBe('5');
    expect(ready.json()).toEqual({ status: 'overloaded', pressure: 'memory' });
    expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
    const metrics = (await app.inject({ url: '/metrics' })).body;
    // The query that ended the wait, the one above, and the readiness probe.
    expect(metricSample(metrics, 'poolgraph_load_shed_total', { pressure: 'memory' })).toBe(3);
    expect(metricSample(metrics, 'poolgraph_load_shed_total', { pressure: 'event-loop' })).toBe(0);
    // A new socket is refused the same way, before the WebSocket handshake.
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const upgrade = await new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
      const socket = new WebSocket(`${address.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
      socket.once('unexpected-response', (_request, response) =>
        resolve({ status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'] }),
      );
      socket.once('open', () => reject(new Error('the socket was accepted under pressure')));
      socket.once('error', () => {});
    });
    expect(upgrade).toEqual({ status: 503, retryAfter: '5' });
    expect(metricSample((await app.inject({ url: '/metrics' })).body, 'poolgraph_load_shed_total', { pressure: 'memory' })).toBe(4);

    expect(held.length).toBe(16); // reachable until here, so nothing collected it sooner
    held = null;
    gc();
    expect(heapUsedRatio()).toBeLessThan(threshold);
    expect(await untilStatus(200)).toBe(true);
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
  });
});
