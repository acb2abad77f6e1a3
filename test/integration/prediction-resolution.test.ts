import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { seedVariedPools, type VariedPools } from '../support/fixtures/varied-pools.js';
import { backends, renderedReadsServed, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';

/**
 * A prediction's resolution, the outcome of its pool: a relation added to the read graph
 * (src/modules/common/read-specs.ts) and nothing else. Its GraphQL field, its REST include
 * (`predictions.resolution`) and its docs row follow from the entry; this suite shows the
 * first two answer what the pool's own resolution does, rendered and executed alike.
 */
describe.each(backends)('a prediction’s resolution, from its one entry in the read graph, on %s', (kind) => {
  let t: TestApp;
  let world: VariedPools;
  beforeAll(async () => {
    t = await startEmptyTestApp(kind);
    world = await seedVariedPools(t.seed, t.database);
  });
  afterAll(async () => {
    await t?.close();
  });

  const POOLS = `{ pools(first: 24, sort: CREATION_DATE) { nodes {
    id resolution { id result median protocolFee }
    predictions(first: 10) { nodes { id poolId resolution { id poolId result median protocolFee } } }
  } } }`;

  it('is the GraphQL field Prediction.resolution: its pool’s resolution, null until the pool is resolved', async () => {
    const { data, errors } = await t.gql(POOLS);
    expect(errors).toBeUndefined();
    const pools = data.pools.nodes as Array<{ id: string; resolution: unknown; predictions: { nodes: Array<{ resolution: unknown }> } }>;
    expect(pools).toHaveLength(world.pools.length);
    let resolved = 0;
    let unresolved = 0;
    for (const pool of pools) {
      for (const prediction of pool.predictions.nodes) {
        expect(prediction.resolution, pool.id).toEqual(pool.resolution && { ...pool.resolution, poolId: pool.id });
        if (pool.resolution) resolved++;
        else unresolved++;
      }
    }
    // Not vacuous: the fixture has predictions in resolved pools and in others.
    expect(resolved).toBeGreaterThan(5);
    expect(unresolved).toBeGreaterThan(5);
  });

  it('is read through the relation’s loader where no plan read it: a wallet’s predictions by the history service’s order', async () => {
    const predictor = world.predictors[0]!;
    const { data, errors } = await t.gql(
      `query($id: ID!) { user(id: $id) { predictions(first: 30, sort: OLDEST) { nodes { pool { resolution { id } } resolution { id } } } } }`,
      { id: predictor.id },
    );
    expect(errors).toBeUndefined();
    const nodes = data.user.predictions.nodes as Array<{ pool: { resolution: { id: string } | null }; resolution: { id: string } | null }>;
    expect(nodes.length).toBeGreaterThan(10);
    for (const node of nodes) expect(node.resolution).toEqual(node.pool.resolution);
  });

  it('answers the same bytes rendered and executed', async () => {
    const executor = await createApp({ config: testConfig({ RENDERED_READS: 'false' }), database: t.database });
    try {
      const executed = await executor.inject({ method: 'POST', url: '/graphql', payload: { query: POOLS } });
      const before = await renderedReadsServed(t.app);
      const rendered = await t.app.inject({ method: 'POST', url: '/graphql', payload: { query: POOLS } });
      expect(await renderedReadsServed(t.app)).toBe(before + 1);
      expect(rendered.body).toBe(executed.body);
    } finally {
      await executor.close();
    }
  });

  it('is the REST include predictions.resolution, embedded only when asked for', async () => {
    const url = '/pools?sort_by=CREATION_DATE&limit=24&predictions_limit=10';
    const included = await t.app.inject({ method: 'GET', url: `${url}&includes=predictions.resolution` });
    expect(included.statusCode, included.body).toBe(200);
    const { data } = await t.gql(POOLS);
    const pools = included.json() as Array<{ id: string; predictions: Array<{ id: string; resolution: Record<string, unknown> | null }> }>;
    for (const [i, pool] of pools.entries()) {
      const expected = data.pools.nodes[i];
      expect(pool.id).toBe(expected.id);
      expect(pool.predictions.map((prediction) => prediction.resolution?.id ?? null)).toEqual(
        expected.predictions.nodes.map((prediction: { resolution: { id: string } | null }) => prediction.resolution?.id ?? null),
      );
      for (const prediction of pool.predictions) {
        if (prediction.resolution) expect(prediction.resolution).toMatchObject({ pool_id: pool.id, protocol_fee: expect.any(Number) });
      }
    }
    const without = await t.app.inject({ method: 'GET', url: `${url}&includes=predictions` });
    for (const pool of without.json() as Array<{ predictions: object[] }>) {
      for (const prediction of pool.predictions) expect(Object.keys(prediction)).not.toContain('resolution');
    }
  });
});
