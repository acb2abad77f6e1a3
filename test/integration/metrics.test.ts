import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { backends, metricSample as sample, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';

/** A log stream for an app, and the JSON lines written to it. */
function capturedLog(): { lines: Array<Record<string, any>>; logStream: Writable } {
  const lines: Array<Record<string, any>> = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logStream };
}

describe.each(backends)('metrics on %s', (kind) => {
  let t: TestApp;
  let url: string;
  // Two pools of one creator: the labelled operations read them with their users.
  beforeAll(async () => {
    t = await startEmptyTestApp(kind);
    await t.seed.user().withPool().withPool();
    url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => t.close());

  const scrape = async () => {
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    return response.text();
  };

  it('counts operations by name and outcome, their latency, statements, requests and sockets', async () => {
    const before = await scrape();
    const post = (body: unknown) =>
      fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    for (let i = 0; i < 2; i++) {
      const twoPools = await post({ query: 'query TwoPools { pools(first: 2) { nodes { id user { id } } } }' });
      expect(((await twoPools.json()) as { data: { pools: { nodes: unknown[] } } }).data.pools.nodes).toHaveLength(2);
    }
    await post({ query: 'query BadId { pool(id: "nope") { id } }' });
    await post({ query: '{ pools { nope } }' });
    const after = await scrape();

    const ok = { operation: 'TwoPools', type: 'query', outcome: 'ok' };
    expect(sample(after, 'poolgraph_graphql_operations_total', ok) - sample(before, 'poolgraph_graphql_operations_total', ok)).toBe(2);
    const bad = { operation: 'BadId', outcome: 'BAD_USER_INPUT' };
    expect(sample(after, 'poolgraph_graphql_operations_total', bad)).toBe(1);
    const invalid = { operation: '(anonymous)', type: 'unknown', outcome: 'GRAPHQL_VALIDATION_FAILED' };
    expect(sample(after, 'poolgraph_graphql_operations_total', invalid)).toBe(1);
    expect(sample(after, 'poolgraph_graphql_operation_duration_seconds_count', { operation: 'TwoPools' })).toBe(2);
    expect(sample(after, 'poolgraph_graphql_operation_duration_seconds_bucket', { operation: 'TwoPools', le: '+Inf' })).toBe(2);
    // Buckets are cumulative: both are counted in the 10 s bucket too; the sum is their time.
    expect(sample(after, 'poolgraph_graphql_operation_duration_seconds_bucket', { operation: 'TwoPools', le: '10' })).toBe(2);
    expect(sample(after, 'poolgraph_graphql_operation_duration_seconds_sum', { operation: 'TwoPools' })).toBeGreaterThan(0);
    const statements = sample(after, 'poolgraph_database_statements_total') - sample(before, 'poolgraph_database_statements_total');
    // Each TwoPools is one statement (the page with its users, planned together); the bad ones reach none.
    expect(statements).toBe(2);
    const posts = { route: '/graphql', method: 'POST', status: '200' };
    expect(sample(after, 'poolgraph_http_requests_total', posts) - sample(before, 'poolgraph_http_requests_total', posts)).toBe(3);
    expect(sample(after, 'poolgraph_open_sockets')).toBeGreaterThanOrEqual(1);
    expect(after).toMatch(/^process_cpu_seconds_total /m);
    expect(after).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  it('bounds the operation names it labels', async () => {
    const inject = (name: string) => t.gql(`query ${name} { pools(first: 1) { totalCount } }`);
    expect((await inject('Generated0')).data.pools.totalCount).toBe(2);
    for (let i = 1; i < 210; i++) await inject(`Generated${i}`);
    const text = await scrape();
    const labelled = new Set(text.match(/operation="Generated\d+"/g));
    expect(labelled.size).toBeGreaterThan(100);
    expect(labelled.size).toBeLessThanOrEqual(200);
    expect(sample(text, 'poolgraph_graphql_operations_total', { operation: '(other)', outcome: 'ok' })).toBeGreaterThanOrEqual(10);
  });
});

describe('metrics access and logs', () => {
  it('requires the bearer token when METRICS_TOKEN is set, and is absent when METRICS=false', async () => {
    // No rows: only the route's access is checked.
    const t = await startEmptyTestApp('pglite', { config: testConfig({ METRICS_TOKEN: 'scrape-token-0123456789' }) });
    try {
      expect((await t.app.inject({ url: '/metrics' })).statusCode).toBe(401);
      const authorized = await t.app.inject({ url: '/metrics', headers: { authorization: 'Bearer scrape-token-0123456789' } });
      expect(authorized.statusCode).toBe(200);
      const off = await createApp({ config: testConfig({ METRICS: 'false' }), database: t.database });
      expect((await off.inject({ url: '/metrics' })).statusCode).toBe(404);
      await off.close();
    } finally {
      await t.close();
    }
  });

  it('writes one structured line per operation, with its request id and name', async () => {
    const { lines, logStream } = capturedLog();
    // Three pools, each with two predictions (from the same two users), for the nested operation to read.
    const t = await startEmptyTestApp('pglite');
    const { pools } = await t.seed.user().withPool().withPool().withPool();
    await t.seed.users(2, (chain) =>
      chain.withPrediction({ pool: pools[0] }).withPrediction({ pool: pools[1] }).withPrediction({ pool: pools[2] }),
    );
    const app = await createApp({ config: testConfig({ LOG_LEVEL: 'info' }), database: t.database, logStream });
    try {
      const response = await app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'x-request-id': 'req-42' },
        payload: { query: 'query Nested { pools(first: 3) { nodes { id user { id } predictions(first: 2) { nodes { id } } } } }' },
      });
      expect(response.headers['x-request-id']).toBe('req-42');
      const pools = response.json().data.pools.nodes;
      expect(pools.map((p: any) => p.predictions.nodes.length)).toEqual([2, 2, 2]);
      const ofRequest = lines.filter((line) => line.reqId === 'req-42');
      expect(ofRequest).toHaveLength(1);
      // The selection renders, so a rendered read answered it: the line and the metric say so.
      expect(ofRequest[0]).toMatchObject({
        level: 30,
        msg: 'graphql operation',
        operation: 'Nested',
        operationType: 'query',
        outcome: 'ok',
        statusCode: 200,
        rendered: true,
      });
      expect(typeof ofRequest[0]!.ms).toBe('number');
      const metrics = (await app.inject({ url: '/metrics' })).body;
      expect(sample(metrics, 'poolgraph_graphql_rendered_reads_total', { operation: 'Nested' })).toBe(1);
    } finally {
      await app.close();
      await t.close();
    }
  });

  it('logs a read that fell back to execution at debug, with its reason and the field to blame, and counts it', async () => {
    const { lines, logStream } = capturedLog();
    const t = await startEmptyTestApp('pglite');
    await t.seed.user().withPool();
    const app = await createApp({ config: testConfig({ LOG_LEVEL: 'debug' }), database: t.database, logStream });
    try {
      // A private field outside `viewer`: the executor answers it (null and FORBIDDEN for a stranger).
      const cases = [
        { query: 'query Private { pools(first: 1) { nodes { id user { email } } } }', reason: 'resolver_field', field: 'User.email' },
        {
          query: 'query Budget { pools(first: 1) { nodes { id } } rateLimit { remaining } }',
          reason: 'root_field',
          field: 'Query.rateLimit',
        },
      ];
      for (const [i, { query, reason, field }] of cases.entries()) {
        const response = await app.inject({ method: 'POST', url: '/graphql', headers: { 'x-request-id': `fb-${i}` }, payload: { query } });
        expect(response.statusCode).toBe(200);
        const fellBack = lines.filter((line) => line.reqId === `fb-${i}` && line.msg === 'rendered read fell back to execution');
        expect(fellBack).toEqual([expect.objectContaining({ level: 20, operation: query.split(' ')[1], reason, field })]);
      }
      const metrics = (await app.inject({ url: '/metrics' })).body;
      expect(sample(metrics, 'poolgraph_graphql_render_fallbacks_total', { reason: 'resolver_field' })).toBe(1);
      expect(sample(metrics, 'poolgraph_graphql_render_fallbacks_total', { reason: 'root_field' })).toBe(1);
    } finally {
      await app.close();
      await t.close();
    }
  });
});
