import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { connect } from 'node:net';
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
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  // Probed by connecting, never by listening: a probe holding the port for a moment made a
  // redis-server starting in that moment fail to bind and exit, and the wait run out.
  await until(
    () => {
      if (exited !== undefined) throw new Error(`redis-server on port ${port} exited (code ${exited}) before it listened`);
      return new Promise<boolean>((resolve) => {
        const probe = connect(port, '127.0.0.1');
        probe.once('connect', () => {
          probe.destroy();
          resolve(true);
        });
        probe.once('error', () => resolve(false));
      });
    },
    15_000,
    'redis-server to listen',
  );
  return child;
}
