import { execute, type GraphQLSchema, Kind, type OperationDefinitionNode, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInLimits } from '../../src/modules/auth/auth.service.js';
import type { ServiceDependencies } from '../../src/modules/context.js';
import { createContext, type GraphQLContext } from '../../src/server/context.js';
import { preparedOperationOf } from '../../src/server/pipeline/rendered.js';
import { getSchema } from '../../src/server/schema.js';
import { generateCorpus } from '../support/fixtures/selection-corpus.js';
import { startTestApp, testConfig, type TestApp } from '../support/harness.js';

/** Documents in the corpus: each runs four times (graphql-js, then the pipeline's executor three times). */
const CORPUS_SIZE = 300;
const NOW = new Date('2026-06-01T00:00:00Z');

/**
 * The executor every operation runs on (the pipeline's prepared operation, over HTTP, REST
 * and graphql-ws) against graphql-js's `execute` as the oracle:
 * a generated corpus of selections (support/fixtures/selection-corpus.ts), on one database, each
 * document's first and third use compared byte for byte as JSON (data, errors, key order).
 */
describe('the executor against graphql-js, a generated corpus, byte for byte', () => {
  let t: TestApp;
  let schema: GraphQLSchema;
  let deps: ServiceDependencies;
  let documents: string[] = [];
  beforeAll(async () => {
    t = await startTestApp('pglite');
    schema = await getSchema({ devTokens: false });
    const config = testConfig();
    deps = {
      database: t.database,
      auth: config.auth,
      signInLimits: createSignInLimits(config.auth),
      clock: () => NOW,
      chain: null,
      minWithdrawAmount: 0,
      events: null as never, // queries publish nothing
    };
    const { data } = await t.gql('{ pools(first: 1, sort: VOLUME_HIGH) { nodes { id user { id } } } streaks(first: 1) { nodes { id } } }');
    const pool = data.pools.nodes[0];
    ({ documents } = generateCorpus(schema, { poolId: pool.id, userId: pool.user.id, streakId: data.streaks.nodes[0].id }, CORPUS_SIZE));
  });
  afterAll(() => t.close());

  /** A fresh request context: loaders (and what they cached) are per request. */
  const context = (): GraphQLContext =>
    createContext(deps, {
      viewer: null,
      clientAddress: '127.0.0.1',
      now: NOW,
      transport: { requestId: 'corpus', refreshCookie: null, setSessionCookies: () => {}, clearSessionCookies: () => {} },
    });

  /** The answer as the server writes it, or what was thrown while making or writing it (a 500). */
  const answerOf = async (run: () => unknown): Promise<string> => {
    try {
      return JSON.stringify(await run());
    } catch (error) {
      return `threw ${String(error)}`;
    }
  };

  it(`answers ${CORPUS_SIZE} generated documents as graphql-js does, on their first and third use`, async () => {
    const differences: string[] = [];
    for (const text of documents) {
      const document = parse(text);
      const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
      const expected = JSON.stringify(await execute({ schema, document, contextValue: context() }));
      const prepared = preparedOperationOf(schema, document, operation);
      const uses: string[] = [];
      for (let use = 1; use <= 3; use++) uses.push(await answerOf(() => prepared.run(undefined, context(), undefined)));
      if (uses[0] !== expected) differences.push(`first use of ${text}\n  expected ${expected}\n  got      ${uses[0]}`);
      else if (uses[2] !== expected) differences.push(`third use of ${text}\n  expected ${expected}\n  got      ${uses[2]}`);
    }
    expect(differences.slice(0, 3), `${differences.length} of ${documents.length} documents differ`).toEqual([]);
  }, 300_000);

  it('covers what the executors got wrong: Object.prototype aliases, excluded fragments, skipped duplicates', () => {
    const all = documents.join('\n');
    expect(all).toContain('__proto__:');
    expect(all).toMatch(/\.\.\. @include\(if: (false|\$no)\)|@skip\(if: (true|\$yes)\) \{/);
    expect(all).toMatch(/@skip\(if: true\)/);
  });
});
