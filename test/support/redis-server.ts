import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { until } from './wait.js';

/** Whether a redis-server binary is installed here (suites that start their own skip without it). */
export const hasRedisServer = (() => {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** A redis-server of the calling suite's own, on its own port, without persistence (never the shared one). */
export async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  await until(
    () =>
      new Promise<boolean>((resolve) => {
        const probe = createServer();
        probe.once('error', () => resolve(true)).listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
      }),
    15_000,
    'redis-server to listen',
  );
  return child;
}
