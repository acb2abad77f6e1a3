import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparePgliteDataDir } from '../support/harness.js';
import { post, startServerProcess } from '../support/slow-database.js';

/**
 * The production start: `npm run build` compiles to dist/, and the image runs the compiled
 * server with Node as the process the runtime signals (no npm or tsx between), so SIGTERM
 * reaches the graceful shutdown. The Dockerfile cannot run here; what it runs is checked
 * against package.json and run as it would be.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** The image's start command: the exec-form CMD of its last stage. */
const imageCommand = (): string[] => JSON.parse(dockerfile.match(/^CMD (\[.*\])$/m)![1]!) as string[];

/** An embedded server that starts quickly: no files, no demo data, logs on. */
const QUICK = {
  POOLGRAPH_MODE: 'development',
  LOG_LEVEL: 'info',
  PGLITE_DATA_DIR: 'memory://',
  AUTH_SECRET_FILE: 'memory',
  IMAGE_STORAGE_DIR: join(ROOT, 'data', 'test-images'),
};

/** SIGTERM to the process the start command launched: it must drain, say so, and exit 0. */
async function expectCleanShutdown(server: Awaited<ReturnType<typeof startServerProcess>>): Promise<void> {
  server.child.kill('SIGTERM');
  expect({ ...(await server.exited), output: server.output() }).toEqual({
    code: 0,
    signal: null,
    output: expect.stringContaining('shut down cleanly'),
  });
}
describe('the Dockerfile', () => {
  it('runs only scripts package.json has, and starts what `npm run start:prod` starts, with node itself', () => {
    const runs = [...dockerfile.matchAll(/^RUN npm run (\S+)/gm)].map((m) => m[1]!);
    expect(runs).toEqual(['build']);
    for (const script of runs) expect(scripts).toHaveProperty(script);
    expect(imageCommand()[0]).toBe('node');
    expect(scripts['start:prod']).toBe(`exec ${imageCommand().join(' ')}`);
    // Only production dependencies in the final stage, and not as root.
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile.split(/^FROM /m).at(-1)).toMatch(/^USER node$/m);
  });
});

describe('the built server (real process)', () => {
  beforeAll(() => {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'pipe' });
  }, 300_000);

  it(
    'serves from dist/ and, on SIGTERM to the process the start command launched, shuts down cleanly with exit 0',
    { timeout: 240_000 },
    async () => {
      const [program, ...args] = imageCommand();
      expect(existsSync(join(ROOT, args[0]!))).toBe(true);
      const server = await startServerProcess(QUICK, [program === 'node' ? process.execPath : program!, ...args]);
      try {
        // Compiled code finds its migrations (the pools table exists) and its PGlite worker.
        const answer = await post(server.base, '{ pools(first: 1) { totalCount } }');
        expect(answer.body).toEqual({ data: { pools: { totalCount: 0 } } });
        expect(server.output()).not.toMatch(/tsx/);
        await expectCleanShutdown(server);
      } finally {
        server.child.kill('SIGKILL');
      }
    },
  );
});

describe('npm start (real process)', () => {
  // A migrated directory from the run's template: the signal is what is tested here, not a first start's initdb.
  let dataDir: string;
  beforeAll(async () => {
    dataDir = join(mkdtempSync(join(tmpdir(), 'poolgraph-npm-start-')), 'pglite');
    await preparePgliteDataDir(dataDir);
  });
  afterAll(() => rmSync(join(dataDir, '..'), { recursive: true, force: true }));

  it(
    'passes SIGTERM sent to npm on to the server, which shuts down cleanly instead of living on without a parent',
    { timeout: 240_000 },
    async () => {
      const server = await startServerProcess({ ...QUICK, PGLITE_DATA_DIR: dataDir }, ['npm', 'start']);
      try {
        await expectCleanShutdown(server);
      } finally {
        server.child.kill('SIGKILL');
      }
    },
  );
});
