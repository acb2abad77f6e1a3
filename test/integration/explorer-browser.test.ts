import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, renderedDom } from '../support/chromium.js';
import { metricSample, startEmptyTestApp, type TestApp } from '../support/harness.js';

/**
 * Loads the explorer in headless Chromium with every host but loopback unresolvable (no
 * network), lets its scripts run, and reads the rendered DOM: GraphiQL must have mounted.
 * The page reads no rows (its default query runs only when the user presses play), so the
 * database starts empty, and this server's metrics tell exactly what the page asked for.
 */
describe.skipIf(!CHROMIUM)('explorer in a headless browser', () => {
  let t: TestApp;
  let address: string;
  let profile: string;

  beforeAll(async () => {
    t = await startEmptyTestApp('pglite');
    address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    profile = mkdtempSync(join(tmpdir(), 'poolgraph-chromium-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(profile, { recursive: true, force: true });
  });

  it('mounts GraphiQL with no network beyond this server', async () => {
    const stdout = await renderedDom(`${address}/graphql`, {
      profile,
      budgetMs: 15_000,
      flags: ['--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
    });
    expect(stdout.match(/class="graphiql-container"/g)).toHaveLength(1);
    expect(stdout).not.toContain('Loading the explorer');
    // The default query sits in the editor, parsed (its operation name highlighted as a definition).
    expect(stdout).toContain('<span class="cm-def">OpenPools</span>');
    expect(stdout.match(/aria-label="Execute query \(Ctrl-Enter\)"/g)).toHaveLength(1);

    // What the page fetched from this server, each exactly once: the page, its five assets
    // (React, ReactDOM, GraphiQL's script and styles, graphql-ws) and the schema, by introspection.
    // (A favicon request, which Chromium may or may not send, is left out.)
    const metrics = (await t.app.inject({ url: '/metrics' })).body;
    const requests = (route: string, method: string) =>
      metricSample(metrics, 'poolgraph_http_requests_total', { route, method, status: '200' });
    expect(requests('/graphql', 'GET')).toBe(1);
    expect(requests('/graphql/explorer/:asset', 'GET')).toBe(5);
    expect(requests('/graphql', 'POST')).toBe(1);
    expect(metricSample(metrics, 'poolgraph_graphql_operations_total')).toBe(1);
    expect(
      metricSample(metrics, 'poolgraph_graphql_operations_total', { operation: 'IntrospectionQuery', type: 'query', outcome: 'ok' }),
    ).toBe(1);
  });
});
