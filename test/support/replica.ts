import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TEST_AUTH_DOMAIN } from './harness.js';
import { freePort } from './ports.js';
import { until } from './wait.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Replica {
  http: string;
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** A second gateway: a separate Node process started as `npm start` would, on the same database. */
export async function startReplica(databaseUrl: string): Promise<Replica> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      POOLGRAPH_MODE: 'test',
      AUTH_DOMAIN: TEST_AUTH_DOMAIN,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      SEED_DEMO_DATA: 'false',
      CHAIN_DATA_DIR: 'memory',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  await until(
    async () => {
      if (child.exitCode !== null) throw new Error(`the replica exited with ${child.exitCode}:\n${output}`);
      return fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
    },
    180_000,
    `the replica to become ready; it printed:\n${output}`,
  );
  return {
    http: `http://127.0.0.1:${port}`,
    url: `ws://127.0.0.1:${port}/graphql`,
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
