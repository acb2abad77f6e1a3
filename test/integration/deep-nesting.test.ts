import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { backends, startTestApp, type TestApp, testConfig } from '../support/harness.js';

/** A pool, its creator, the creator's newest pool, its creator, ... `levels` times over: depth 3 per level. */
function nestedQuery(poolId: string, levels: number): string {
  let inner = 'id title';
  for (let i = 0; i < levels; i++) inner = `id user { id username pools(first: 1) { totalCount nodes { ${inner} } } }`;
  return `{ pool(id: "${poolId}") { ${inner} } }`;
}

/**
 * With MAX_QUERY_DEPTH raised, a deep query costs what it returns. A nested page reads one
 * row more than asked (to tell whether more exist); that row was once followed through its
 * relations as well, so each level of nesting doubled the work: 16 levels took 7.8 s, 20
 * levels ran past any budget. Rendered, the read is one statement; executed, its loaders
 * read at most one statement per relation and level (fewer where a level asks rows already
 * loaded).
 */
describe.each(backends)('a query nested 20 levels deep (%s)', (kind) => {
  const settings = { MAX_QUERY_DEPTH: '0', MAX_QUERY_COST: '0', MAX_QUERY_BYTES: '0', DATABASE_STATEMENT_TIMEOUT_MS: '5000' };
  let t: TestApp;
  let executed: FastifyInstance;
  let query: string;
  beforeAll(async () => {
    t = await startTestApp(kind, { config: testConfig(settings) });
    executed = await createApp({ config: testConfig({ ...settings, RENDERED_READS: 'false' }), database: t.database });
    const { data } = await t.gql('{ pools(first: 1, sort: CREATION_DATE) { nodes { id } } }');
    query = nestedQuery(data.pools.nodes[0].id, 20);
  });
  afterAll(async () => {
    await executed?.close();
    await t?.close();
  });

  it('is answered, executed and rendered alike, within the statement budget', async () => {
    const answers = [];
    for (const app of [executed, t.app]) {
      let body: { data?: unknown; errors?: unknown } | undefined;
      const statements = await t.countStatements(async () => {
        body = (await app.inject({ method: 'POST', url: '/graphql', payload: { query } })).json();
      });
      expect(body!.errors).toBeUndefined();
      // Per level: the user, a page of their pools, its count.
      if (app === executed) expect(statements).toBeLessThanOrEqual(1 + 3 * 20);
      else expect(statements).toBe(1);
      answers.push(body!.data);
    }
    expect(answers[0]).toEqual(answers[1]);
    // Twenty levels down, the pool at the bottom is there.
    expect(JSON.stringify(answers[0]).match(/"title"/g)).toHaveLength(1);
  }, 60_000);
});
