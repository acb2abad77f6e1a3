import { runInNewContext } from 'node:vm';
import { Client, fetchExchange, gql } from '@urql/core';
import type { PoolRow } from '../../schema/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { EventHub } from '../../src/modules/events/event-hub.js';
import { backends, startEmptyTestApp, type TestApp } from '../support/harness.js';
import { listen } from '../support/sockets.js';
import { subscriptionsOpen, until } from '../support/wait.js';

describe.each(backends)('HTTP surface on %s', (kind) => {
  let t: TestApp;
  /** Three pools: the GraphQL answers list the first two by end date; the subscription announces one. */
  let pools: PoolRow[];
  beforeAll(async () => {
    t = await startEmptyTestApp(kind);
    ({ pools } = await t.seed.user().withPool({ phase: 'ended' }).withPool().withPool({ phase: 'upcoming' }));
  });
  afterAll(() => t.close());

  it('answers 404 for any explorer path that names no asset, the names every object has included', async () => {
    const names = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'nope.js', '%5F%5Fproto%5F%5F'];
    for (const name of names) {
      const response = await t.app.inject({ url: `/graphql/explorer/${name}` });
      expect(response.statusCode, name).toBe(404);
    }
    expect((await t.app.inject({ url: '/graphql/explorer/graphiql.css' })).statusCode).toBe(200);
  });

  it('serves /healthz and /readyz', async () => {
    const health = await t.app.inject({ url: '/healthz' });
    expect(health.statusCode).toBe(200);
    const ready = await t.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', database: kind });
  });

  it('answers GraphQL over GET as well as POST', async () => {
    const query = encodeURIComponent('{ pools(first: 2) { nodes { id } } }');
    const get = await t.app.inject({ url: `/graphql?query=${query}`, headers: { 'apollo-require-preflight': 'true' } });
    expect(get.statusCode).toBe(200);
    const post = await t.gql('{ pools(first: 2) { nodes { id } } }');
    expect(get.json().data).toEqual(post.data);
    expect(post.data.pools.nodes).toEqual([{ id: pools[0]!.id }, { id: pools[1]!.id }]);
  });

  it("refuses urql's default client with the fix in its message, and answers it configured as docs/api.md says", async () => {
    const url = (await listen(t)).replace(/^ws/, 'http');
    const query = gql`
      {
        pools(first: 2) {
          nodes {
            id
          }
        }
      }
    `;
    // urql's defaults: a short query goes as GET, with no content type and no preflight header.
    const refused = await new Client({ url, exchanges: [fetchExchange] }).query(query, {}).toPromise();
    expect(refused.data).toBeUndefined();
    expect(refused.error?.response?.status).toBe(400);
    expect(refused.error?.message).toMatch(/apollo-require-preflight/);
    for (const client of [
      new Client({ url, exchanges: [fetchExchange], fetchOptions: { headers: { 'apollo-require-preflight': 'true' } } }),
      new Client({ url, exchanges: [fetchExchange], preferGetMethod: false }),
    ]) {
      const answered = await client.query(query, {}).toPromise();
      expect(answered.error).toBeUndefined();
      expect(answered.data.pools.nodes).toHaveLength(2);
    }
  });

  it('serves the explorer page to browsers, with every asset from this server', async () => {
    const page = await t.app.inject({ url: '/graphql', headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    const sources = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.length).toBeGreaterThanOrEqual(4);
    for (const source of sources) {
      expect(source.startsWith('/graphql/explorer/'), source).toBe(true);
      const asset = await t.app.inject({ url: source });
      expect(asset.statusCode, source).toBe(200);
      expect(asset.body.length, source).toBeGreaterThan(1000);
    }
  });

  it("runs the explorer's subscriptions with the graphql-ws browser build it serves", async () => {
    const page = await t.app.inject({ url: '/graphql', headers: { accept: 'text/html' } });
    expect(page.body).toContain('graphqlWs.createClient');
    // Evaluated as the page's <script> would be, with a browser's global object.
    const browser: Record<string, any> = { setTimeout, clearTimeout, console, WebSocket };
    runInNewContext((await t.app.inject({ url: '/graphql/explorer/graphql-ws.js' })).body, browser);
    const url = await listen(t);
    const client = browser.graphqlWs.createClient({ url, lazy: true });
    const received: unknown[] = [];
    const unsubscribe = client.subscribe(
      { query: 'subscription { poolCreated { id } }' },
      { next: (r: unknown) => received.push(r), error: (e: unknown) => received.push({ error: e }), complete: () => {} },
    );
    await subscriptionsOpen(t.app, 1);
    const pool = pools[2];
    await new EventHub(t.database).publish([{ type: 'poolCreated', poolId: pool!.id }]);
    await until(() => received.length > 0, 5000, 'the poolCreated result');
    expect(received).toEqual([{ data: { poolCreated: { id: pool!.id } }, extensions: { eventSequence: expect.stringMatching(/^\d+$/) } }]);
    unsubscribe();
    await client.dispose();
  });

  it('answers introspection outside production', async () => {
    const response = await t.gql('{ __schema { queryType { fields { name } } } }');
    const names = response.data.__schema.queryType.fields.map((f: { name: string }) => f.name);
    expect(names).toEqual(expect.arrayContaining(['pools', 'pool', 'streak', 'streaks', 'streakPools']));
  });
});
