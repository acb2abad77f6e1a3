import { eq } from 'drizzle-orm';
import {
  getNamedType,
  getNullableType,
  type GraphQLField,
  type GraphQLObjectType,
  isEnumType,
  isLeafType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import type { PoolRow } from '../../schema/index.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { createApp } from '../../src/server/app.js';
import { type PoolPhase, type Seed, seedBuilders, UNIT } from '../support/fixtures/builders.js';
import {
  backends,
  createTestDatabase,
  type GraphQLResponse,
  renderedReadsServed,
  startEmptyTestApp,
  startTestApp,
  type TestApp,
  type TestDatabase,
  testConfig,
} from '../support/harness.js';
import { type SignedIn, signInAs } from '../support/sessions.js';
import { SHAPES as BENCH_SHAPES, type ShapeName, VIEWER_CHOICE_SQL } from '../../bench/lib/query.js';
import { READ_GRAPH } from '../../src/modules/common/read-specs.js';
import { getSchema } from '../../src/server/schema.js';

const POOLS = 30;
const RESOLVED_POOLS = 12;
const OTHER_PREDICTORS = 11;

/**
 * Enough rows that a page of 50 returns more than twice a page of 5 in every shape below,
 * and every relation is reached on both pages: 30 pools (12 resolved, 12 ended, 6 open),
 * 10 by each of 3 creators with avatars, every other pool with an image, 15 in each of two
 * streaks (each naming a last processed pool). Each pool has 12 predictions: its creator's
 * and 11 other users'; 3 tokens each in resolved pools (so they lead by volume), 1
 * elsewhere; 4 of the other users are rewarded in every resolved pool.
 */
async function seedBusyWorld(seed: Seed, database: Database): Promise<void> {
  const streaks = [await seed.streak(), await seed.streak()];
  const { images } = await seed.user().withImage();
  const isResolved = (j: number) => j < RESOLVED_POOLS;
  const stakeIn = (j: number) => (isResolved(j) ? 3n : 1n) * UNIT;
  const pools: PoolRow[] = [];
  for (let c = 0; c < 3; c++) {
    const chain = seed.user().withImage({ avatar: true });
    const js = Array.from({ length: POOLS / 3 }, (_, k) => k * 3 + c);
    for (const j of js) {
      const phase: PoolPhase = j < 2 * RESOLVED_POOLS ? 'ended' : 'open';
      chain.withPool({ phase, streakId: streaks[j % 2]!.id, imageId: j % 2 ? images[0]!.id : null }).withPrediction({ stake: stakeIn(j) });
    }
    const fixture = await chain;
    js.forEach((j, i) => (pools[j] = fixture.pools[i]!));
  }
  for (let n = 0; n < OTHER_PREDICTORS; n++) {
    const chain = seed.user();
    pools.forEach((pool, j) => {
      chain.withPrediction({ pool, stake: stakeIn(j) });
      if (isResolved(j) && n < 4) chain.withReward({ amount: 2n * UNIT, precisionScore: 0.9 });
    });
    await chain;
  }
  for (const pool of pools.slice(0, RESOLVED_POOLS)) await seed.resolution(pool);
  for (const [i, streak] of streaks.entries()) {
    await database.db.update(tables.streaks).set({ lastProcessedPoolId: pools[i]!.id }).where(eq(tables.streaks.id, streak.id));
  }
}

/**
 * The statements a query runs depend on its shape, never on how many rows it returns:
 * each shape runs once with a small page and once with a large one, and the counts of
 * statements that reached the database must be equal while the rows returned grow.
 */
const SHAPES: Record<string, { query: string; rows: (data: any) => number; maxStatements: number }> = {
  'pools with user, image, streak, resolution and 10 predictions with user and reward': {
    query: `query($n: Int) { pools(first: $n, sort: VOLUME_HIGH, filter: { status: [RESOLVED] }) { nodes {
      id title user { username } image { url } streak { title } resolution { result median }
      predictions(first: 10) { nodes { stake prediction user { username } reward { amount precisionScore } } }
    } } }`,
    rows: (data) => data.pools.nodes.reduce((sum: number, pool: any) => sum + 1 + pool.predictions.nodes.length, 0),
    // pools, users, images, streaks, resolutions, predictions, prediction users, rewards
    maxStatements: 8,
  },
  'pools by volume with counts, cursors and creators with their own pools and predictions': {
    query: `query($n: Int) { pools(first: $n, sort: VOLUME_HIGH, filter: { status: [ENDED, ACTIVE] }) {
      totalCount pageInfo { endCursor hasNextPage }
      edges { cursor node {
        totalVolume
        user { avatar { url } pools(first: 3) { totalCount nodes { title } } predictions(first: 30) { nodes { pool { title streak { title } } reward { prediction { id } } } } }
      } }
    } }`,
    rows: (data) =>
      data.pools.edges.reduce(
        (sum: number, edge: any) => sum + 1 + edge.node.user.pools.nodes.length + edge.node.user.predictions.nodes.length,
        0,
      ),
    maxStatements: 14,
  },
  'streak pools with predictions, their pools and streaks': {
    query: `query($n: Int) { streaks(first: 10) { nodes { title lastProcessedPool { title }
      pools(first: $n) { totalCount nodes { title resolution { result } predictions(first: 10) { totalCount nodes { streak { title } pool { title } user { username } } } } }
    } } }`,
    rows: (data) =>
      data.streaks.nodes.reduce(
        (sum: number, streak: any) =>
          sum + streak.pools.nodes.reduce((inner: number, pool: any) => inner + 1 + pool.predictions.nodes.length, 0),
        0,
      ),
    maxStatements: 12,
  },
};

describe.each(backends)('statements per query on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startEmptyTestApp(kind);
    await seedBusyWorld(t.seed, t.database);
  });
  afterAll(() => t.close());

  it.each(Object.entries(SHAPES))('%s', async (_name, shape) => {
    const run = async (n: number) => {
      let data: any;
      const statements = await t.countStatements(async () => {
        const response = await t.gql(shape.query, { n });
        expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
        data = response.data;
      });
      return { statements, rows: shape.rows(data) };
    };
    // Warm-up: open the connections the pool will use, so only the query's statements count.
    await run(50);
    const small = await run(5);
    const large = await run(50);
    console.log(
      `[${kind}] ${_name}: 5 -> ${small.statements} statements / ${small.rows} rows; 50 -> ${large.statements} statements / ${large.rows} rows`,
    );
    expect(large.rows).toBeGreaterThan(small.rows * 2);
    // Both pages reach every relation of the shape, so "no more" is "exactly as many".
    expect(large.statements).toBe(small.statements);
    expect(large.statements).toBeLessThanOrEqual(shape.maxStatements);
  });
});

