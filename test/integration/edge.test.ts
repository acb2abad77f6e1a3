import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { loadConfig } from '../../src/config.js';
import { createApp } from '../../src/server/app.js';
import { startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { subscriptionsOpen } from '../support/wait.js';
import { signInAs } from '../support/sessions.js';
import { socketClient, Subscription } from '../support/sockets.js';

const ALLOWED = 'https://app.example';
const FOREIGN = 'https://evil.example';

/** A WebSocket class sending the headers a browser page on `origin` would (its cookie included). */
function browserSocket(origin: string, cookie?: string): typeof WebSocket {
  return class extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers: { origin, ...(cookie ? { cookie } : {}) } });
    }
  } as typeof WebSocket;
}

describe('the edge of the server: hosts, browsers, slow bodies, socket caps', () => {
  let t: TestApp;
  let app: FastifyInstance;
  let base: string;
  let cookie: string;
  /** The one row needed: the user whose session cookie the browser sockets carry. */
  let userId: string;
  beforeAll(async () => {
    t = await startEmptyTestApp('pglite', { config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '1000' }) });
    userId = (await t.seed.user()).user.id;
    cookie = `poolgraph_access=${(await signInAs(t, userId)).accessToken}`;
    app = await createApp({
      config: testConfig({
        ALLOWED_ORIGINS: ALLOWED,
        REQUEST_BODY_TIMEOUT_MS: '300',
        MAX_SOCKETS_PER_CLIENT: '3',
        MAX_SUBSCRIPTIONS_PER_CLIENT: '2',
      }),
      database: t.database,
    });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  }, 300_000);
  afterAll(async () => {
    await app.close();
    await t.close();
  });
  const wsUrl = () => `${base.replace(/^http/, 'ws')}/graphql`;

  it('serves only the configured host names (DNS rebinding)', async () => {
    const rebound = await app.inject({ url: '/healthz', headers: { host: 'attacker.example:4000' } });
    expect(rebound.statusCode).toBe(403);
    expect(rebound.json().errors[0].extensions.code).toBe('HOST_NOT_ALLOWED');
    expect((await app.inject({ url: '/healthz', headers: { host: 'localhost:4000' } })).statusCode).toBe(200);
    expect((await app.inject({ url: '/healthz', headers: { host: '127.0.0.1' } })).statusCode).toBe(200);
  });

  it('answers CORS preflights with credentials for listed origins only, on /graphql and any route', async () => {
    for (const url of ['/graphql', '/healthz']) {
      const allowed = await app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: ALLOWED, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(allowed.statusCode, url).toBe(204);
      expect(allowed.headers['access-control-allow-origin'], url).toBe(ALLOWED);
      expect(allowed.headers['access-control-allow-credentials'], url).toBe('true');
      const foreign = await app.inject({ method: 'OPTIONS', url, headers: { origin: FOREIGN, 'access-control-request-method': 'POST' } });
      expect(foreign.headers['access-control-allow-origin'], url).toBeUndefined();
    }
    const post = await app.inject({ method: 'POST', url: '/graphql', headers: { origin: ALLOWED }, payload: { query: '{ __typename }' } });
    expect(post.headers['access-control-allow-origin']).toBe(ALLOWED);
    // A simple cross-site request (no preflight) still meets CSRF prevention.
    const simple = await app.inject({ url: `/graphql?query=${encodeURIComponent('{ __typename }')}`, headers: { origin: FOREIGN } });
    expect(simple.statusCode).toBe(400);
    expect(simple.json().errors[0].extensions.code).toBe('BAD_REQUEST');
  });

  it('refuses a cookie-authenticated socket from an origin not listed; serves listed ones and token sockets', async () => {
    const query = '{ viewer { id } }';
    const hijack = new WebSocket(wsUrl(), 'graphql-transport-ws', { headers: { origin: FOREIGN, cookie } });
    const closed = await new Promise<number>((resolve) => {
      hijack.on('open', () => hijack.send(JSON.stringify({ type: 'connection_init' })));
      hijack.on('close', (code) => resolve(code));
    });
    expect(closed).toBe(4403);

    const { createClient } = await import('graphql-ws');
    const viewerOver = async (impl: typeof WebSocket) => {
      const client = createClient({ url: wsUrl(), webSocketImpl: impl, retryAttempts: 0, lazy: true });
      try {
        const subscription = new Subscription(client, query);
        await subscription.waitForEnd();
        return subscription.results[0]?.data?.viewer?.id ?? null;
      } finally {
        await client.dispose();
      }
    };
    expect(await viewerOver(browserSocket(ALLOWED, cookie))).toBe(userId);
    // The server's own origin (the explorer) is always allowed.
    expect(await viewerOver(browserSocket(base, cookie))).toBe(userId);
  });

  it('times out a body sent slowly instead of holding the connection', async () => {
    const { port } = new URL(base);
    const started = Date.now();
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write('POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
      });
      let received = '';
      socket.on('data', (chunk) => (received += chunk));
      socket.on('close', () => resolve(received));
      socket.on('error', () => resolve(received));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('caps open sockets and subscriptions per client address', async () => {
    const sockets = [socketClient(wsUrl()), socketClient(wsUrl()), socketClient(wsUrl())];
    await Promise.all(sockets.map((s) => s.connected));
    const fourth = await new Promise<number>((resolve) => {
      const ws = new WebSocket(wsUrl(), 'graphql-transport-ws');
      ws.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      ws.on('open', () => resolve(101));
    });
    expect(fourth).toBe(429);

    // The third is sent once the first two are open: which of three sent at once is refused is not defined.
    const subscriptions = [0, 1].map((i) => new Subscription(sockets[i]!.client, 'subscription { poolCreated { id } }'));
    await subscriptionsOpen(app, 2);
    const third = new Subscription(sockets[2]!.client, 'subscription { poolCreated { id } }');
    await third.waitForEnd();
    expect((third.error as Array<{ extensions: { code: string } }>)[0]!.extensions.code).toBe('RATE_LIMITED');
    // Completing one frees its place: the open-subscription gauge shows when.
    await subscriptionsOpen(app, 2);
    subscriptions[0]!.unsubscribe();
    await subscriptionsOpen(app, 1);
    const again = new Subscription(sockets[1]!.client, 'subscription { poolCreated { id } }');
    await subscriptionsOpen(app, 2);
    expect(again.error).toBeNull();
    await Promise.all(sockets.map((s) => s.dispose()));
  });
});

