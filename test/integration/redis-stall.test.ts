import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { freePort } from '../support/ports.js';
import { hasRedisServer, startRedis } from '../support/redis-server.js';
import { walletSignIn } from '../support/sessions.js';
import { listen, socketClient } from '../support/sockets.js';
import { until } from '../support/wait.js';
import { kitWallet } from '../support/wallets.js';

const LIMIT = 20;
const QUERY = { query: '{ pools(first: 1) { totalCount } }' };

/**
 * A Redis that stops answering without closing its connection (SIGSTOP: the socket stays
 * open, nothing replies) for as long as the test runs: every kind of request must still be
 * answered, from the in-memory fallbacks, and /readyz say so.
 */
describe.runIf(hasRedisServer)('a Redis that stops answering', () => {
  let redis: ChildProcess;
  let t: TestApp;
  let url: string;

  beforeAll(async () => {
    const port = await freePort();
    redis = await startRedis(port);
    t = await startEmptyTestApp('pglite', {
      config: testConfig({
        REDIS_URL: `redis://127.0.0.1:${port}`,
        REDIS_KEY_PREFIX: `stall-${process.pid}-${Date.now()}`,
        // Long enough that a Redis merely slow under CI's load still counts (at 250 ms one run's budget fell back to memory
        // before the stall), short enough that the stalled requests are answered well within their budget.
        REDIS_COMMAND_TIMEOUT_MS: '1500',
        RATE_LIMIT_QUERIES_PER_MINUTE: String(LIMIT),
        MAX_SOCKETS_PER_CLIENT: '50',
        MAX_SUBSCRIPTIONS_PER_CLIENT: '50',
      }),
    });
    url = await listen(t);
  });
  afterAll(async () => {
    redis?.kill('SIGCONT');
    redis?.kill('SIGKILL');
    await t?.close();
  });

  const query = (remoteAddress: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/graphql', remoteAddress, headers, payload: QUERY });
  const readiness = async () => (await t.app.inject({ url: '/readyz' })).json() as Record<string, unknown>;

  it('costs each request at most the command timeout; the limits fall back to memory; /readyz says degraded', async () => {
    await until(async () => (await readiness()).redis === 'ok', 10_000, 'Redis to answer');
    expect(await readiness()).toEqual({ status: 'ready', database: 'pglite', redis: 'ok' });
    // The budget of 203.0.113.9 spent in Redis: the next query is refused there.
    for (let i = 0; i < LIMIT; i++) expect((await query('203.0.113.9')).statusCode).toBe(200);
    expect((await query('203.0.113.9')).statusCode).toBe(429);
    const session = await walletSignIn(t.gql, await kitWallet());

    redis.kill('SIGSTOP');

    // Redis stays stopped until the end of this block: each of these is answered only if nothing waits for it.
    const socket = socketClient(url, { authorization: `Bearer ${session.accessToken}` });
    const badSocket = socketClient(url, { authorization: 'Bearer not-a-token' });
    const [anonymous, signedIn, typename, restRead, badBearer, challenge] = await Promise.all([
      query('198.51.100.1'),
      query('198.51.100.2', session.headers),
      t.app.inject({ method: 'POST', url: '/graphql', remoteAddress: '198.51.100.3', payload: { query: '{ __typename }' } }),
      t.app.inject({ method: 'GET', url: '/pools?limit=1', remoteAddress: '198.51.100.4' }),
      query('198.51.100.5', { authorization: 'Bearer not-a-token' }),
      t.app.inject({
        method: 'POST',
        url: '/graphql',
        remoteAddress: '198.51.100.6',
        payload: {
          query: 'mutation($a: String!) { requestSignInChallenge(walletAddress: $a) { nonce } }',
          variables: { a: (await kitWallet()).address },
        },
      }),
    ]);
    expect([anonymous, signedIn, typename, restRead, challenge].map((response) => response.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(signedIn.json().errors).toBeUndefined();
    expect(challenge.json().errors).toBeUndefined();
    expect(badBearer.statusCode).toBe(401);
    await socket.connected;
    expect((await badSocket.closed).code).toBe(4403);
    await socket.dispose();

    // As for an outage: this process counts alone, in memory, so the address spent in Redis has a fresh budget here.
    const during: number[] = [];
    for (let i = 0; i <= LIMIT; i++) during.push((await query('203.0.113.9')).statusCode);
    expect(during.filter((status) => status === 200)).toHaveLength(LIMIT);
    expect(during.at(-1)).toBe(429);

    // A replica without Redis still serves: ready (200), saying it is degraded.
    const ready = await t.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'degraded', database: 'pglite', redis: 'unreachable' });

    redis.kill('SIGCONT');
    await until(async () => (await readiness()).redis === 'ok', 10_000, 'Redis to answer again');
    // Shared again: the count kept in Redis refuses the address once more.
    expect((await query('203.0.113.9')).statusCode).toBe(429);
  });
});