/**
 * The nested read of the benchmark (bench/lib/query.ts) in both its sorts: CREATION_DATE
 * (the newest pools, few predictions) and VOLUME_HIGH (10 predictions on every pool, many
 * rewarded). Both are rendered reads (src/server/read-renderer.ts: one statement writes the
 * nodes' JSON, relations and all). With rendered reads off the executor reads each relation
 * through its loader: one statement per relation selected (seven here) besides the page's,
 * whatever the rows.
 */
const NESTED_SELECTION = `id title totalVolume user { id username } image { id url } streak { id title } resolution { id result }
  predictions(first: 10) { nodes { id stake prediction user { id username } reward { id amount } } }`;
const nestedRead = (sort: string) => `query($n: Int) { pools(first: $n, sort: ${sort}) { nodes { ${NESTED_SELECTION} } } }`;
/** The relations NESTED_SELECTION selects: the pool's user, image, streak, resolution and predictions, a prediction's user and reward. */
const RELATIONS_SELECTED = 7;

describe.each(backends)('the nested read on %s: statements, prepared', (kind) => {
  let test: TestDatabase;
  /** On Postgres, a handle of ONE connection, so pg_prepared_statements (per session) shows what the app prepared. */
  let database: Database;
  let app: Awaited<ReturnType<typeof createApp>>;
  /** The same server with RENDERED_READS=false: every operation executed. */
  let executor: Awaited<ReturnType<typeof createApp>>;

  beforeAll(async () => {
    test = await createTestDatabase(kind);
    await seedBusyWorld(seedBuilders(test.database), test.database);
    database = kind === 'postgres' ? await openDatabase({ kind: 'postgres', url: test.url!, maxConnections: 1 }) : test.database;
    app = await createApp({ config: testConfig(), database });
    executor = await createApp({ config: testConfig({ RENDERED_READS: 'false' }), database });
  });
  afterAll(async () => {
    await app.close();
    await executor.close();
    if (database !== test.database) await database.close();
    await test.drop();
  });

  const run = async (sort: string, n: number, rendered = true) => {
    const server = rendered ? app : executor;
    const renderedBefore = await renderedReadsServed(server);
    const before = database.statementCount;
    const response = await server.inject({ method: 'POST', url: '/graphql', payload: { query: nestedRead(sort), variables: { n } } });
    const statements = database.statementCount - before;
    expect((await renderedReadsServed(server)) - renderedBefore).toBe(rendered ? 1 : 0);
    const body = response.json();
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    const pools = body.data.pools.nodes as Array<{ predictions: { nodes: Array<{ reward: unknown }> } }>;
    return {
      statements,
      predictions: pools.reduce((sum, pool) => sum + pool.predictions.nodes.length, 0),
      rewards: pools.reduce((sum, pool) => sum + pool.predictions.nodes.filter((p) => p.reward !== null).length, 0),
    };
  };

  it.each(
    ['CREATION_DATE', 'VOLUME_HIGH'].flatMap((sort) => [
      [sort, 'rendered'],
      [sort, 'executed'],
    ]),
  )('sort %s, %s: statements bounded whatever the rows, each prepared and planned once', async (sort, path) => {
    const rendered = path === 'rendered';
    await run(sort, 20, rendered); // the connection's first use opens it
    const small = await run(sort, 2, rendered);
    const large = await run(sort, 20, rendered);
    console.log(
      `[${kind}] ${sort}: 2 pools -> ${small.statements} statements (${small.predictions} predictions); 20 -> ${large.statements} (${large.predictions} predictions, ${large.rewards} rewards)`,
    );
    if (sort === 'VOLUME_HIGH') {
      // 10 on each of 20 pools; the 12 resolved pools lead by volume, and each one's 10 newest
      // predictions hold 3 of its 4 rewards (the first rewarded user predicted before them).
      expect(large.predictions).toBe(200);
      expect(large.rewards).toBe(RESOLVED_POOLS * 3);
    }
    expect(large.predictions).toBeGreaterThan(small.predictions);
    // Rendered, the plan folds the whole subtree into one statement; executed, the loaders batch
    // each relation's rows, at most one statement per relation (two relations' loads of one
    // table may share one, as the loads' timing has it).
    if (rendered) expect({ small: small.statements, large: large.statements }).toEqual({ small: 1, large: 1 });
    else expect(Math.max(small.statements, large.statements)).toBeLessThanOrEqual(RELATIONS_SELECTED + 1);

    // postgres.js names and prepares each text once per connection, then only binds and
    // executes it, and on PGlite the worker does the same in its one session
    // (pglite-worker.mjs); the page size is part of the text, the rest parameters. Past its fifth
    // execution Postgres keeps a statement's generic plan unless custom plans look cheaper
    // (as they did with LIMIT $n: the statement was planned again at every execution), so
    // after more runs of 20 the one connection lists one statement per size, the 20 rows'
    // on its generic plan.
    for (let i = 0; i < 6; i++) await run(sort, 20, rendered);
    const prepared = await database.query<{ statement: string; generic: number }>(
      `SELECT statement, generic_plans::int AS generic FROM pg_prepared_statements WHERE statement LIKE '%FROM "pools" p%' AND statement LIKE $1 AND (statement LIKE '% AS "$j0"%') = $2 ORDER BY statement`,
      [`%ORDER BY p."${sort === 'VOLUME_HIGH' ? 'total_volume' : 'created_at'}"%`, rendered],
    );
    // A rendered page whose rows are joined into one ends with its rows' subquery (keyset-page.ts, renderedKeysetPage).
    const limitOf = (statement: string) => /LIMIT (\d+)(\) r)?$/.exec(statement)?.[1];
    expect(prepared.map((p) => limitOf(p.statement)).sort()).toEqual(['21', '3']);
    expect(prepared.find((p) => limitOf(p.statement) === '21')!.generic).toBeGreaterThan(0);
  });
  it.each(['rendered', 'executed'])('leaderboard, %s: its statement prepared and planned once', async (path) => {
    const server = path === 'rendered' ? app : executor;
    const query = '{ leaderboard(first: 5) { totalCount nodes { rank payout user { id username } } } }';
    for (let i = 0; i < 7; i++) {
      const before = database.statementCount;
      const body = (await server.inject({ method: 'POST', url: '/graphql', payload: { query } })).json();
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      // The executor loads the entries' users with one more.
      expect(database.statementCount - before).toBe(path === 'rendered' ? 1 : 2);
    }
    if (kind === 'postgres') {
      // Prepared on the one connection, and past its fifth execution on its generic plan.
      const prepared = await database.query<{ generic: number }>(
        `SELECT generic_plans::int AS generic FROM pg_prepared_statements WHERE statement LIKE 'WITH page AS %' AND (statement LIKE '% AS "user_json_0"%') = $1`,
        [path === 'rendered'],
      );
      expect(prepared).toHaveLength(1);
      expect(prepared[0]!.generic).toBeGreaterThan(0);
    }
  });
  it.each(['rendered', 'executed'])('pool(id) with the same selection, %s: the same statements, whatever the pool', async (path) => {
    const server = path === 'rendered' ? app : executor;
    const query = `query($id: ID!) { pool(id: $id) { ${NESTED_SELECTION} } }`;
    const ids = await database.query<{ id: string; predictions: number }>(
      `SELECT p.id, (SELECT count(*)::int FROM predictions x WHERE x.pool_id = p.id) AS predictions FROM pools p ORDER BY p.total_volume DESC, p.id LIMIT 1`,
      [],
    );
    const read = async (id: string) => {
      const renderedBefore = await renderedReadsServed(server);
      const before = database.statementCount;
      const body = (await server.inject({ method: 'POST', url: '/graphql', payload: { query, variables: { id } } })).json();
      const statements = database.statementCount - before;
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      expect((await renderedReadsServed(server)) - renderedBefore).toBe(path === 'rendered' ? 1 : 0);
      return { statements, pool: body.data.pool };
    };
    const busiest = await read(ids[0]!.id);
    expect(busiest.pool.predictions.nodes).toHaveLength(Math.min(10, ids[0]!.predictions));
    expect(busiest.pool.predictions.nodes.length).toBeGreaterThan(0);
    // Executed, at most one per relation (none for one the pool lacks, as an image).
    if (path === 'rendered') expect(busiest.statements).toBe(1);
    else expect(busiest.statements).toBeGreaterThan(1);
    expect(busiest.statements).toBeLessThanOrEqual(RELATIONS_SELECTED + 1);
    const missing = await read('00000000-0000-4000-8000-000000000000');
    expect(missing).toEqual({ statements: 1, pool: null });
  });
});

