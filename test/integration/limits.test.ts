import { getVariableValues, type OperationDefinitionNode, parse, specifiedRules, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetError, limitParseOptions, shapeLimitRules } from '../../src/server/limits.js';
import { OperationWalk } from '../../src/read/operation-walk.js';
import { getSchema } from '../../src/server/schema.js';
import { DAY } from '../support/fixtures/builders.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { delayEveryStatement } from '../support/slow-database.js';

/** `count` copies of `make(i)`, joined by spaces. */
const times = (count: number, make: (i: number) => string) => Array.from({ length: count }, (_, i) => make(i)).join(' ');

/** A chain of pools -> nodes -> user -> pools ... `levels` users deep, page size 1. */
function deep(levels: number): string {
  let inner = 'id';
  for (let i = 0; i < levels; i++) inner = `user { pools(first: 1) { nodes { ${inner} } } }`;
  return `{ pools(first: 1) { nodes { ${inner} } } }`;
}

/** What deep(levels) answers when the only pool is `poolId`: its creator's pools are that pool again, all the way down. */
function deepAnswer(levels: number, poolId: string): unknown {
  let inner: unknown = { id: poolId };
  for (let i = 0; i < levels; i++) inner = { user: { pools: { nodes: [inner] } } };
  return { pools: { nodes: [inner] } };
}

/** One document per limit (defaults: depth 15, aliases 30, directives 50, tokens 2000, cost 20000, bytes 2000000). */
const OVER_THE_LIMIT: Array<{ limit: string; query: string; variables?: Record<string, unknown>; message: RegExp }> = [
  // pools(1) nodes(2) then 3 per user level, id last: 4 levels = depth 15, 5 levels = 18.
  { limit: 'depth', query: deep(5), message: /^Query depth 18 exceeds the limit of 15$/ },
  {
    limit: 'aliases',
    query: `{ ${times(31, (i) => `a${i}: pools(first: 1) { totalCount }`)} }`,
    message: /^Query has 31 aliases, more than the limit of 30$/,
  },
  {
    limit: 'directives',
    query: `{ pools(first: 1) { ${times(26, () => '...Counted')} } }
      fragment Counted on PoolConnection { totalCount @include(if: true) pageInfo @skip(if: false) { hasNextPage } }`,
    message: /^Query has 52 directives, more than the limit of 50$/,
  },
  {
    limit: 'tokens',
    query: `{ pools(first: 1) { ${times(2100, () => 'totalCount')} } }`,
    message: /^Query has more than 2000 tokens, the limit$/,
  },
  {
    limit: 'cost',
    query: '{ pools(first: 100) { nodes { predictions(first: 100) { nodes { user { pools(first: 100) { nodes { id } } } } } } } }',
    message: /^Query cost \d+ exceeds the limit of 20000$/,
  },
  {
    limit: 'cost',
    query:
      'query($n: Int) { pools(first: $n) { nodes { predictions(first: $n) { nodes { user { pools(first: $n) { nodes { id } } } } } } } }',
    variables: { n: 100 },
    message: /^Query cost 30202 exceeds the limit of 20000$/,
  },
  {
    // Within the cost (12,202 objects), but every field of each: about 2.3 MB of answer.
    limit: 'bytes',
    query:
      '{ pools(first: 100) { nodes { id title description predictions(first: 60) { nodes { id stake prediction createdAt user { id username walletAddress } reward { id amount } } } } } }',
    message: /^Query could answer about 2286122 bytes, more than the limit of 2000000: ask for fewer items, or fewer fields of each$/,
  },
];

