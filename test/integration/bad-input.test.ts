import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startEmptyTestApp, type TestApp } from '../support/harness.js';

describe.each(backends)('bad input on %s', (kind) => {
  let t: TestApp;
  // Two pools, one with a prediction: enough for a nested predictions field and a cursor to
  // exist; nothing else here reads rows, since bad input must be refused before any statement.
  beforeAll(async () => {
    t = await startEmptyTestApp(kind);
    await t.seed.user().withPool().withPrediction().withPool({ phase: 'ended' });
  });
  afterAll(() => t.close());

  /** Runs `query`, expects one BAD_USER_INPUT error naming `argumentName`, and no statement. */
  async function expectBadInput(query: string, argumentName: string, variables?: Record<string, unknown>) {
    let response!: Awaited<ReturnType<TestApp['gql']>>;
    const statements = await t.countStatements(async () => {
      response = await t.gql(query, variables);
    });
    expect(response.errors, JSON.stringify(response)).toHaveLength(1);
    expect(response.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName });
    expect(response.errors![0]!.message).toContain(argumentName.split('.')[0]);
    expect(statements).toBe(0);
  }

  it('rejects a malformed id, naming the argument', async () => {
    await expectBadInput('{ pool(id: "not-a-uuid") { id } }', 'id');
    await expectBadInput('{ streak(id: "42") { id } }', 'id');
    await expectBadInput('{ streakPools(streakId: "x") { streak { id } } }', 'streakId');
    await expectBadInput('{ pools(filter: { streakId: "x" }) { totalCount } }', 'filter.streakId');
    await expectBadInput('{ pools(filter: { createdBy: "nope" }) { totalCount } }', 'filter.createdBy');
  });

  it('rejects first above 100 or below 1, at the root and nested', async () => {
    await expectBadInput('{ pools(first: 101) { totalCount } }', 'first');
    await expectBadInput('{ pools(first: 0) { totalCount } }', 'first');
    await expectBadInput('{ streaks(first: -5) { totalCount } }', 'first');
    await expectBadInput('query($n: Int) { pools(first: $n) { totalCount } }', 'first', { n: 1000 });
    // A nested page is refused before anything runs, pointing at the field that asked for it.
    await expectBadInput('{ pools(first: 1) { nodes { predictions(first: 500) { totalCount } } } }', 'first');
    const nested = await t.gql('{ pools(first: 1) { nodes { predictions(first: 500) { totalCount } } } }');
    expect(nested.data).toBeUndefined();
    expect(nested.errors?.[0]?.locations).toEqual([{ line: 1, column: 29 }]);
  });

  it('reads page arguments through the variables and directives of each request, and leaves variables that do not coerce to the executor', async () => {
    // The check is prepared once per operation: the same text with other variables is judged again.
    const sized = 'query($n: Int) { pools(first: $n) { totalCount } }';
    await expectBadInput(sized, 'first', { n: 1000 });
    expect((await t.gql(sized, { n: 1 })).data.pools.totalCount).toBe(2);
    await expectBadInput(sized, 'first', { n: 0 });
    const skipped = 'query($skip: Boolean!) { pools(first: 500) @skip(if: $skip) { totalCount } }';
    const none = await t.gql(skipped, { skip: true });
    expect(none.errors).toBeUndefined();
    expect(none.data).toEqual({});
    await expectBadInput(skipped, 'first', { skip: false });
    // Both bad: the variable's error is the answer, as execution gives it, whether or not the page argument reads a variable.
    for (const query of [
      'query($id: ID!) { pools(first: 500) { totalCount } pool(id: $id) { id } }',
      'query($n: Int, $id: ID!) { pools(first: $n) { totalCount } pool(id: $id) { id } }',
    ]) {
      const missing = await t.gql(query, { n: 500 });
      expect(missing.errors, JSON.stringify(missing)).toHaveLength(1);
      expect(missing.errors![0]!.message).toContain('"$id"');
      expect(missing.errors![0]!.extensions?.code).toBe('BAD_USER_INPUT');
      await expectBadInput(query, 'first', { n: 500, id: '00000000-0000-4000-8000-000000000000' });
    }
  });

  it('rejects an unknown enum value, as a literal and as a variable', async () => {
    await expectBadInput('{ pools(sort: SOONEST) { totalCount } }', 'sort');
    await expectBadInput('{ pools(filter: { status: [ACTIVE, OPEN] }) { totalCount } }', 'filter.status');
    const viaVariable = await t.gql('query($s: PoolSort) { pools(sort: $s) { totalCount } }', { s: 'SOONEST' });
    expect(viaVariable.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(viaVariable.errors?.[0]?.message).toContain('SOONEST');
  });

  it('refuses an enum value the schema lacks listing every value it takes, as a literal and as a variable', async () => {
    const allowed = 'allowed values: END_DATE, CREATION_DATE, OLD_CREATION_DATE, VOLUME_HIGH, VOLUME_LOW.';
    const literal = await t.gql('{ pools(sort: NEWEST) { totalCount } }');
    expect(literal.errors?.[0]?.message).toContain(`Value "NEWEST" does not exist in "PoolSort" enum; ${allowed}`);
    const variable = await t.gql('query($s: PoolSort) { pools(sort: $s) { totalCount } }', { s: 'NEWEST' });
    expect(variable.errors?.[0]).toMatchObject({ message: expect.stringContaining(allowed), extensions: { code: 'BAD_USER_INPUT' } });
    // graphql-js's suggestion, when it has one, still follows the list.
    const close = await t.gql('{ pools(filter: { status: [ACTIV] }) { totalCount } }');
    expect(close.errors?.[0]?.message).toMatch(
      /; allowed values: ACTIVE, ENDED, RESOLVED, NOT_RESOLVED\. Did you mean the enum value "ACTIVE"\?$/,
    );
  });

  it('rejects an invalid cursor and a cursor of another sort order', async () => {
    await expectBadInput('{ pools(after: "garbage") { totalCount } }', 'after');
    // CREATION_DATE and END_DATE both key on a date, so only the cursor's sort tells them apart.
    const page = await t.gql('{ pools(sort: CREATION_DATE, first: 1) { pageInfo { endCursor } } }');
    const cursor = page.data.pools.pageInfo.endCursor as string;
    expect((await t.gql(`{ pools(sort: CREATION_DATE, after: "${cursor}") { nodes { id } } }`)).data.pools.nodes).toHaveLength(1);
    await expectBadInput(`{ pools(sort: END_DATE, after: "${cursor}") { totalCount } }`, 'after');
    await expectBadInput(`{ pools(sort: VOLUME_HIGH, after: "${cursor}") { totalCount } }`, 'after');
    await expectBadInput('{ pools(filter: { referenceDate: "yesterday" }) { totalCount } }', 'filter.referenceDate');
  });

  it('answers null for an unknown pool or streak id, and NOT_FOUND for streakPools', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const response = await t.gql(`{ pool(id: "${unknown}") { id } streak(id: "${unknown}") { id } }`);
    expect(response.errors).toBeUndefined();
    expect(response.data).toEqual({ pool: null, streak: null });
    const pools = await t.gql(`{ streakPools(streakId: "${unknown}") { streak { id } } }`);
    expect(pools.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('gives every error a code and no stack trace outside development', async () => {
    const responses = await Promise.all([t.gql('{ pools { nope } }'), t.gql('{ pool(id: "bad") { id } }'), t.gql('query { pools(')]);
    for (const response of responses) {
      expect(response.errors?.length).toBeGreaterThan(0);
      for (const error of response.errors!) {
        expect(typeof error.extensions?.code).toBe('string');
        expect(error.extensions?.stacktrace).toBeUndefined();
      }
    }
  });
});