/**
 * Every field of every type of the read graph, generated from the schema, selected under a
 * list of its type's objects twice: with 2 rows at the top of the list and with 20. The
 * statements must be the same: a field whose resolver reads per parent (a query per row of
 * the list above it) fails here, whatever field is added later. Signed in as an admin, so
 * private fields read their rows too. A connection is selected with its totalCount and once
 * per value of each enum argument (its filters and sorts), each a statement text of its own.
 */
const LISTS_OF: Record<string, (selection: string) => string> = {
  Pool: (x) => `pools(first: $n, sort: VOLUME_HIGH) { nodes { ${x} } }`,
  Prediction: (x) => LISTS_OF.Pool!(`predictions(first: 5) { nodes { ${x} } }`),
  User: (x) => LISTS_OF.Prediction!(`user { ${x} }`),
  Image: (x) => LISTS_OF.Pool!(`image { ${x} }`),
  Streak: (x) => LISTS_OF.Pool!(`streak { ${x} }`),
  Resolution: (x) => LISTS_OF.Pool!(`resolution { ${x} }`),
  Reward: (x) => LISTS_OF.Prediction!(`reward { ${x} }`),
  StreakReward: (x) => LISTS_OF.User!(`claimable { streakRewards { ${x} } }`),
  Notification: (x) => LISTS_OF.User!(`notifications(first: 3) { nodes { ${x} } }`),
};

