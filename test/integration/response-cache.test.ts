import { randomUUID } from 'node:crypto';
import type { ApolloServerPlugin } from '@apollo/server';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import type { GraphQLContext } from '../../src/server/context.js';
import { startEmptyTestApp, type TestApp, testConfig } from '../support/harness.js';
import { signInAs, type SignedIn } from '../support/sessions.js';
import { until } from '../support/wait.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PUBLIC_READ = '{ pools(first: 5) { totalCount nodes { id title user { username } } } }';

/** Apollo's response cache switched on by RESPONSE_CACHE: public answers served again with no statement, private ones never shared. */
describe("Apollo's response cache (RESPONSE_CACHE=true)", () => {
  let t: TestApp;
  let alice: SignedIn;
  let bob: SignedIn;
  let poolId: string;
  const apps: FastifyInstance[] = [];
  beforeAll(async () => {
    t = await startEmptyTestApp('pglite', { config: testConfig({ RESPONSE_CACHE: 'true' }) });
    const a = await t.seed.user({ username: `alice_${randomUUID().slice(0, 6)}` }).withPool();
    const b = await t.seed.user({ username: `bob_${randomUUID().slice(0, 6)}` }).withPool();
    poolId = a.pool!.id;
    alice = await signInAs(t, a.user.id);
    bob = await signInAs(t, b.user.id);
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await t.close();
  });

  const post = (app: FastifyInstance, query: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: '/graphql', headers, payload: { query } });

  it('serves a repeated public query from the cache: no statement', async () => {
    const first = await post(t.app, PUBLIC_READ);
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('max-age=60, public');
    let again: Awaited<ReturnType<typeof post>> | undefined;
    expect(await t.countStatements(async () => (again = await post(t.app, PUBLIC_READ)))).toBe(0);
    expect(again!.json()).toEqual(first.json());
  });

  it("keeps one viewer's private data from another", async () => {
    const query = '{ viewer { id username } }';
    for (const viewer of [alice, bob, alice, bob]) {
      let response: Awaited<ReturnType<typeof post>> | undefined;
      // Never kept: each asks the database again.
      expect(await t.countStatements(async () => (response = await post(t.app, query, viewer.headers)))).toBeGreaterThan(0);
      expect(response!.json().data.viewer.id).toBe(viewer.userId);
    }
  });

  it("keeps a REST route's answer, written in the REST form, apart from the same operation over /graphql", async () => {
    // The route's operation as Apollo received it (its document and variables), to send to /graphql as it is.
    const received: Array<{ query?: string; variables?: Record<string, unknown> }> = [];
    const recorder: ApolloServerPlugin<GraphQLContext> = {
      async requestDidStart({ request }) {
        received.push({ query: request.query, variables: request.variables });
      },
    };
    const app = await createApp({ config: testConfig({ RESPONSE_CACHE: 'true' }), database: t.database, plugins: [recorder] });
    apps.push(app);
    const url = `/pools/${poolId}?includes=user&includes=predictions.user`;
    const rest = await app.inject({ method: 'GET', url });
    expect(rest.statusCode).toBe(200);
    expect(rest.json()).toHaveProperty('created_at');
    expect(Array.isArray(rest.json().predictions)).toBe(true);
    let again: Awaited<ReturnType<typeof post>> | undefined;
    expect(await t.countStatements(async () => (again = await app.inject({ method: 'GET', url })))).toBe(0);
    expect(again!.json()).toEqual(rest.json());
    const [operation] = received;
    expect(operation?.query).toContain('RestGetPool');
    // Sent to /graphql: GraphQL's form, twice (its walk and the cache keep the forms apart).
    for (let i = 0; i < 2; i++) {
      const graphql = await app.inject({ method: 'POST', url: '/graphql', payload: operation! });
      const pool = graphql.json().data.pool;
      expect(pool).toHaveProperty('createdAt');
      expect(pool).not.toHaveProperty('created_at');
      expect(Array.isArray(pool.predictions.nodes)).toBe(true);
    }
  });

  it('with Redis, replicas share it: what one kept, another serves with no statement', async () => {
    const env = { RESPONSE_CACHE: 'true', REDIS_URL, REDIS_KEY_PREFIX: `test-${randomUUID()}` };
    for (let i = 0; i < 2; i++) apps.push(await createApp({ config: testConfig(env), database: t.database }));
    const [one, two] = apps.slice(-2);
    const query = '{ pools(first: 3) { nodes { id title } } }';
    // A replica counts Redis unreachable until its first connection answers (within the command
    // timeout, which a loaded machine can miss): meanwhile it keeps nothing there and serves
    // nothing from it. Both are asked until Redis answers them.
    for (const app of [one!, two!])
      await until(async () => (await app.inject({ url: '/readyz' })).json().redis === 'ok', 10_000, 'a replica reaching Redis');
    // Apollo's plugin writes the cache in the background, after the answer: asked again until the write is there.
    const redis = new Redis(REDIS_URL);
    let kept: Awaited<ReturnType<typeof post>> | undefined;
    try {
      await until(
        async () => {
          kept = await post(one!, query);
          expect(kept.statusCode).toBe(200);
          return (await redis.keys(`${env.REDIS_KEY_PREFIX}:response-cache:*`)).length > 0;
        },
        10_000,
        'the answer kept in Redis',
      );
    } finally {
      redis.disconnect();
    }
    let served: Awaited<ReturnType<typeof post>> | undefined;
    expect(await t.countStatements(async () => (served = await post(two!, query)))).toBe(0);
    expect(served!.json()).toEqual(kept!.json());
  });
});
