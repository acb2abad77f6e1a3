import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { seedDemoData } from '../../src/seed/index.js';
import { createApp } from '../../src/server/app.js';
import type { ServiceContext } from '../../src/modules/context.js';
import { newestFirstCursor } from '../../src/modules/common/loaders.js';
import { userTransactions } from '../../src/modules/viewer/history.service.js';
import { createTestDatabase, type TestDatabase, testConfig } from '../support/harness.js';
import { type RecordedStatement, recordingDatabase } from '../support/recording-database.js';

/**
 * Every pool sort, from the first page and after a cursor, and backward (the last page,
 * and before a cursor), alone and under each status filter, is served by an index: EXPLAIN
 * of the very statement the service sends shows the pools read by an index scan with no
 * Sort above it (so a page stops after `first` or `last` rows; a backward page reads the
 * index backwards).
 *
 * The test database is small, where a sequential or bitmap scan and a sort are rightly
 * cheaper, so the session discourages them (enable_seqscan, enable_bitmapscan, enable_sort
 * off): the question is whether an index CAN deliver the order, and where none can, the
 * planner still sorts (the settings only add cost). Postgres only (EXPLAIN's plan shape).
 */
const SORTS = ['END_DATE', 'CREATION_DATE', 'OLD_CREATION_DATE', 'VOLUME_HIGH', 'VOLUME_LOW'] as const;
const FILTERS = [null, 'ACTIVE', 'ENDED', 'RESOLVED', 'NOT_RESOLVED'] as const;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Parent Relationship'?: string;
  Plans?: PlanNode[];
}

/** The scan of `relation` feeding the statement's result (subplans of the select list left out), and the node types above it. */
function mainScan(node: PlanNode, relation: string, above: string[] = []): { scan: PlanNode; above: string[] } | null {
  if (node['Relation Name'] === relation) return { scan: node, above };
  for (const child of node.Plans ?? []) {
    if (child['Parent Relationship'] === 'SubPlan' || child['Parent Relationship'] === 'InitPlan') continue;
    const found = mainScan(child, relation, [...above, node['Node Type']]);
    if (found) return found;
  }
  return null;
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('pool sorts use an index on postgres', () => {
  let test: TestDatabase;
  let database: Database;
  let app: Awaited<ReturnType<typeof createApp>>;
  let statements: RecordedStatement[];
  let closeDatabase: () => Promise<void>;

  beforeAll(async () => {
    test = await createTestDatabase('postgres');
    await seedDemoData(test.database, { users: 150, pools: 90, streaks: 3, seed: 7 });
    ({
      database,
      statements,
      close: closeDatabase,
    } = await recordingDatabase(test.url!, ['enable_seqscan', 'enable_bitmapscan', 'enable_sort']));
    app = await createApp({ config: testConfig(), database });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await closeDatabase();
    await test.drop();
  });

  const poolsStatement = async (sort: string, status: string | null, page: string) => {
    statements.length = 0;
    const filter = status ? `filter: { status: [${status}] }, ` : '';
    const response = await app.inject({
      method: 'POST',
      url: '/graphql',
      payload: {
        query: `{ pools(${filter}sort: ${sort}, ${page}) { pageInfo { startCursor endCursor } nodes { id title } } }`,
      },
    });
    const body = response.json();
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    const pools = statements.filter((s) => s.text.includes('FROM "pools" p'));
    expect(pools).toHaveLength(1);
    const { startCursor, endCursor } = body.data.pools.pageInfo as { startCursor: string | null; endCursor: string | null };
    return { statement: pools[0]!, startCursor, endCursor };
  };

  const explain = async (statement: { text: string; params: readonly unknown[] }, relation = 'pools') => {
    const [row] = await Object.getPrototypeOf(database).query(`EXPLAIN (FORMAT JSON) ${statement.text}`, statement.params);
    const plan = (row as { 'QUERY PLAN': Array<{ Plan: PlanNode }> })['QUERY PLAN'][0]!.Plan;
    return mainScan(plan, relation);
  };

  for (const sort of SORTS) {
    it(`${sort}: first page, after a cursor, last page and before a cursor, alone and under each status filter`, async () => {
      for (const status of FILTERS) {
        const first = await poolsStatement(sort, status, 'first: 5');
        const last = await poolsStatement(sort, status, 'last: 5');
        const pages = [
          { where: 'first page', statement: first.statement },
          { where: 'last page', statement: last.statement },
        ];
        if (first.endCursor)
          pages.push({
            where: 'after a cursor',
            statement: (await poolsStatement(sort, status, `first: 5, after: "${first.endCursor}"`)).statement,
          });
        if (last.startCursor)
          pages.push({
            where: 'before a cursor',
            statement: (await poolsStatement(sort, status, `last: 5, before: "${last.startCursor}"`)).statement,
          });
        for (const page of pages) {
          const found = await explain(page.statement);
          const where = `${sort}${status ? ` / ${status}` : ''} ${page.where}`;
          expect(found, where).not.toBeNull();
          expect(found!.scan['Node Type'], `${where}: ${found!.scan['Node Type']} ${found!.scan['Index Name'] ?? ''}`).toMatch(
            /^Index (Only )?Scan/,
          );
          expect(found!.above, `${where}: a Sort above the pools scan`).not.toContain('Sort');
          expect(found!.above, `${where}`).not.toContain('Incremental Sort');
        }
      }
    });
  }

  it("the viewer's transactions: first page, after a cursor, last page and before a cursor, by the (user_id, created_at, id) index", async () => {
    const userId = randomUUID();
    const cursor = newestFirstCursor({ id: randomUUID(), createdAt: new Date() });
    for (const page of [{ first: 5 }, { first: 5, after: cursor }, { last: 5 }, { last: 5, before: cursor }]) {
      // A request's own loaders (the page loader is kept per request): a fresh scope per page.
      const ctx = { database, chain: null, loaders: {} } as unknown as ServiceContext;
      statements.length = 0;
      await userTransactions(ctx, userId, page);
      const read = statements.find((s) => s.text.includes('FROM "chain_submissions" s'));
      const found = await explain(read!, 'chain_submissions');
      const where = JSON.stringify(page);
      expect(found, where).not.toBeNull();
      expect(found!.scan['Index Name'], where).toBe('chain_submissions_user_created_idx');
      expect(found!.above, `${where}: a Sort above the scan`).not.toContain('Sort');
    }
  });
});
