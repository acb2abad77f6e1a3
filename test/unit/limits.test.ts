import { buildSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { checkLimits, fragmentsOf, measureOperation, UNPAGED_LIST_SIZE } from '../../src/server/limits.js';
import { FixedWindowLimiter } from '../../src/modules/common/fixed-window.js';
import { rootFieldCount } from '../../src/server/rate-limit.js';

const schema = buildSchema(`
  type Query { pools(first: Int = 20): PoolConnection! pool(id: ID!): Pool tags: [String!]! streak: Streak }
  type Mutation { act(n: Int): Boolean }
  type PoolConnection { nodes: [Pool!]! totalCount: Int! pageInfo: PageInfo! }
  type PageInfo { hasNextPage: Boolean! }
  type Pool { id: ID! user: User! predictions(first: Int = 20): PredictionConnection! }
  type Streak { pools(first: Int, last: Int): PoolConnection! }
  type PredictionConnection { nodes: [Prediction!]! }
  type Prediction { id: ID! user: User! }
  type User { id: ID! apiKeys: [ApiKey!] }
  type ApiKey { id: ID! }
`);

function measure(query: string, variables?: Record<string, unknown>) {
  const document = parse(query);
  const operation = document.definitions.find((d) => d.kind === 'OperationDefinition')!;
  return measureOperation(schema, operation as never, fragmentsOf(document), variables);
}

describe('operation measure', () => {
  it('costs objects, lists by their page size, leaves nothing', () => {
    expect(measure('{ pools { totalCount } }').cost).toBe(1);
    // pools 1 + pageInfo 1 + nodes (1 + 20 * user 1)
    expect(measure('{ pools { pageInfo { hasNextPage } nodes { id user { id } } } }').cost).toBe(1 + 1 + 1 + 20);
    expect(measure('{ pools(first: 5) { nodes { predictions(first: 3) { nodes { user { id } } } } } }').cost).toBe(
      1 + 1 + 5 * (1 + 1 + 3 * 1),
    );
    expect(measure('{ pool(id: "1") { user { apiKeys { id } } } }').cost).toBe(1 + 1 + 1 + UNPAGED_LIST_SIZE * 0);
    expect(measure('{ pools(first: 2) { nodes { user { apiKeys { id } } } } }').cost).toBe(1 + 1 + 2 * (1 + 1));
  });

  it('reads first from variables, their defaults and the argument default', () => {
    const query = 'query($n: Int = 7) { pools(first: $n) { nodes { user { id } } } }';
    expect(measure(query, { n: 50 })).toMatchObject({ cost: 52, costDependsOnVariables: true });
    expect(measure(query, {}).cost).toBe(9);
    expect(measure('query($n: Int) { pools(first: $n) { nodes { user { id } } } }', {}).cost).toBe(22);
  });

  it('counts a backward page by its last, and a list with neither first nor last by the default page size', () => {
    expect(measure('{ streak { pools(last: 50) { nodes { id } } } }').cost).toBe(1 + 1 + 1 + 50 * 0);
    expect(measure('{ streak { pools(last: 50) { nodes { user { id } } } } }').cost).toBe(1 + 1 + 1 + 50);
    expect(measure('query($n: Int) { streak { pools(last: $n) { nodes { user { id } } } } }', { n: 30 })).toMatchObject({
      cost: 33,
      costDependsOnVariables: true,
    });
    expect(measure('{ streak { pools { nodes { user { id } } } } }').cost).toBe(1 + 1 + 1 + 20);
  });

  it('measures depth, aliases and directives through fragments, once per use', () => {
    const measured = measure(`{ a: pools { ...F } b: pools { ...F } }
      fragment F on PoolConnection { n: nodes @include(if: true) { id } }`);
    expect(measured).toMatchObject({ depth: 3, aliases: 4, directives: 2 });
  });

  it("estimates the answer's bytes from the fields asked, lists by their page size, and within a few percent of the JSON", () => {
    const ids = measure('{ pools(first: 20) { nodes { id } } }').bytes;
    const more = measure('{ pools(first: 20) { nodes { id user { id } predictions(first: 5) { nodes { id } } } } }').bytes;
    expect(more).toBeGreaterThan(5 * ids);
    expect(measure('{ pools(first: 100) { nodes { id } } }').bytes).toBeGreaterThan(4.5 * ids);
    // The estimate of a full page against the JSON of one whose ids are UUIDs (a typical value).
    const id = '"0b9f6a2e-3c1d-4b5e-8f7a-9d0c1e2f3a4b"';
    const answer = `{"pools":{"nodes":[${Array.from({ length: 20 }, () => `{"id":${id}}`).join(',')}]}}`;
    expect(ids / answer.length).toBeGreaterThan(0.9);
    expect(ids / answer.length).toBeLessThan(1.2);
    const limits = { maxDepth: 0, maxAliases: 0, maxDirectives: 0, maxTokens: 0, maxCost: 0, maxBytes: ids + 1, largeAnswerBytes: 0 };
    expect(checkLimits(measure('{ pools(first: 20) { nodes { id } } }'), limits, { cost: true })).toBeNull();
    expect(checkLimits(measure('{ pools(first: 21) { nodes { id } } }'), limits, { cost: true })?.extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      limit: 'bytes',
      max: ids + 1,
    });
  });

  it('names the first limit exceeded; 0 turns a limit off', () => {
    const limits = { maxDepth: 2, maxAliases: 0, maxDirectives: 0, maxTokens: 0, maxCost: 1, maxBytes: 0, largeAnswerBytes: 0 };
    const measured = measure('{ a: pools { nodes { id } } }');
    expect(checkLimits(measured, limits, { cost: true })?.message).toBe('Query depth 3 exceeds the limit of 2');
    expect(checkLimits(measured, { ...limits, maxDepth: 0 }, { cost: true })?.extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      limit: 'cost',
      max: 1,
    });
    expect(checkLimits(measured, { ...limits, maxDepth: 0 }, { cost: false })).toBeNull();
  });
});

describe('rate-limit accounting', () => {
  it('counts root response keys through fragments; __typename is free', () => {
    const document = parse('mutation { a: act b: act act ...F __typename } fragment F on Mutation { c: act a: act }');
    expect(rootFieldCount(document, document.definitions[0] as never)).toBe(4);
  });

  it('grants all of an operation or none, and reopens with the next window', () => {
    let now = 0;
    const budget = new FixedWindowLimiter(10, 60_000, () => now);
    expect(budget.take('k', 8)).toBeNull();
    expect(budget.take('k', 3)).toBe(60);
    expect(budget.take('k', 2)).toBeNull();
    expect(budget.take('k', 1)).toBe(60);
    expect(budget.take('other', 10)).toBeNull();
    now = 45_500;
    expect(budget.take('k', 1)).toBe(15);
    now = 60_000;
    expect(budget.take('k', 10)).toBeNull();
  });

  it('takes back units given back to the current window only', () => {
    let now = 0;
    const budget = new FixedWindowLimiter(10, 60_000, () => now);
    budget.take('k', 10);
    budget.giveBack('k', 4);
    expect(budget.used('k').used).toBe(6);
    budget.giveBack('k', 20);
    expect(budget.used('k').used).toBe(0);
    budget.take('k', 7);
    now = 60_000;
    budget.giveBack('k', 5); // the window ended: the next one starts full, and owes nothing
    expect(budget.take('k', 10)).toBeNull();
    expect(budget.used('k').used).toBe(10);
  });
});
