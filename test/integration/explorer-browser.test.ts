import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, renderedDom } from './chromium.js';
import { startTestApp, type TestApp } from './harness.js';


/**
 * Loads the explorer in headless Chromium with every host but loopback unresolvable (no
 * network), lets its scripts run, and reads the rendered DOM: GraphiQL must have mounted.
 */
describe.skipIf(!CHROMIUM)('explorer in a headless browser', () => {
  let t: TestApp;
  let address: string;
  let profile: string;

  beforeAll(async () => {
    t = await startTestApp('pglite');
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
    expect(stdout).toContain('graphiql-container');
    expect(stdout).not.toContain('Loading the explorer');
    // The schema loaded through introspection: the docs explorer button is enabled.
    expect(stdout).toMatch(/graphiql-(execute|toolbar)-button|graphiql-toolbar/);
  });
});
