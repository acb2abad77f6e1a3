import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { freePort } from './ports.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { type Database, openDatabase } from '../../src/db/client.js';
import { preparePgliteDataDir, TEST_AUTH_DOMAIN } from './harness.js';
import { web3Wallet } from './wallets.js';

/**
 * Makes the database itself slow, as a test needs it: every row inserted into
 * sign_in_challenges (the anonymous mutation requestSignInChallenge writes one) first
 * sleeps `seconds` in the database. The server runs unchanged, real SQL on a real
 * database; only the database was made slow on purpose.
 */
export async function slowDownSignInChallenges(database: Database, seconds: number): Promise<void> {
  await database.rows(
    sql.raw(`CREATE OR REPLACE FUNCTION test_slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_sleep(${Number(seconds)}); RETURN NEW; END $$`),
  );
  await database.rows(sql`DROP TRIGGER IF EXISTS test_slow_insert ON sign_in_challenges`);
  await database.rows(
    sql`CREATE TRIGGER test_slow_insert BEFORE INSERT ON sign_in_challenges FOR EACH ROW EXECUTE FUNCTION test_slow_insert()`,
  );
}

export const CHALLENGE = `mutation($a: String!) { requestSignInChallenge(walletAddress: $a) { nonce } }`;
/** A fresh wallet address (the challenge's subject; nothing is signed), one per request so no sign-in budget runs out. */
export const someWallet = (): string => web3Wallet().address;

/** A migrated PGlite data directory of its own whose sign-in challenges take `seconds` to insert. */
export async function slowPgliteDataDir(seconds: number): Promise<string> {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'poolgraph-no-stall-')), 'pglite');
  await preparePgliteDataDir(dataDir);
  const database = await openDatabase({ kind: 'pglite', dataDir });
  await slowDownSignInChallenges(database, seconds);
  await database.close();
  return dataDir;
}

export interface ServerProcess {
  base: string;
  child: ChildProcess;
  /** Everything the process wrote so far, stdout and stderr. */
  output(): string;
  /** Resolves with the exit code (or signal) once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * The server as `npm start` runs it (`node --import tsx/esm src/main.ts`), or as `command` (a
 * program and its arguments) does, on a port of its own; resolves once /healthz answers.
 */
export async function startServerProcess(
  env: Record<string, string>,
  command: readonly string[] = [process.execPath, '--import', 'tsx/esm', 'src/main.ts'],
): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(command[0]!, command.slice(1), {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: {
      ...process.env,
      POOLGRAPH_MODE: 'test',
      AUTH_DOMAIN: TEST_AUTH_DOMAIN,
      PORT: String(port),
      SEED_DEMO_DATA: 'false',
      CHAIN_DATA_DIR: 'memory',
      DATABASE_URL: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 150_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${output}`);
    if (
      await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) throw new Error(`the server did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { base, child, output: () => output, exited };
}

/** POSTs one GraphQL operation; resolves with the status, the body and when it was answered. */
export async function post(base: string, query: string, variables?: Record<string, unknown>) {
  const response = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: (await response.json()) as any, at: performance.now() };
}

/**
 * A fault the real database does not produce on demand: every statement of `database`
 * (through its Drizzle client) starts `ms` late. `restore` ends the fault; `drained`
 * resolves once every delayed statement has run, so the next request meets an idle database.
 */
export function delayEveryStatement(database: Database, ms: number): { restore(): void; drained(): Promise<void> } {
  type Method = (...args: unknown[]) => Promise<unknown>;
  const client = (database.db as unknown as { $client: Record<string, Method | undefined> }).$client;
  // Every way a statement reaches the driver: PGlite's read path sends its statements as named
  // prepared statements (`preparedQuery`), everything else through `query`.
  const methods = ['query', 'preparedQuery'].filter((name) => typeof client[name] === 'function');
  const originals = new Map(methods.map((name) => [name, client[name]!]));
  const delayed: Array<Promise<unknown>> = [];
  for (const [name, original] of originals) {
    client[name] = (...args) => {
      const run = new Promise((resolve) => setTimeout(resolve, ms)).then(() => original.apply(client, args));
      delayed.push(run.catch(() => {}));
      return run;
    };
  }
  return {
    restore: () => {
      for (const [name, original] of originals) client[name] = original;
    },
    drained: async () => {
      await Promise.all(delayed);
    },
  };
}
