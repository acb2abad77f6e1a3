import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { signInAs } from '../support/sessions.js';
import { listen, socketClient, Subscription } from '../support/sockets.js';
import { kitWallet } from '../support/wallets.js';

const CHALLENGE = 'mutation($a: String!) { requestSignInChallenge(walletAddress: $a) { message } }';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** One error shape everywhere: `{ errors: [{ message, extensions: { code } }] }`. */
function expectRefusal(body: unknown, code: string): void {
  expect(body).toMatchObject({ errors: [{ message: expect.any(String), extensions: { code } }] });
}

describe.each(backends)('one pipeline, one error shape on %s', (kind) => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    // Only the database-failure test reads a row: the user it signs in as, written there.
    t = await startEmptyTestApp(kind, { config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '1000' }) });
    url = await listen(t);
  });
  afterAll(() => t.close());

  const post = (payload: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/graphql', payload: payload as object, headers });

  it("gives fastify's own refusals the same shape and a catalogue code", async () => {
    const form = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'query=%7B__typename%7D',
    });
    expect(form.statusCode).toBe(415);
    expectRefusal(form.json(), 'UNSUPPORTED_MEDIA_TYPE');

    const malformed = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json' },
      payload: '{"query": ',
    });
    expect(malformed.statusCode).toBe(400);
    expectRefusal(malformed.json(), 'BAD_REQUEST');

    const lying = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', 'content-length': '500' },
      payload: '{"query":"{ __typename }"}',
    });
    expect(lying.statusCode).toBe(400);
    expectRefusal(lying.json(), 'BAD_REQUEST');

    const missing = await t.app.inject({ url: '/graphql/no-such-route' });
    expect(missing.statusCode).toBe(404);
    expectRefusal(missing.json(), 'ROUTE_NOT_FOUND');
  });

  it('answers an APQ hash mismatch and an unknown hash with their own codes, an unknown version BAD_REQUEST', async () => {
    const query = '{ streaks(first: 1) { totalCount } }';
    const mismatch = await post({ query, extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ __typename }') } } });
    expect(mismatch.statusCode).toBe(400);
    expectRefusal(mismatch.json(), 'PERSISTED_QUERY_HASH_MISMATCH');

    const unknown = await post({
      extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ pools(first: 3) { totalCount } }') } },
    });
    expect(unknown.statusCode).toBe(404);
    expectRefusal(unknown.json(), 'PERSISTED_QUERY_NOT_FOUND');

    // A version of the protocol Apollo does not know: BAD_REQUEST, over HTTP and WebSocket alike.
    const version2 = { extensions: { persistedQuery: { version: 2, sha256Hash: sha256(query) } } };
    const http = await post({ query, ...version2 });
    expect(http.statusCode).toBe(400);
    expectRefusal(http.json(), 'BAD_REQUEST');
    const socket = socketClient(url);
    await socket.connected;
    try {
      const overSocket = new Subscription(socket.client, query, undefined, version2);
      await overSocket.waitForEnd();
      expectRefusal({ errors: overSocket.error }, 'BAD_REQUEST');
    } finally {
      await socket.dispose();
    }
  });

  it('knows a persisted query over WebSocket once registered over HTTP, and a subscription by its hash', async () => {
    const query = '{ pools(first: 4) { totalCount } }';
    const byHash = (text: string) => ({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(text) } } });
    const socket = socketClient(url);
    await socket.connected;
    try {
      const unknown = new Subscription(socket.client, '', undefined, byHash(query));
      await unknown.waitForEnd();
      expect((unknown.error as Array<{ extensions: { code: string } }>)[0]!.extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
      expect((await post({ query, ...byHash(query) })).json()).toEqual({ data: { pools: { totalCount: 0 } } });
      // One store: the hash Apollo registered over HTTP runs over the socket.
      const known = new Subscription(socket.client, '', undefined, byHash(query));
      await known.waitForEnd();
      expect(known.results).toEqual([{ data: { pools: { totalCount: 0 } } }]);

      // A subscription registers over the socket, then opens by its hash alone (the pool does not exist: NOT_FOUND from its source).
      const subscription = 'subscription { poolUpdated(poolId: "00000000-0000-4000-8000-000000000000") { id } }';
      for (const payload of [{ query: subscription }, {}]) {
        const opened = new Subscription(socket.client, payload.query ?? '', undefined, byHash(subscription));
        await opened.waitForEnd();
        expect(opened.error).toBeNull();
        expect(opened.results[0]?.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
      }
    } finally {
      await socket.dispose();
    }
  });

  it('codes validation errors the same over HTTP and WebSocket', async () => {
    const socket = socketClient(url);
    await socket.connected;
    try {
      const cases = [
        { query: '{ pools(first: 1) { nope } }', code: 'GRAPHQL_VALIDATION_FAILED' },
        { query: '{ pools(first: "ten") { totalCount } }', code: 'BAD_USER_INPUT', argumentName: 'first' },
        { query: '{ pools(first: 1) { totalCount }', code: 'GRAPHQL_PARSE_FAILED' },
        // A subscription's document is Apollo's to validate too, before the socket opens it.
        { query: 'subscription { poolUpdated(poolId: "p") { nope } }', code: 'GRAPHQL_VALIDATION_FAILED' },
        { query: 'subscription { poolUpdated(poolId: true) { id } }', code: 'BAD_USER_INPUT', argumentName: 'poolId' },
      ];
      for (const { query, code, argumentName } of cases) {
        const http = await post({ query });
        expect(http.statusCode, query).toBe(400);
        expect(http.json().errors[0].extensions, query).toMatchObject({ code, ...(argumentName ? { argumentName } : {}) });

        const subscription = new Subscription(socket.client, query);
        await subscription.waitForEnd();
        const errors = subscription.error as Array<{ extensions: Record<string, unknown> }>;
        expect(errors[0]!.extensions, query).toMatchObject({ code, ...(argumentName ? { argumentName } : {}) });
      }
    } finally {
      await socket.dispose();
    }
  });

  it("answers a variable that cannot be coerced BAD_USER_INPUT, a subscription's as a query's, over HTTP and WebSocket", async () => {
    const variables = { id: { not: 'an id' } };
    const http = await post({ query: 'query($id: ID!) { pool(id: $id) { id } }', variables });
    expect(http.statusCode).toBe(400);
    expectRefusal(http.json(), 'BAD_USER_INPUT');
    const socket = socketClient(url);
    await socket.connected;
    try {
      for (const query of ['query($id: ID!) { pool(id: $id) { id } }', 'subscription($id: ID!) { poolUpdated(poolId: $id) { id } }']) {
        const subscription = new Subscription(socket.client, query, variables);
        await subscription.waitForEnd();
        // A query is refused before it runs (`error`); a subscription's source answers it (`next`).
        const errors = (subscription.error ?? subscription.results[0]?.errors) as Array<{ message: string; extensions: { code: string } }>;
        expect(errors[0], query).toMatchObject({
          message: expect.stringMatching(/^Variable "\$id"/),
          extensions: { code: 'BAD_USER_INPUT' },
        });
      }
    } finally {
      await socket.dispose();
    }
  });

  it('answers a database failure while authenticating with 503 DATABASE_UNAVAILABLE, not INTERNAL_SERVER_ERROR', async () => {
    const { user } = await t.seed.user();
    const viewer = await signInAs(t, user.id);
    // The session is the written user's: the 503 below comes from reading them, not from a bad token.
    const healthy = await post({ query: '{ viewer { id } }' }, viewer.headers);
    expect(healthy.json()).toEqual({ data: { viewer: { id: user.id } } });
    // An API key is checked while the request's context is made, before Apollo's request pipeline starts.
    const { apiKey } = (await post({ query: 'mutation { createApiKey(name: "fault") { apiKey } }' }, viewer.headers)).json().data
      .createApiKey;
    // A fault the real database cannot be made to produce on cue: every read fails as a lost connection does.
    const original = { select: t.database.db.select, query: t.database.query };
    const refused = () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    };
    // Both ways in: the query builder, and the read path's statements (the session check is one).
    (t.database.db as { select: unknown }).select = refused;
    (t.database as { query: unknown }).query = refused;
    try {
      const response = await post({ query: '{ viewer { id } }' }, viewer.headers);
      expect(response.statusCode).toBe(503);
      expectRefusal(response.json(), 'DATABASE_UNAVAILABLE');
      expect(response.body).not.toMatch(/127\.0\.0\.1/);
      const socket = socketClient(url, { authorization: viewer.headers.authorization });
      expect(await socket.closed).toMatchObject({ code: 1013, reason: expect.stringMatching(/^DATABASE_UNAVAILABLE/) });
      await socket.dispose();

      // An uncoded failure there is masked as any other: INTERNAL_SERVER_ERROR with the request id that finds it in the logs.
      const uncoded = () => {
        throw new Error('no such table');
      };
      (t.database.db as { select: unknown }).select = uncoded;
      (t.database as { query: unknown }).query = uncoded;
      const internal = await post({ query: '{ viewer { id } }' }, { ...viewer.headers, 'x-request-id': 'auth-fault-1' });
      expect(internal.statusCode).toBe(500);
      expect(internal.json().errors[0].extensions).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', requestId: 'auth-fault-1' });
      const byKey = await post({ query: '{ viewer { id } }' }, { 'x-api-key': apiKey, 'x-request-id': 'auth-fault-2' });
      expect(byKey.statusCode).toBe(500);
      expect(byKey.json().errors[0]).toEqual({
        message: 'Internal server error',
        extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: 'auth-fault-2' },
      });
    } finally {
      (t.database.db as { select: unknown }).select = original.select;
      (t.database as { query: unknown }).query = original.query;
    }
  });

  it('refuses a subscription sent over HTTP (multipart, as Apollo Client sends it) naming the WebSocket endpoint', async () => {
    const response = await post(
      { query: 'subscription { poolCreated { id } }' },
      { accept: 'multipart/mixed;boundary="graphql";subscriptionSpec=1.0,application/json' },
    );
    expect(response.statusCode).toBe(400);
    expectRefusal(response.json(), 'SUBSCRIPTION_REQUIRES_WEBSOCKET');
    expect(response.json().errors[0].extensions.endpoint).toBe('/graphql');
  });

  it('runs graphql-js in its production build', async () => {
    const { instanceOf } = await import('graphql/jsutils/instanceOf.js');
    const { GraphQLObjectType } = await import('graphql');
    // The development build throws on an object that only claims to be a GraphQLObjectType.
    expect(instanceOf({ [Symbol.toStringTag]: 'GraphQLObjectType' }, GraphQLObjectType)).toBe(false);
  });
});