describe.each(backends)('operation limits on %s', (kind) => {
  let t: TestApp;
  /** The one pool (open, so ACTIVE), its creator and the other user who predicted in it. */
  let pool: string;
  let creator: string;
  let predictor: string;
  beforeAll(async () => {
    t = await startEmptyTestApp(kind);
    const now = Date.now();
    const written = await t.seed
      .user()
      .withPool()
      .withPrediction({ createdAt: new Date(now - 2 * DAY) });
    [pool, creator] = [written.pool!.id, written.user.id];
    predictor = (await t.seed.user().withPrediction({ pool: written.pool!, createdAt: new Date(now - DAY) })).user.id;
  });
  afterAll(() => t.close());

  /** Runs `query` and expects QUERY_TOO_COMPLEX for `limit`, HTTP 400, and no statement: nothing ran. */
  async function expectRefused(limit: string, query: string, variables?: Record<string, unknown>, message?: RegExp) {
    let response!: Awaited<ReturnType<TestApp['gql']>>;
    const statements = await t.countStatements(async () => {
      response = await t.gql(query, variables);
    });
    expect(response.status, JSON.stringify(response.errors)).toBe(400);
    expect(response.data).toBeUndefined();
    expect(response.errors).toHaveLength(1);
    expect(response.errors![0]!.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit });
    if (message) expect(response.errors![0]!.message).toMatch(message);
    expect(statements).toBe(0);
    return response.errors![0]!;
  }

  it.each(OVER_THE_LIMIT)(
    'refuses an operation over the $limit limit before any resolver runs',
    async ({ limit, query, variables, message }) => {
      const error = await expectRefused(limit, query, variables, message);
      // The message names the limit and numbers, nothing of the schema.
      expect(error.message).not.toMatch(/pool|node|user|prediction/i);
    },
  );

  it('answers a document over the token limit with the limit alone: no location, no text of the document', async () => {
    const error = await expectRefused('tokens', `query Secret { pools(first: 1) { ${times(2100, () => 'hiddenField')} } }`);
    expect(error).toEqual({
      message: 'Query has more than 2000 tokens, the limit',
      extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'tokens', max: 2000 },
    });
  });

  it('does not take a syntax error quoting the token limit’s words for the limit', async () => {
    const response = await t.gql('{ "Document contains more that 1 tokens. Parsing aborted." }');
    expect(response.status).toBe(400);
    expect(response.errors?.[0]?.extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
  });

  it('runs operations just inside every limit, to their full answers', async () => {
    const counted = { totalCount: 1, pageInfo: { hasNextPage: false } };
    const inside: Array<[string, unknown]> = [
      [deep(4), deepAnswer(4, pool)],
      [
        `{ ${times(30, (i) => `a${i}: pools(first: 1) { totalCount }`)} }`,
        Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`a${i}`, { totalCount: 1 }])),
      ],
      [
        `{ pools(first: 1) { ${times(25, () => '...Counted')} } } fragment Counted on PoolConnection { totalCount @include(if: true) pageInfo @skip(if: false) { hasNextPage } }`,
        { pools: counted },
      ],
      [`{ pools(first: 1, filter: { status: [${times(1980, () => 'ACTIVE')}] }) { totalCount } }`, { pools: { totalCount: 1 } }],
      [
        '{ pools(first: 100) { nodes { predictions(first: 100) { nodes { user { id } } } } } }',
        { pools: { nodes: [{ predictions: { nodes: [{ user: { id: predictor } }, { user: { id: creator } }] } }] } },
      ],
    ];
    for (const [query, data] of inside) {
      const response = await t.gql(query);
      expect(response.errors, `${query.slice(0, 80)}: ${JSON.stringify(response.errors)}`).toBeUndefined();
      expect(response.data, query.slice(0, 80)).toEqual(data);
    }
    // Every field of each, just inside the size budget (about 1.9 MB estimated for 100 pools of 50 predictions).
    const sized = await t.gql(OVER_THE_LIMIT[6]!.query.replace('first: 60', 'first: 50'));
    expect(sized.errors).toBeUndefined();
    expect(sized.data.pools.nodes.map((node: { id: string }) => node.id)).toEqual([pool]);
    expect(sized.data.pools.nodes[0].predictions.nodes).toHaveLength(2);
    // Newest prediction first: the predictor has created no pool, the creator the one.
    const small = await t.gql(OVER_THE_LIMIT[5]!.query, { n: 2 });
    expect(small.errors).toBeUndefined();
    expect(small.data).toEqual({
      pools: { nodes: [{ predictions: { nodes: [{ user: { pools: { nodes: [] } } }, { user: { pools: { nodes: [{ id: pool }] } } }] } }] },
    });
  });

  it('counts fragments by every use: depth, aliases and cost cannot hide in them', async () => {
    await expectRefused(
      'depth',
      `{ pools(first: 1) { ...Deep } }
       fragment Deep on PoolConnection { nodes { user { pools(first: 1) { ...Deeper } } } }
       fragment Deeper on PoolConnection { nodes { user { pools(first: 1) { nodes { user { pools(first: 1) { nodes { user { pools(first: 1) { nodes { user { id } } } } } } } } } } } }`,
    );
    // 8 uses of a fragment with 4 aliases: 32.
    await expectRefused(
      'aliases',
      `{ ${times(8, (i) => `p${i}: pools(first: 1) { ...Four }`)} } fragment Four on PoolConnection { a: totalCount b: totalCount c: totalCount d: totalCount }`,
    );
    // Each fragment spreads the one below it twice: 2^40 uses, measured without expanding them.
    let fragments = 'fragment F0 on Query { a: pools(first: 1) { totalCount } }';
    for (let i = 1; i <= 40; i++) fragments += ` fragment F${i} on Query { ...F${i - 1} ...F${i - 1} }`;
    const started = Date.now();
    await expectRefused('aliases', `{ ...F40 } ${fragments}`);
    expect(Date.now() - started).toBeLessThan(2000);
    // A page size inside a fragment multiplies what is around it.
    await expectRefused(
      'cost',
      `{ pools(first: 100) { nodes { ...Predictions } } }
       fragment Predictions on Pool { predictions(first: 100) { nodes { user { pools(first: 3) { nodes { id } } } } } }`,
    );
  });

  it('refuses a fragment that spreads itself, without looping', async () => {
    let response!: Awaited<ReturnType<TestApp['gql']>>;
    const statements = await t.countStatements(async () => {
      response = await t.gql(`{ pools(first: 1) { ...A } } fragment A on PoolConnection { nodes { user { pools(first: 1) { ...B } } } }
        fragment B on PoolConnection { ...A }`);
    });
    expect(response.status).toBe(400);
    expect(response.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(response.errors?.[0]?.message).toMatch(/Cannot spread fragment "A" within itself/);
    expect(statements).toBe(0);
  });

  it('counts __schema and __type like any other field', async () => {
    // The standard introspection query (the explorer's) fits.
    const { getIntrospectionQuery } = await import('graphql');
    const introspection = await t.gql(getIntrospectionQuery({ inputValueDeprecation: true }));
    expect(introspection.errors).toBeUndefined();
    // Twenty aliased copies of a mid-sized introspection query do not.
    const copy = '__schema { types { fields { args { type { name } } } } }';
    await expectRefused('cost', `{ ${times(20, (i) => `s${i}: ${copy}`)} }`);
    await expectRefused('aliases', `{ ${times(31, (i) => `t${i}: __type(name: "Pool") { name }`)} }`);
  });

  it('answers with the same errors when the checks run on their own: the shape by validation, the budgets from the walk', async () => {
    const schema = await getSchema();
    const { limits } = testConfig();
    for (const { limit, query, variables, message } of OVER_THE_LIMIT) {
      let errors;
      try {
        const document = parse(query, limitParseOptions(limits));
        errors = validate(schema, document, [...specifiedRules, ...shapeLimitRules(limits)]);
        if (!errors.length) {
          const operation = document.definitions[0] as OperationDefinitionNode;
          const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {}).coerced!;
          const overBudget = budgetError(new OperationWalk(schema, document, operation, coerced).measure, limits);
          errors = overBudget ? [overBudget] : [];
        }
      } catch (syntaxError) {
        errors = [syntaxError as Error];
      }
      expect(errors, limit).toHaveLength(1);
      if (limit !== 'tokens') {
        expect(errors[0]!.message).toMatch(message);
        expect((errors[0] as { extensions?: unknown }).extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit });
      } else {
        expect(errors[0]!.message).toMatch(/more th(an|at) 2000 tokens/);
      }
    }
  });
});

