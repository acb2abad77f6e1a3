import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startTestApp, type TestApp } from './harness.js';

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
    rows: (data) =>
      data.pools.nodes.reduce((sum: number, pool: any) => sum + 1 + pool.predictions.nodes.length, 0),
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
    t = await startTestApp(kind, { seed: { users: 150, pools: 90, streaks: 3, seed: 7 } });
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
    console.log(`[${kind}] ${_name}: 5 -> ${small.statements} statements / ${small.rows} rows; 50 -> ${large.statements} statements / ${large.rows} rows`);
    expect(large.rows).toBeGreaterThan(small.rows * 2);
    // Both pages reach every relation of the shape, so "no more" is "exactly as many".
    expect(large.statements).toBe(small.statements);
    expect(large.statements).toBeLessThanOrEqual(shape.maxStatements);
  });
});