/** The selections of `field` generated: itself (a leaf), its object's typename, or its connection's pages. */
function selectionsOf(field: GraphQLField<unknown, unknown>): string[] {
  const target = getNamedType(field.type);
  if (isLeafType(target)) return [field.name];
  if (!(isObjectType(target) && target.name.endsWith('Connection'))) return [`${field.name} { __typename }`];
  const page = (args: string) => `${field.name}(first: 2${args}) { totalCount nodes { __typename } }`;
  return [
    page(''),
    ...field.args.flatMap((arg) => {
      const type = getNullableType(arg.type);
      return isEnumType(type) ? type.getValues().map((value) => page(`, ${arg.name}: ${value.name}`)) : [];
    }),
  ];
}

describe.each(backends)('every field under a list on %s: statements', (kind) => {
  let t: TestApp;
  let admin: SignedIn;
  beforeAll(async () => {
    t = await startTestApp(kind);
    const [user] = await t.database.query<{ id: string }>('SELECT id FROM users ORDER BY id LIMIT 1', []);
    admin = await signInAs(t, user!.id, 'ADMIN');
  });
  afterAll(() => t.close());

  it('has a list for every type of the read graph', () => {
    expect(Object.keys(LISTS_OF).sort()).toEqual(Object.keys(READ_GRAPH).sort());
  });

  it.each(Object.keys(LISTS_OF))(
    '%s: the same statements for 2 rows at the top as for 20',
    async (typeName) => {
      const schema = await getSchema();
      const run = async (selection: string, n: number) => {
        let body: GraphQLResponse | undefined;
        const statements = await t.countStatements(async () => {
          body = await t.gql(`query($n: Int) { ${LISTS_OF[typeName]!(selection)} }`, { n }, admin.headers);
        });
        // The test app runs without a chain: a balance answers CHAIN_UNAVAILABLE, whatever the rows.
        const codes = (body!.errors ?? []).map((error) => (error as { extensions?: { code?: string } }).extensions?.code);
        expect(
          codes.filter((code) => code !== 'CHAIN_UNAVAILABLE'),
          JSON.stringify(body!.errors),
        ).toEqual([]);
        return { statements, body: JSON.stringify(body!.data) };
      };
      // Not vacuous: the larger list reaches more of the type's objects, and at least two.
      const reached = async (n: number) => (await run('__typename', n)).body.split(`"__typename":"${typeName}"`).length - 1;
      const [few, many] = [await reached(2), await reached(20)];
      expect(many).toBeGreaterThan(few);
      expect(few).toBeGreaterThanOrEqual(1);
      const type = schema.getType(typeName) as GraphQLObjectType;
      const selections = Object.values(type.getFields())
        .filter((field) => !field.args.some((arg) => isNonNullType(arg.type)))
        .flatMap(selectionsOf);
      const perRow: string[] = [];
      for (const selection of selections) {
        await run(selection, 2); // the first use of a statement text may prepare it
        const small = await run(selection, 2);
        const large = await run(selection, 20);
        if (large.statements !== small.statements) perRow.push(`${typeName}.${selection}: ${small.statements} -> ${large.statements}`);
      }
      expect(perRow).toEqual([]);
      expect(selections.length).toBeGreaterThan(3);
    },
    120_000,
  );
});

