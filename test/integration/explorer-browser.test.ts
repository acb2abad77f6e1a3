import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './harness.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
const run = promisify(execFile);

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
    const { stdout } = await run(
      CHROMIUM!,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        `--user-data-dir=${profile}`,
        '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
        '--virtual-time-budget=15000',
        '--dump-dom',
        `${address}/graphql`,
      ],
      { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
    );
    expect(stdout).toContain('graphiql-container');
    expect(stdout).not.toContain('Loading the explorer');
    // The schema loaded through introspection: the docs explorer button is enabled.
    expect(stdout).toMatch(/graphiql-(execute|toolbar)-button|graphiql-toolbar/);
  });
});
