import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { lockDataDir } from '../../src/db/data-dir-lock.js';
import { freePort } from '../support/ports.js';
import { startServerProcess } from '../support/slow-database.js';

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

describe('a first start', () => {
  it('says what it is doing before it serves: creating the embedded database, migrating', { timeout: 300_000 }, async () => {
    const server = await startServerProcess({ PGLITE_DATA_DIR: join(scratch, 'first-start', 'pglite'), LOG_LEVEL: 'info' });
    try {
      // /healthz answers as the line is written; the pipe may bring it a moment later.
      for (let i = 0; i < 150 && !server.output().includes('poolgraph is serving'); i++) await new Promise((r) => setTimeout(r, 200));
      const output = server.output();
      const steps = [
        `First start: creating the embedded database in ${join(scratch, 'first-start', 'pglite')} (PGlite's initdb)...`,
        'Applying the database migrations...',
        'poolgraph is serving GraphQL',
      ].map((line) => output.indexOf(line));
      expect(steps.every((at) => at >= 0) && steps[0]! < steps[1]! && steps[1]! < steps[2]!, output).toBe(true);
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});

describe('a DATABASE_URL that leads nowhere', () => {
  it('is one line naming the address (password hidden) and what to do, without a stack trace', { timeout: 120_000 }, async () => {
    const unused: Server = createServer();
    await new Promise<void>((resolve) => unused.listen(0, '127.0.0.1', resolve));
    const { port } = unused.address() as { port: number };
    await new Promise((resolve) => unused.close(resolve));
    const run = await runTs('src/main.ts', [], {
      PORT: String(await freePort()),
      DATABASE_URL: `postgres://someone:secret@127.0.0.1:${port}/poolgraph`,
      AUTH_SECRET_FILE: 'memory',
      CHAIN_DATA_DIR: 'memory',
    });
    expect(run.code).toBe(1);
    expect(run.output).not.toMatch(/\n\s+at |secret/);
    expect(run.output).toContain(
      `The database of DATABASE_URL (postgres://someone:***@127.0.0.1:${port}/poolgraph) could not be opened: ` +
        `nothing accepts connections at 127.0.0.1:${port} (is Postgres running there?). ` +
        'Correct DATABASE_URL, or unset it to run on the embedded PGlite.',
    );
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