/**
 * The bench's corpus of frontend pages (bench/lib/query.ts, the pages `npm run bench`
 * measures against their floors), on the demo data: each page's statements, counted. A
 * page whose whole selection plans is one statement (the viewer's page too: the session
 * check of its bearer token guards that statement, and its `viewer` and
 * `unreadNotificationCount` share it); a page that does not plan runs at most one statement
 * per level of relations, plus one.
 */
const CORPUS: Record<Exclude<ShapeName, 'typename'>, { levels: number; statements: number; rendered: boolean }> = {
  CREATION_DATE: { levels: 2, statements: 1, rendered: true },
  VOLUME_HIGH: { levels: 2, statements: 1, rendered: true },
  DEEP_OFFSET: { levels: 2, statements: 1, rendered: true },
  DEEP_KEYSET: { levels: 2, statements: 1, rendered: true },
  POOL_DETAIL: { levels: 2, statements: 1, rendered: true },
  DEEP_CURSOR: { levels: 2, statements: 1, rendered: true },
  DEEP_CREATOR_OFFSET: { levels: 2, statements: 1, rendered: true },
  USER_PROFILE: { levels: 2, statements: 1, rendered: true },
  USER_STAKES: { levels: 2, statements: 1, rendered: true },
  STREAKS: { levels: 3, statements: 1, rendered: true },
  VIEWER: { levels: 2, statements: 1, rendered: true },
  // The page's statement reads the session too.
  VIEWER_POOLS: { levels: 2, statements: 1, rendered: true },
  LEADERBOARD: { levels: 2, statements: 1, rendered: true },
  // Once its first read of the day has built the month (the warm-up's).
  LEADERBOARD_MONTH: { levels: 2, statements: 1, rendered: true },
  NODE: { levels: 1, statements: 1, rendered: true },
};

