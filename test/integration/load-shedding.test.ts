import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricSample, startTestApp, testConfig, type TestApp } from './harness.js';

/** Blocks this process's event loop (and so the in-process server's) for `ms`. */
function busyWait(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('load shedding', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { config: testConfig({ LOAD_SHED_EVENT_LOOP_DELAY_MS: '200' }) });
    await sleep(300); // the monitor has sampled a free loop
  });
  afterAll(() => t.close());

  const query = () => t.gql('{ pools(first: 1) { totalCount } }');

  it('serves while the event loop runs freely', async () => {
    expect((await query()).status).toBe(200);
  });

  it('answers 503 with Retry-After, unread and at once, while the event loop is saturated; then recovers', async () => {
    busyWait(600);
    let response!: Awaited<ReturnType<typeof query>>;
    const statements = await t.countStatements(async () => {
      response = await query();
    });
    expect(response.status).toBe(503);
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
    expect(metricSample(metrics.body, 'poolgraph_load_shed_total', { pressure: 'event-loop' })).toBe(2);

    // Keeps saturating: each request arrives after another 600 ms block and is refused.
    for (let i = 0; i < 3; i++) {
      busyWait(600);
      expect((await query()).status).toBe(503);
    }

    // The load stops: within a few samples requests are served again.
    const deadline = Date.now() + 5000;
    let recovered = false;
    while (!recovered && Date.now() < deadline) {
      await sleep(50);
      recovered = (await query()).status === 200;
    }
    expect(recovered).toBe(true);
    expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(200);
  });
});
