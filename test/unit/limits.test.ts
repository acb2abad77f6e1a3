import { buildSchema, getVariableValues, type OperationDefinitionNode, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { budgetError, fragmentsOf, measureShape, shapeError } from '../../src/server/limits.js';
import { FixedWindowLimiter } from '../../src/modules/common/fixed-window.js';
import { OperationWalk, UNPAGED_LIST_SIZE } from '../../src/read/operation-walk.js';
import { OperationWalks } from '../../src/read/operation-walks.js';

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

function parsed(query: string) {
  const document = parse(query);
  const operation = document.definitions.find((d) => d.kind === 'OperationDefinition') as OperationDefinitionNode;
  return { document, operation };
}

/** The walk of `query`'s operation for `variables`, coerced as graphql-js coerces them. */
function walk(query: string, variables: Record<string, unknown> = {}) {
  const { document, operation } = parsed(query);
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
  return new OperationWalk(schema, document, operation, coerced.coerced!);
}

const measure = (query: string, variables?: Record<string, unknown>) => walk(query, variables).measure;

function shape(query: string) {
  const { document, operation } = parsed(query);
  return measureShape(operation, fragmentsOf(document));
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
    expect(measure(query, { n: 50 }).cost).toBe(52);
    expect(measure(query, {}).cost).toBe(9);
    expect(measure('query($n: Int) { pools(first: $n) { nodes { user { id } } } }', {}).cost).toBe(22);
  });

  it('counts a backward page by its last, and a list with neither first nor last by the default page size', () => {
    expect(measure('{ streak { pools(last: 50) { nodes { id } } } }').cost).toBe(1 + 1 + 1 + 50 * 0);
    expect(measure('{ streak { pools(last: 50) { nodes { user { id } } } } }').cost).toBe(1 + 1 + 1 + 50);
    expect(measure('query($n: Int) { streak { pools(last: $n) { nodes { user { id } } } } }', { n: 30 }).cost).toBe(33);
    expect(measure('{ streak { pools { nodes { user { id } } } } }').cost).toBe(1 + 1 + 1 + 20);
  });

  it('measures depth, aliases and directives through fragments, once per use', () => {
    const measured = shape(`{ a: pools { ...F } b: pools { ...F } }
      fragment F on PoolConnection { n: nodes @include(if: true) { id } }`);
    expect(measured).toEqual({ depth: 3, aliases: 4, directives: 2 });
  });

  it('costs what runs: a skipped field costs nothing, an abstract field its costliest type', () => {
    const query = 'query($all: Boolean!) { pools(first: 5) { nodes { id user @include(if: $all) { id } } } }';
    expect(measure(query, { all: true }).cost).toBe(1 + 1 + 5);
    expect(measure(query, { all: false }).cost).toBe(1 + 1);
    const abstract = buildSchema(`
      type Query { things(first: Int = 20): [Thing!]! }
      union Thing = A | B
      type A { id: ID! one: X! }
      type B { id: ID! one: X! two: X! three: X! }
      type X { id: ID! }
    `);
    const document = parse('{ things(first: 4) { ... on A { one { id } } ... on B { one { id } two { id } three { id } } } }');
    const walked = new OperationWalk(abstract, document, document.definitions[0] as OperationDefinitionNode, {});
    // The list, and each of its four items an A or a B: B's three objects at most (both types' together would be four).
    expect(walked.measure.cost).toBe(1 + 4 * 3);
  });

  it('is kept per value of the variables that shape it, not of the others', () => {
    const walks = new OperationWalks(schema);
    const { document, operation } = parsed('query($n: Int, $id: ID!) { pools(first: $n) { nodes { id } } pool(id: $id) { id } }');
    const first = walks.of(document, operation, { n: 5, id: 'a' });
    expect(walks.of(document, operation, { n: 5, id: 'b' })).toBe(first);
    const other = walks.of(document, operation, { n: 6, id: 'a' });
    expect(other).not.toBe(first);
    expect([first.measure.cost, other.measure.cost]).toEqual([1 + 1 + 1 + 5 * 0, 1 + 1 + 1 + 6 * 0]);
    expect(first.measure.bytes).toBeLessThan(other.measure.bytes);
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
    expect(budgetError(measure('{ pools(first: 20) { nodes { id } } }'), limits)).toBeNull();
    expect(budgetError(measure('{ pools(first: 21) { nodes { id } } }'), limits)?.extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      limit: 'bytes',
      max: ids + 1,
    });
  });

  it('names the first limit exceeded; 0 turns a limit off', () => {
    const limits = { maxDepth: 2, maxAliases: 0, maxDirectives: 0, maxTokens: 0, maxCost: 1, maxBytes: 0, largeAnswerBytes: 0 };
    const query = '{ a: pools { nodes { id } } }';
    expect(shapeError(shape(query), limits)?.message).toBe('Query depth 3 exceeds the limit of 2');
    expect(shapeError(shape(query), { ...limits, maxDepth: 0 })).toBeNull();
    expect(budgetError(measure(query), limits)?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'cost', max: 1 });
    expect(budgetError(measure(query), { ...limits, maxCost: 0 })).toBeNull();
  });
});

describe('rate-limit accounting', () => {
  it('counts root response keys through fragments; __typename is free, and so is a skipped field', () => {
    expect(walk('mutation { a: act b: act act ...F __typename } fragment F on Mutation { c: act a: act }').rootFieldCount).toBe(4);
    expect(walk('mutation($no: Boolean!) { a: act b: act @skip(if: $no) }', { no: true }).rootFieldCount).toBe(1);
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