describe.each(backends)('429 with Retry-After for every RATE_LIMITED on %s', (kind) => {
  let t: TestApp;
  let limited: FastifyInstance;
  beforeAll(async () => {
    // No rows: the sign-ins and refusals below make (or need) none.
    t = await startEmptyTestApp(kind);
    limited = await createApp({
      config: testConfig({
        SIGN_IN_ATTEMPTS_PER_MINUTE: '1',
        SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '3',
        RATE_LIMIT_QUERIES_PER_MINUTE: '1000',
      }),
      database: t.database,
    });
  });
  afterAll(async () => {
    await limited.close();
    await t.close();
  });

  const from = (remoteAddress: string, payload: object, headers: Record<string, string> = {}) =>
    limited.inject({ method: 'POST', url: '/graphql', remoteAddress, payload, headers });

  it('a sign-in over its budget answers 429 with Retry-After', async () => {
    const wallet = await kitWallet();
    const first = await from('203.0.113.1', { query: CHALLENGE, variables: { a: wallet.address } });
    expect(first.statusCode).toBe(200);
    const second = await from('203.0.113.1', { query: CHALLENGE, variables: { a: wallet.address } });
    expect(second.statusCode).toBe(429);
    expectRefusal(second.json(), 'RATE_LIMITED');
    expect(Number(second.headers['retry-after'])).toBe(second.json().errors[0].extensions.retryAfter);
    expect(Number(second.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('counts failed authentication per client address: 429 with Retry-After once over budget, before any lookup', async () => {
    const bad = { authorization: 'Bearer not-a-token' };
    for (let i = 0; i < 3; i++) {
      const refused = await from('203.0.113.2', { query: '{ __typename }' }, i % 2 ? bad : { 'x-api-key': 'pg_nonsense' });
      expect(refused.statusCode).toBe(401);
      expectRefusal(refused.json(), 'UNAUTHENTICATED');
    }
    let over!: Awaited<ReturnType<typeof from>>;
    const statements = await t.countStatements(async () => {
      over = await from('203.0.113.2', { query: '{ __typename }' }, bad);
    });
    expect(over.statusCode).toBe(429);
    expectRefusal(over.json(), 'RATE_LIMITED');
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(statements).toBe(0);
    // Another client is not affected, and the limited one still runs without credentials.
    expect((await from('203.0.113.3', { query: '{ __typename }' }, bad)).statusCode).toBe(401);
    expect((await from('203.0.113.2', { query: '{ __typename }' })).json()).toEqual({ data: { __typename: 'Query' } });
  });
});