describe('request limits: CSRF prevention, no batching, body size, time budget', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startEmptyTestApp('pglite', { config: testConfig({ BODY_LIMIT_BYTES: '4096', REQUEST_TIMEOUT_MS: '300' }) });
    // One pool, so an operation that is let through is seen to run: it counts exactly it.
    await t.seed.user().withPool();
  });
  afterAll(() => t.close());

  it('refuses a GET operation that a browser form could send cross-site (CSRF prevention)', async () => {
    const query = encodeURIComponent('{ pools(first: 1) { totalCount } }');
    const simple = await t.app.inject({ url: `/graphql?query=${query}` });
    expect(simple.statusCode).toBe(400);
    expect(simple.json().errors[0].message).toMatch(/Cross-Site Request Forgery/);
    const textPlain = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'text/plain' },
      payload: JSON.stringify({ query: '{ pools(first: 1) { totalCount } }' }),
    });
    expect(textPlain.statusCode).toBeGreaterThanOrEqual(400);
    const preflighted = await t.app.inject({ url: `/graphql?query=${query}`, headers: { 'apollo-require-preflight': 'true' } });
    expect(preflighted.statusCode).toBe(200);
    expect(preflighted.json()).toEqual({ data: { pools: { totalCount: 1 } } });
  });

  it('refuses a batch (a JSON array body) without running any of it', async () => {
    let response!: Awaited<ReturnType<typeof t.app.inject>>;
    const statements = await t.countStatements(async () => {
      response = await t.app.inject({
        method: 'POST',
        url: '/graphql',
        payload: [{ query: '{ pools(first: 1) { totalCount } }' }, { query: '{ streaks(first: 1) { totalCount } }' }],
      });
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors[0].message).toMatch(/batching/i);
    expect(statements).toBe(0);
  });

  it('answers 413 REQUEST_TOO_LARGE for a body over the limit, unread', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      payload: { query: `{ pools(first: 1) { totalCount } } # ${'x'.repeat(5000)}` },
    });
    expect(response.statusCode).toBe(413);
    expect(response.json().errors[0].extensions).toEqual({ code: 'REQUEST_TOO_LARGE', limit: 4096 });
  });

  it('fails a request past its time budget with 504 OPERATION_TIMEOUT, then serves the next', async () => {
    // Every statement takes 1,500 ms: five times the 300 ms budget, so an answer well before
    // the statement's end shows the budget cut the request short (with room for a busy CPU).
    const fault = delayEveryStatement(t.database, 1500);
    try {
      const started = Date.now();
      const response = await t.gql('query Slow { pools(first: 1) { totalCount } }');
      expect(response.status).toBe(504);
      expect(response.errors?.[0]?.extensions).toEqual({ code: 'OPERATION_TIMEOUT', budgetMs: 300 });
      expect(Date.now() - started).toBeLessThan(1200);
    } finally {
      fault.restore();
    }
    // The next request once the timed-out one's statement has run out, not racing it.
    await fault.drained();
    const next = await t.gql('{ pools(first: 1) { totalCount } }');
    expect(next.status).toBe(200);
    expect(next.errors).toBeUndefined();
    expect(next.data).toEqual({ pools: { totalCount: 1 } });
  });
});