describe.each(backends)('the bench corpus on %s: statements per page', (kind) => {
  let t: TestApp;
  let viewer: SignedIn;
  beforeAll(async () => {
    t = await startTestApp(kind);
    const [chosen] = await t.database.query<{ user_id: string }>(VIEWER_CHOICE_SQL, []);
    viewer = await signInAs(t, chosen!.user_id);
  });
  afterAll(() => t.close());

  it.each(Object.entries(CORPUS))('%s', async (name, expected) => {
    const shape = BENCH_SHAPES.find((s) => s.name === name)!;
    let variables: Record<string, unknown> | undefined;
    if (shape.discover) {
      const found = await t.gql(shape.discover.query);
      expect(found.errors, JSON.stringify(found.errors)).toBeUndefined();
      variables = shape.discover.variables(found.data, 1)[0];
    }
    const headers = shape.signedIn ? viewer.headers : undefined;
    const run = async () => {
      const renderedBefore = await renderedReadsServed(t.app);
      let body: GraphQLResponse | undefined;
      const statements = await t.countStatements(async () => {
        body = await t.gql(shape.query, variables, headers);
      });
      expect(body!.errors, JSON.stringify(body!.errors)).toBeUndefined();
      return { statements, rendered: (await renderedReadsServed(t.app)) - renderedBefore === 1, body: body! };
    };
    await run(); // warm-up: the connections the pool uses are open
    const { statements, rendered, body } = await run();
    console.log(
      `[${kind}] ${name}: ${statements} statements, ${rendered ? 'rendered' : 'executed'}, ${JSON.stringify(body.data).length} bytes`,
    );
    expect(JSON.stringify(body.data)).not.toMatch(/^\{"[a-zA-Z]+":null\}$/);
    expect({ statements, rendered }).toEqual({ statements: expected.statements, rendered: expected.rendered });
    expect(statements).toBeLessThanOrEqual(expected.levels + 1 + (shape.signedIn ? 1 : 0));
  });

  it("checks a signed-in request's credential in one statement: a bearer token's session, an API key with its owner", async () => {
    const created = await t.gql('mutation { createApiKey(name: "statements") { apiKey } }', undefined, viewer.headers);
    expect(created.errors, JSON.stringify(created.errors)).toBeUndefined();
    const keyHeaders = { 'x-api-key': created.data.createApiKey.apiKey as string };
    await t.gql('{ __typename }', undefined, keyHeaders); // its first use writes last_used_at
    for (const headers of [viewer.headers, keyHeaders]) {
      let body: GraphQLResponse | undefined;
      const statements = await t.countStatements(async () => {
        body = await t.gql('{ __typename }', undefined, headers);
      });
      expect(body!.errors, JSON.stringify(body!.errors)).toBeUndefined();
      expect(statements).toBe(1);
    }
  });

  it('answers root fields read by key and counts in ONE statement together, as executing them answers', async () => {
    const [ids] = await t.database.query<{ pool: string; user: string; streak: string }>(
      'SELECT (SELECT id FROM pools ORDER BY total_volume DESC, id LIMIT 1) AS pool, (SELECT id FROM users ORDER BY id LIMIT 1) AS "user", (SELECT id FROM streaks ORDER BY id LIMIT 1) AS streak',
      [],
    );
    const query = `query($pool: ID!, $user: ID!, $streak: ID!) {
      pool(id: $pool) { id title user { username } predictions(first: 3) { totalCount nodes { id stake } } }
      user(id: $user) { id username } streak(id: $streak) { id title } missing: pool(id: "00000000-0000-4000-8000-000000000000") { id }
      node(id: $pool) { __typename id ... on Pool { status } } viewer { id username } unreadNotificationCount }`;
    const variables = { pool: ids!.pool, user: ids!.user, streak: ids!.streak };
    const renderedBefore = await renderedReadsServed(t.app);
    let body: GraphQLResponse | undefined;
    const statements = await t.countStatements(async () => {
      body = await t.gql(query, variables, viewer.headers);
    });
    expect(body!.errors, JSON.stringify(body!.errors)).toBeUndefined();
    expect((await renderedReadsServed(t.app)) - renderedBefore).toBe(1);
    // One statement for all seven fields, the session check its guard.
    expect(statements).toBe(1);
    const executor = await createApp({ config: testConfig({ RENDERED_READS: 'false' }), database: t.database });
    try {
      const executed = (
        await executor.inject({ method: 'POST', url: '/graphql', headers: viewer.headers, payload: { query, variables } })
      ).json();
      expect(executed.errors, JSON.stringify(executed.errors)).toBeUndefined();
      expect(JSON.stringify(body!.data)).toBe(JSON.stringify(executed.data));
    } finally {
      await executor.close();
    }
  });
});