describe('ALLOWED_ORIGINS and ALLOWED_HOSTS defaults', () => {
  it('allows localhost origins in development only, and serves any host in production unless set', () => {
    const development = loadConfig({ POOLGRAPH_MODE: 'development' });
    expect(development.http.allowedOrigins).toEqual(['http://localhost:*', 'http://127.0.0.1:*']);
    expect(development.http.allowedHosts).toEqual(expect.arrayContaining(['localhost', '127.0.0.1']));
    const production = loadConfig({
      POOLGRAPH_MODE: 'production',
      EMBEDDED_CHAIN_IN_PRODUCTION: 'true',
      AUTH_SECRET: 'c3f1a9d07be24e58a6d2917f04b8e3c5',
    });
    expect(production.http.allowedOrigins).toEqual([]);
    expect(production.http.allowedHosts).toEqual([]);
    expect(
      loadConfig({
        POOLGRAPH_MODE: 'production',
        EMBEDDED_CHAIN_IN_PRODUCTION: 'true',
        AUTH_SECRET: 'c3f1a9d07be24e58a6d2917f04b8e3c5',
        ALLOWED_ORIGINS: 'https://a.example, https://b.example',
      }).http.allowedOrigins,
    ).toEqual(['https://a.example', 'https://b.example']);
  });
});
