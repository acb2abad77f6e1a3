import { describe, expect, it } from 'vitest';
import { CHALLENGE, post, slowPgliteDataDir, someWallet, startServerProcess } from '../support/slow-database.js';

/**
 * Real server processes (`node --import tsx/esm src/main.ts`) on PGlite data directories whose
 * sign-in challenges take seconds to insert: the database is slow, the server is not.
 */
describe('a slow statement on the embedded database stalls nothing (real process)', () => {
  it('answers /healthz and a query within 100 ms while a statement runs for seconds', { timeout: 240_000 }, async () => {
    const sleepSeconds = 8;
    const server = await startServerProcess({ PGLITE_DATA_DIR: await slowPgliteDataDir(sleepSeconds), DATABASE_STATEMENT_TIMEOUT_MS: '0' });
    try {
      let slowAnswered = false;
      const slow = post(server.base, CHALLENGE, { a: someWallet() }).finally(() => (slowAnswered = true));
      // The slow statement runs once a query that needs the database stops answering.
      for (;;) {
        const blocked = await fetch(`${server.base}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ pools(first: 1) { totalCount } }' }),
          signal: AbortSignal.timeout(1000),
        }).then(
          () => false,
          () => true,
        );
        if (blocked) break;
      }
      const probes: Array<{ what: string; ms: number; start: number; end: number; ok: boolean }> = [];
      for (let i = 0; i < 5; i++) {
        let start = performance.now();
        const health = await fetch(`${server.base}/healthz`);
        probes.push({ what: 'healthz', start, end: performance.now(), ms: performance.now() - start, ok: health.ok });
        start = performance.now();
        const typename = await post(server.base, '{ __typename }');
        probes.push({ what: 'query', start, end: typename.at, ms: typename.at - start, ok: typename.body.data?.__typename === 'Query' });
      }
      // Every probe ran while the statement did: it had started before them, and was still running after.
      // (Once seen answered early, not reproduced: the message says with what.)
      expect(slowAnswered, slowAnswered ? JSON.stringify(await slow) : '').toBe(false);
      const answered = await slow;
      expect(answered.body.data.requestSignInChallenge.nonce).toEqual(expect.any(String));
      expect(probes.every((p) => p.ok)).toBe(true);
      // The median within 100 ms; every one far from the seconds a blocked loop would take
      // (on a machine shared with other work, a single answer can wait for a CPU).
      const sorted = probes.map((p) => p.ms).sort((a, b) => a - b);
      expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThan(100);
      expect(sorted.at(-1)).toBeLessThan(1000);
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});

describe('SIGTERM (real process)', () => {
  it('drains: requests in flight when SIGTERM arrives all complete, and the process exits 0', { timeout: 240_000 }, async () => {
    // Each challenge takes a second in the database and PGlite runs one at a time, so
    // when the first is answered the others are surely in flight.
    const server = await startServerProcess({
      PGLITE_DATA_DIR: await slowPgliteDataDir(1),
      DATABASE_STATEMENT_TIMEOUT_MS: '0',
      SHUTDOWN_TIMEOUT_MS: '60000',
      LOG_LEVEL: 'info',
    });
    const requests = Array.from({ length: 4 }, () => post(server.base, CHALLENGE, { a: someWallet() }));
    await Promise.race(requests);
    server.child.kill('SIGTERM');
    const outcomes = await Promise.allSettled(requests);
    const exit = await server.exited;
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value.status : String(o.reason)))).toEqual([200, 200, 200, 200]);
    expect(outcomes.every((o) => o.status === 'fulfilled' && typeof o.value.body.data?.requestSignInChallenge?.nonce === 'string')).toBe(
      true,
    );
    expect({ ...exit, output: server.output() }).toEqual({ code: 0, signal: null, output: expect.stringContaining('shut down cleanly') });
  });

  it('exits within SHUTDOWN_TIMEOUT_MS when the database is stuck, naming what it cut off', { timeout: 240_000 }, async () => {
    const server = await startServerProcess({
      PGLITE_DATA_DIR: await slowPgliteDataDir(600),
      DATABASE_STATEMENT_TIMEOUT_MS: '0',
      REQUEST_TIMEOUT_MS: '0',
      SHUTDOWN_TIMEOUT_MS: '1500',
      LOG_LEVEL: 'info',
    });
    const stuck = post(server.base, CHALLENGE, { a: someWallet() }).catch((error: unknown) => error);
    // The statement is stuck once a query that needs the database no longer answers.
    const probe = await Promise.race([
      post(server.base, '{ pools(first: 1) { totalCount } }').then(() => 'answered'),
      new Promise((resolve) => setTimeout(resolve, 3000, 'waiting')),
    ]);
    expect(probe).toBe('waiting');
    const signalled = performance.now();
    server.child.kill('SIGTERM');
    const exit = await server.exited;
    const tookMs = performance.now() - signalled;
    expect(exit.code).toBe(1);
    expect(tookMs).toBeGreaterThanOrEqual(1500);
    expect(tookMs).toBeLessThan(1500 + 2000);
    expect(server.output()).toMatch(
      /shutdown cut off after 1500 ms while draining requests and sockets: 2 request\(s\) still running \[POST \/graphql/,
    );
    expect(server.output()).toMatch(/database: 1 statement\(s\) running, [1-9]\d* waiting/);
    await stuck;
  });
});
