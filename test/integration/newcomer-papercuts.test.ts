import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { lockDataDir } from '../../src/db/data-dir-lock.js';

/**
 * What a new user runs into first, answered with a clear line instead of a late failure or
 * a stack trace. Real processes, as the user starts them.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'poolgraph-papercuts-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs a TypeScript entry point as npm's scripts do; resolves with its exit code, output and duration. */
function runTs(file: string, args: string[], env: Record<string, string>) {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], {
    cwd: ROOT,
    env: { ...process.env, POOLGRAPH_MODE: 'development', DATABASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise<{ code: number | null; output: string; ms: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, output, ms: performance.now() - started })),
  );
}

describe('a port already in use', () => {
  it('is refused before the database is created or seeded, naming the port and what to do', { timeout: 120_000 }, async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    const dataDir = join(scratch, 'port-clash');
    try {
      const run = await runTs('src/main.ts', [], {
        PORT: String(port),
        PGLITE_DATA_DIR: join(dataDir, 'pglite'),
        CHAIN_DATA_DIR: join(dataDir, 'chain'),
        AUTH_SECRET_FILE: 'memory',
      });
      expect(run.code).toBe(1);
      expect(run.output).toContain(`PORT ${port} on 127.0.0.1 is already in use`);
      expect(run.output).not.toMatch(/seeding|\n\s+at /);
      // Nothing was created: the refusal came before the database.
      expect(() => readdirSync(dataDir)).toThrow();
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

describe('npm run grant-role while the embedded server runs', () => {
  it('says the database is open in that process and what to do, without a stack trace', { timeout: 120_000 }, async () => {
    const dataDir = join(scratch, 'grant-role', 'pglite');
    // This process holds the data directory, as a running server does.
    const lock = lockDataDir(dataDir);
    try {
      const run = await runTs('src/tools/grant-role.ts', ['11111111111111111111111111111111', 'ADMIN'], { PGLITE_DATA_DIR: dataDir });
      expect(run.code).toBe(1);
      expect(run.output).toContain(`is open in process ${process.pid}`);
      expect(run.output).toContain('Stop that server');
      expect(run.output).not.toMatch(/\n\s+at /);
    } finally {
      lock.release();
    }
  });
});
