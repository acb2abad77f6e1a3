import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../../src/server/app.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { listen, socketClient, Subscription } from '../support/sockets.js';

// Load shedding is off: it has its own suite (load-shedding.test.ts), and on a busy machine
// production's thresholds turned the answers checked here into OVERLOADED.
const PRODUCTION = {
  POOLGRAPH_MODE: 'production',
  AUTH_SECRET: 'c3f1a9d07be24e58a6d2917f04b8e3c5',
  EMBEDDED_CHAIN_IN_PRODUCTION: 'true',
  LOG_LEVEL: 'info',
  LOAD_SHED_EVENT_LOOP_DELAY_MS: '0',
  LOAD_SHED_DATABASE_WAIT_MS: '0',
};

describe.each(backends)('production mode on %s', (kind) => {
  let t: TestApp;
  let production: FastifyInstance;
  let withIntrospection: FastifyInstance;
  const lines: Array<Record<string, any>> = [];

  // No rows needed: what is checked is the shape of refusals and errors.
  beforeAll(async () => {
    t = await startEmptyTestApp(kind);
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
        done();
      },
    });
    production = await createApp({ config: testConfig(PRODUCTION), database: t.database, logStream });
    withIntrospection = await createApp({
      config: testConfig({ ...PRODUCTION, LOG_LEVEL: 'silent', INTROSPECTION: 'true' }),
      database: t.database,
    });
  });
  afterAll(async () => {
    await production.close();
    await withIntrospection.close();
    await t.close();
  });

  const gql = async (app: FastifyInstance, query: string, headers: Record<string, string> = {}) => {
    const response = await app.inject({ method: 'POST', url: '/graphql', payload: { query }, headers });
    return { status: response.statusCode, headers: response.headers, ...(response.json() as { data?: any; errors?: any[] }) };
  };

  it('refuses introspection and hides the explorer', async () => {
    for (const query of ['{ __schema { queryType { name } } }', '{ __type(name: "Pool") { fields { name } } }']) {
      const response = await gql(production, query);
      expect(response.status).toBe(400);
      expect(response.data).toBeUndefined();
      expect(response.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(response.errors?.[0]?.message).toMatch(/introspection is not allowed/i);
      expect(response.errors?.[0]?.message).toContain('INTROSPECTION=true');
      expect(response.errors?.[0]?.message).not.toContain('ApolloServer');
    }
    // A browser is told the explorer is off and how it is turned on, not refused as a cross-site request.
    const page = await production.inject({ url: '/graphql', headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('The explorer is off on this server');
    expect(page.body).toContain('INTROSPECTION=true');
    expect(page.body).not.toMatch(/graphiql/i);
    expect((await production.inject({ url: '/graphql/explorer/graphiql.js' })).statusCode).toBe(404);
    // __typename is not introspection.
    expect((await gql(production, '{ __typename }')).data).toEqual({ __typename: 'Query' });
  });

  it("validates a subscription over WebSocket by Apollo's rules too: no introspection in its document, no suggestions", async () => {
    const socket = socketClient(await listen({ app: production }));
    await socket.connected;
    const refusalOf = async (query: string, operationName?: string) => {
      const subscription = new Subscription(socket.client, query, undefined, operationName ? { operationName } : {});
      await subscription.waitForEnd();
      return (subscription.error as Array<{ message: string; extensions: { code: string } }>)[0]!;
    };
    try {
      const introspecting = await refusalOf('subscription S { poolCreated { id } } query Q { __schema { queryType { name } } }', 'S');
      expect(introspecting.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(introspecting.message).toMatch(/introspection is not allowed/i);
      const misspelt = await refusalOf('subscription { poolCreated { titel } }');
      expect(misspelt).toMatchObject({
        message: expect.stringMatching(/Cannot query field "titel"/),
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      });
      expect(misspelt.message).not.toMatch(/Did you mean/);
    } finally {
      await socket.dispose();
    }
  });

  it('gives no field suggestions ("Did you mean") that would reveal the schema', async () => {
    const hidden = await gql(production, '{ pools(first: 1) { totalCont } }');
    expect(hidden.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(hidden.errors?.[0]?.message).toMatch(/Cannot query field "totalCont"/);
    expect(hidden.errors?.[0]?.message).not.toMatch(/Did you mean/);
    // Outside production (and with introspection re-enabled) the suggestion helps.
    expect((await t.gql('{ pools(first: 1) { totalCont } }')).errors?.[0]?.message).toMatch(/Did you mean "totalCount"/);
    expect((await gql(withIntrospection, '{ pools(first: 1) { totalCont } }')).errors?.[0]?.message).toMatch(/Did you mean/);
  });

  it('re-enables introspection with INTROSPECTION=true', async () => {
    const response = await gql(withIntrospection, '{ __schema { queryType { name } } }');
    expect(response.errors).toBeUndefined();
    expect(response.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
  });

  it('masks an uncoded error as INTERNAL_SERVER_ERROR with the request id, logging the detail under that id', async () => {
    // Make the data layer fail in a way no error code covers (a fault injector: the read path's query).
    const original = t.database.query;
    (t.database as { query: unknown }).query = () => Promise.reject(new Error('relation "secret_table" does not exist at 10.1.2.3'));
    let response;
    try {
      response = await gql(production, 'query Broken { pools(first: 1) { totalCount } }', { 'x-request-id': 'prod-req-1' });
    } finally {
      (t.database as { query: unknown }).query = original;
    }
    expect(response.headers['x-request-id']).toBe('prod-req-1');
    expect(response.errors).toHaveLength(1);
    const [error] = response.errors!;
    expect(error.message).toBe('Internal server error');
    expect(error.extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR', requestId: 'prod-req-1' });
    expect(JSON.stringify(response)).not.toMatch(/secret_table|10\.1\.2\.3|stacktrace|at .*\.ts/);

    const logged = lines.filter((line) => line.reqId === 'prod-req-1');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 50, operation: 'Broken', outcome: 'INTERNAL_SERVER_ERROR' });
    expect(logged[0]!.err.message).toMatch(/secret_table/);
  });

  it('keeps coded errors as they are, without stack traces', async () => {
    const response = await gql(production, '{ pool(id: "nope") { id } }');
    expect(response.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(response.errors?.[0]?.extensions?.stacktrace).toBeUndefined();
    expect(response.errors?.[0]?.extensions?.requestId).toBeUndefined();
  });
});

describe('trusted documents', () => {
  const registered = 'query Pools { pools(first: 2) { totalCount } }';
  const hash = createHash('sha256').update(registered).digest('hex');
  let dir: string;
  let t: TestApp;
  let trusted: FastifyInstance;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'poolgraph-manifest-'));
    const manifest = {
      format: 'apollo-persisted-query-manifest',
      version: 1,
      operations: [{ id: hash, name: 'Pools', type: 'query', body: registered }],
    };
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
    writeFileSync(join(dir, 'wrong.json'), JSON.stringify({ ['0'.repeat(64)]: registered }));
    t = await startEmptyTestApp('pglite');
    // Three pools and two streaks for the documents to count.
    await t.seed.user().withPool().withPool({ phase: 'ended' }).withPool({ phase: 'upcoming' });
    await t.seed.streak();
    await t.seed.streak();
    trusted = await createApp({ config: testConfig({ TRUSTED_DOCUMENTS: join(dir, 'manifest.json') }), database: t.database });
  });
  afterAll(async () => {
    await trusted.close();
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = async (app: FastifyInstance, payload: Record<string, unknown>) => {
    const response = await app.inject({ method: 'POST', url: '/graphql', payload });
    return { status: response.statusCode, ...(response.json() as { data?: any; errors?: any[] }) };
  };
  const byHash = (sha256Hash: string) => ({ persistedQuery: { version: 1, sha256Hash } });

  it('runs a registered document, sent in full or by its hash alone (POST and GET)', async () => {
    expect((await post(trusted, { query: registered })).data.pools.totalCount).toBe(3);
    expect((await post(trusted, { extensions: byHash(hash) })).data.pools.totalCount).toBe(3);
    const get = await trusted.inject({
      url: `/graphql?extensions=${encodeURIComponent(JSON.stringify(byHash(hash)))}`,
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(get.statusCode).toBe(200);
    expect(get.json().data.pools.totalCount).toBe(3);
  });

  it('refuses any other document, or hash, before parsing it; nothing can be registered', async () => {
    const other = '{ pools(first: 1) { totalCount } }';
    const otherHash = createHash('sha256').update(other).digest('hex');
    let responses: Array<Awaited<ReturnType<typeof post>>> = [];
    const statements = await t.countStatements(async () => {
      responses = [
        await post(trusted, { query: other }),
        await post(trusted, { extensions: byHash(otherHash) }),
        await post(trusted, { query: other, extensions: byHash(otherHash) }),
        await post(trusted, { extensions: byHash(otherHash) }),
      ];
    });
    for (const response of responses) {
      expect(response.status).toBe(400);
      expect(response.errors?.[0]?.extensions?.code).toBe('UNTRUSTED_DOCUMENT');
    }
    expect(statements).toBe(0);
  });

  it('runs only registered documents over WebSocket too: in full or by hash; any other is refused before it runs', async () => {
    const socket = socketClient(await listen({ app: trusted }));
    await socket.connected;
    const other = '{ pools(first: 1) { totalCount } }';
    const outcome = async (query: string, extensions?: Record<string, unknown>) => {
      const subscription = new Subscription(socket.client, query, undefined, extensions ? { extensions } : {});
      await subscription.waitForEnd();
      const errors = subscription.error as Array<{ extensions: { code: string } }> | null;
      return errors ? errors[0]!.extensions.code : subscription.results[0]!.data;
    };
    try {
      let outcomes: unknown[] = [];
      const statements = await t.countStatements(async () => {
        outcomes = [await outcome(other), await outcome('', byHash(createHash('sha256').update(other).digest('hex')))];
      });
      expect(outcomes).toEqual(['UNTRUSTED_DOCUMENT', 'UNTRUSTED_DOCUMENT']);
      expect(statements).toBe(0);
      expect(await outcome(registered)).toEqual({ pools: { totalCount: 3 } });
      expect(await outcome('', byHash(hash))).toEqual({ pools: { totalCount: 3 } });
    } finally {
      await socket.dispose();
    }
  });

  it('keeps automatic persisted queries when trusted documents are off', async () => {
    const query = '{ streaks(first: 1) { totalCount } }';
    const sha256Hash = createHash('sha256').update(query).digest('hex');
    const unknown = await post(t.app, { extensions: byHash(sha256Hash) });
    expect(unknown.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect((await post(t.app, { query, extensions: byHash(sha256Hash) })).errors).toBeUndefined();
    // Answered from the stored query: the count of every streak, as SQL counts them.
    const [{ n }] = (await t.database.rows<{ n: number }>(sql`select count(*)::int as n from streaks`)) as [{ n: number }];
    expect(n).toBe(2);
    expect((await post(t.app, { extensions: byHash(sha256Hash) })).data).toEqual({ streaks: { totalCount: n } });
  });

  it('stops the start-up with one clear line for a missing or wrong manifest', async () => {
    expect(() => testConfig({ TRUSTED_DOCUMENTS: join(dir, 'missing.json') })).toThrow(/TRUSTED_DOCUMENTS names no file/);
    await expect(createApp({ config: testConfig({ TRUSTED_DOCUMENTS: join(dir, 'wrong.json') }), database: t.database })).rejects.toThrow(
      /TRUSTED_DOCUMENTS .* lists id 0+, which is not the SHA-256 of its document/,
    );
  });
});
