import { composeServices } from '@apollo/composition';
import { ApolloGateway, IntrospectAndCompose } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import type { FastifyInstance } from 'fastify';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { backends, startTestApp, type TestApp, testConfig } from '../support/harness.js';

const SUBGRAPH = { FEDERATION_SUBGRAPH: 'true' };
const ENTITIES = `query Entities($representations: [_Any!]!) {
  _entities(representations: $representations) {
    __typename
    ... on Pool { id title status user { username } predictions(first: 2) { totalCount nodes { id prediction } } }
    ... on User { id username }
  }
}`;

/** A subgraph of its own beside poolgraph's: it extends Pool with a rating and names pools of its choosing. */
const RATINGS_SDL = `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
  type Pool @key(fields: "id") { id: ID! rating: Int! }
  type Query { featuredPools: [Pool!]! }
`;

describe.each(backends)('an Apollo Federation subgraph (FEDERATION_SUBGRAPH, %s)', (kind) => {
  let t: TestApp;
  let executed: FastifyInstance;
  let pools: Array<{ id: string; title: string; user: { id: string; username: string } }>;
  beforeAll(async () => {
    t = await startTestApp(kind, { config: testConfig(SUBGRAPH) });
    // The same database answered by the executor alone: what a rendered read must equal.
    executed = await createApp({ config: testConfig({ ...SUBGRAPH, RENDERED_READS: 'false' }), database: t.database });
    const { data } = await t.gql('{ pools(first: 8, sort: CREATION_DATE) { nodes { id title user { id username } } } }');
    pools = data.pools.nodes;
    expect(pools.length).toBe(8);
  });
  afterAll(async () => {
    await executed?.close();
    await t?.close();
  });

  const post = (app: FastifyInstance, query: string, variables?: Record<string, unknown>) =>
    app.inject({ method: 'POST', url: '/graphql', payload: { query, variables } });

  it('answers _service { sdl }: Federation 2, @key on Pool, User, Prediction, Streak and Image, and it composes', async () => {
    const { data, errors } = await t.gql('{ _service { sdl } }');
    expect(errors).toBeUndefined();
    const sdl: string = data._service.sdl;
    expect(sdl).toMatch(/^extend schema @link\(url: "https:\/\/specs\.apollo\.dev\/federation\/v2\.\d+", import: \["@key"\]\)/);
    for (const type of ['Pool', 'User', 'Prediction', 'Streak', 'Image']) {
      expect(sdl).toMatch(new RegExp(`^type ${type} implements Node @key\\(fields: "id"\\)`, 'm'));
    }
    // The federation fields are the router's business, not the subgraph's schema.
    expect(sdl).not.toMatch(/_entities|_service|_Any|_Entity/);
    const composed = composeServices([
      { name: 'poolgraph', typeDefs: parse(sdl), url: 'http://poolgraph' },
      { name: 'ratings', typeDefs: parse(RATINGS_SDL), url: 'http://ratings' },
    ]);
    expect(composed.errors).toBeUndefined();
    expect(composed.supergraphSdl).toContain('rating: Int!');
  });

  it('_entities for N pools is one statement, the same answer the executor gives', async () => {
    const representations = pools.map((pool) => ({ __typename: 'Pool', id: pool.id }));
    let rendered: Awaited<ReturnType<typeof post>> | undefined;
    expect(await t.countStatements(async () => (rendered = await post(t.app, ENTITIES, { representations })))).toBe(1);
    const body = rendered!.json();
    expect(body.errors).toBeUndefined();
    expect(body.data._entities.map((entity: { id: string }) => entity.id)).toEqual(pools.map((pool) => pool.id));
    expect(body.data._entities[0]).toMatchObject({
      __typename: 'Pool',
      title: pools[0]!.title,
      user: { username: pools[0]!.user.username },
    });
    let answered: Awaited<ReturnType<typeof post>> | undefined;
    expect(await t.countStatements(async () => (answered = await post(executed, ENTITIES, { representations })))).toBeGreaterThan(1);
    expect(answered!.json()).toEqual(body);
  });

  it('answers a mix of types in order, and null for a key naming nothing of its type', async () => {
    const [first, second] = pools;
    const representations = [
      { __typename: 'Pool', id: first!.id },
      { __typename: 'User', id: first!.user.id },
      // A user's id asked for as a pool, and an id of nothing: not there, as the spec answers.
      { __typename: 'Pool', id: second!.user.id },
      { __typename: 'User', id: '00000000-0000-4000-8000-000000000000' },
      { __typename: 'Pool', id: second!.id },
    ];
    const expected = [
      { __typename: 'Pool', id: first!.id },
      { __typename: 'User', id: first!.user.id, username: first!.user.username },
      null,
      null,
      { __typename: 'Pool', id: second!.id },
    ];
    for (const app of [t.app, executed]) {
      const body = (await post(app, ENTITIES, { representations })).json();
      expect(body.errors).toBeUndefined();
      expect(body.data._entities).toMatchObject(expected);
    }
    // Written in the document rather than given as a variable, alike.
    const literal = `{ _entities(representations: [{ __typename: "Pool", id: "${first!.id}" }, { __typename: "User", id: "${first!.user.id}" }]) { __typename ... on Pool { id } ... on User { id } } }`;
    const literalAnswer = [
      { __typename: 'Pool', id: first!.id },
      { __typename: 'User', id: first!.user.id },
    ];
    for (const app of [t.app, executed]) expect((await post(app, literal)).json().data._entities).toEqual(literalAnswer);
    let single: Awaited<ReturnType<typeof post>> | undefined;
    expect(await t.countStatements(async () => (single = await post(t.app, ENTITIES, { representations })))).toBe(1);
    expect(single!.json().data._entities).toMatchObject(expected);
  });

  it('refuses a representation it cannot use with BAD_USER_INPUT, naming it, and reads nothing', async () => {
    const cases: Array<[unknown[], RegExp]> = [
      [
        [{ __typename: 'Settings', id: pools[0]!.id }],
        /representations\[0\]\.__typename must be one of Pool, User, Prediction, Streak, Image/,
      ],
      [
        [
          { __typename: 'Pool', id: pools[0]!.id },
          { __typename: 'Pool', id: 'not-a-uuid' },
        ],
        /representations\[1\]\.id must be a UUID/,
      ],
      [[{ __typename: 'Pool' }], /representations\[0\]\.id must be a UUID/],
      [['Pool'], /representations\[0\] must be an object/],
    ];
    for (const [representations, message] of cases) {
      for (const app of [t.app, executed]) {
        let response: Awaited<ReturnType<typeof post>> | undefined;
        expect(await t.countStatements(async () => (response = await post(app, ENTITIES, { representations })))).toBe(0);
        const { errors } = response!.json();
        expect(errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
        expect(errors[0].message).toMatch(message);
      }
    }
  });

  it('counts each representation in the cost, so a large fetch of deep selections is refused before it runs', async () => {
    const deep = `query Deep($representations: [_Any!]!) {
      _entities(representations: $representations) { ... on Pool { predictions(first: 100) { nodes { user { id } } } } }
    }`;
    const representations = Array.from({ length: 200 }, (_, i) => ({ __typename: 'Pool', id: pools[i % pools.length]!.id }));
    const { errors } = (await post(t.app, deep, { representations })).json();
    expect(errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    expect((await post(t.app, deep, { representations: representations.slice(0, 2) })).json().errors).toBeUndefined();
  });

  it('is no subgraph without FEDERATION_SUBGRAPH', async () => {
    const plain = await createApp({ config: testConfig(), database: t.database });
    try {
      const { errors } = (await post(plain, '{ _service { sdl } }')).json();
      expect(errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    } finally {
      await plain.close();
    }
  });
});

describe('composed into a supergraph: @apollo/gateway over poolgraph and a second subgraph', () => {
  let t: TestApp;
  let ratings: ApolloServer;
  let gateway: ApolloServer;
  let featured: Array<{ id: string; title: string }>;
  const ratingOf = (id: string) => parseInt(id.slice(0, 4), 16) % 5;

  beforeAll(async () => {
    t = await startTestApp('pglite', { config: testConfig(SUBGRAPH) });
    const poolgraphUrl = `${await t.app.listen({ host: '127.0.0.1', port: 0 })}/graphql`;
    featured = (await t.gql('{ pools(first: 4, sort: CREATION_DATE) { nodes { id title } } }')).data.pools.nodes;
    ratings = new ApolloServer({
      schema: buildSubgraphSchema({
        typeDefs: parse(RATINGS_SDL),
        resolvers: {
          Query: { featuredPools: () => featured.map(({ id }) => ({ __typename: 'Pool', id })) },
          Pool: { rating: ({ id }: { id: string }) => ratingOf(id) },
        },
      }),
    });
    const { url: ratingsUrl } = await startStandaloneServer(ratings, { listen: { host: '127.0.0.1', port: 0 } });
    gateway = new ApolloServer({
      gateway: new ApolloGateway({
        supergraphSdl: new IntrospectAndCompose({
          subgraphs: [
            { name: 'poolgraph', url: poolgraphUrl },
            { name: 'ratings', url: ratingsUrl },
          ],
        }),
      }),
    });
    await gateway.start();
  });
  afterAll(async () => {
    await gateway?.stop();
    await ratings?.stop();
    await t?.close();
  });

  const ask = async (query: string) => {
    const response = await gateway.executeOperation({ query });
    if (response.body.kind !== 'single') throw new Error('expected a single answer');
    return response.body.singleResult;
  };

  it("answers a query spanning both: poolgraph's pools with the ratings subgraph's field", async () => {
    const { data, errors } = await ask('{ pools(first: 4, sort: CREATION_DATE) { nodes { id title rating user { username } } } }');
    expect(errors).toBeUndefined();
    const nodes = (data as { pools: { nodes: Array<{ id: string; title: string; rating: number; user: { username: string } }> } }).pools
      .nodes;
    expect(nodes.map(({ id, title, rating }) => ({ id, title, rating }))).toEqual(
      featured.map(({ id, title }) => ({ id, title, rating: ratingOf(id) })),
    );
    expect(nodes.every((node) => typeof node.user.username === 'string')).toBe(true);
  });

  it("resolves the other subgraph's pools through poolgraph's _entities: one statement for all of them", async () => {
    let answer: Awaited<ReturnType<typeof ask>> | undefined;
    const statements = await t.countStatements(async () => (answer = await ask('{ featuredPools { id title status rating } }')));
    expect(answer!.errors).toBeUndefined();
    expect((answer!.data as { featuredPools: Array<{ id: string; title: string; rating: number }> }).featuredPools).toMatchObject(
      featured.map(({ id, title }) => ({ id, title, rating: ratingOf(id) })),
    );
    expect(statements).toBe(1);
  });
});
