import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_MAX_AGE } from '../../src/modules/common/cache-hints.js';
import { backends, renderedReadsServed, startEmptyTestApp, type TestApp, testConfig } from '../support/harness.js';
import { signInAs, type SignedIn } from '../support/sessions.js';

/**
 * The cache hints (`@cacheControl` on the schema) through Apollo's cache-control plugin: a
 * public read may be kept by any cache, one that touches the viewer or a private field by
 * none, and a rendered read says what the executed one says.
 */
describe.each(backends)('Cache-Control from the cache hints, on %s', (kind) => {
  let t: TestApp;
  let viewer: SignedIn;
  let poolId: string;
  beforeAll(async () => {
    t = await startEmptyTestApp(kind);
    const { user, pool } = await t.seed.user().withPool();
    poolId = pool!.id;
    viewer = await signInAs(t, user.id);
  });
  afterAll(() => t.close());

  const PUBLIC = `max-age=${PUBLIC_MAX_AGE}, public`;
  const cases: Array<[string, string, boolean, string]> = [
    [
      'a pools page',
      '{ pools(first: 5) { totalCount nodes { id title user { username } statistics { predictionCount } } } }',
      false,
      PUBLIC,
    ],
    ['a pool with its predictions', 'query($id: ID!) { pool(id: $id) { title predictions(first: 3) { nodes { stake } } } }', false, PUBLIC],
    ['the leaderboard', '{ leaderboard(first: 3) { nodes { rank user { username } } } }', false, PUBLIC],
    ['streaks', '{ streaks(first: 3) { nodes { title pools(first: 2) { nodes { title } } } } }', false, PUBLIC],
    ['a public read, signed in', '{ pools(first: 5) { nodes { id } } }', true, PUBLIC],
    ["the viewer's own prediction", 'query($id: ID!) { pool(id: $id) { title viewerPrediction { stake } } }', true, 'no-store'],
    // By the selection, not the rows: kept by no shared cache where no pool came back to hold one, rendered or executed alike.
    [
      "the viewer's prediction in an empty page",
      '{ pools(first: 2, search: "zzzqqq") { nodes { viewerPrediction { stake } } } }',
      true,
      'no-store',
    ],
    ["the viewer's prediction, signed out", '{ pools(first: 2) { nodes { id viewerPrediction { stake } } } }', false, 'no-store'],
    ['the viewer', '{ viewer { username } }', true, 'no-store'],
    ["the viewer's private field", '{ viewer { email } }', true, 'no-store'],
    ['a count of the viewer', '{ unreadNotificationCount }', true, 'no-store'],
    ['a node (any type, private ones too)', 'query($id: ID!) { node(id: $id) { id } }', false, 'no-store'],
  ];

  it.each(cases)('%s', async (_name, query, signedIn, expected) => {
    const variables = query.includes('$id') ? { id: poolId } : undefined;
    const send = (app = t.app) =>
      app.inject({ method: 'POST', url: '/graphql', headers: signedIn ? viewer.headers : {}, payload: { query, variables } });
    const response = await send();
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe(expected);
  });

  it('a GET of a public read carries the same policy', async () => {
    const query = encodeURIComponent('{ pools(first: 2) { nodes { id } } }');
    const response = await t.app.inject({ method: 'GET', url: `/graphql?query=${query}`, headers: { 'apollo-require-preflight': 'true' } });
    expect(response.headers['cache-control']).toBe(PUBLIC);
  });

  it("a REST answer carries its operation's policy: public reads public (a pool that is not there too, as GraphQL's null is), the viewer's no-store", async () => {
    const answers = {
      pools: await t.app.inject({ method: 'GET', url: '/pools?limit=2' }),
      pool: await t.app.inject({ method: 'GET', url: `/pools/${poolId}` }),
      me: await t.app.inject({ method: 'GET', url: '/auth/me', headers: viewer.headers }),
      missing: await t.app.inject({ method: 'GET', url: '/pools/00000000-0000-4000-8000-000000000000' }),
    };
    expect(
      Object.fromEntries(Object.entries(answers).map(([name, answer]) => [name, [answer.statusCode, answer.headers['cache-control']]])),
    ).toEqual({
      pools: [200, PUBLIC],
      pool: [200, PUBLIC],
      me: [200, 'no-store'],
      missing: [404, PUBLIC],
    });
  });

  it('a rendered read and the executed one carry the same policy, asked once or again', async () => {
    const executor = await (
      await import('../../src/server/app.js')
    ).createApp({
      config: testConfig({ RENDERED_READS: 'false' }),
      database: t.database,
    });
    try {
      for (const [, query, signedIn] of cases) {
        const variables = query.includes('$id') ? { id: poolId } : undefined;
        const payload = { query, variables };
        const headers = signedIn ? viewer.headers : {};
        const before = await renderedReadsServed(executor);
        const executed = await executor.inject({ method: 'POST', url: '/graphql', headers, payload });
        expect(await renderedReadsServed(executor)).toBe(before);
        // Twice: the first tells cache control each field, a later one restricts by the verdict kept from it.
        for (const time of ['first', 'again']) {
          const answered = await t.app.inject({ method: 'POST', url: '/graphql', headers, payload });
          expect(answered.headers['cache-control'], `${query} (${time})`).toBe(executed.headers['cache-control']);
        }
      }
    } finally {
      await executor.close();
    }
  });

  it('an answer with errors is not kept', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ viewer { username } }' } });
    expect(response.json().errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(response.headers['cache-control']).toBe('no-store');
  });
});
