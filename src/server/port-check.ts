import { createServer } from 'node:net';
import { ConfigError } from '../config.js';

/**
 * Refuses a start whose port is taken, before the slow work (migrations, the demo seed, the
 * chain) rather than after it: binds HOST:PORT once and lets go. Another process can still
 * take the port in between; listen reports that as before. Port 0 (any free port) passes.
 */
export async function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  const code = await new Promise<string | null>((resolve) => {
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'ERROR'));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(null)));
  });
  if (code === 'EADDRINUSE') {
    throw new ConfigError([
      `PORT ${port} on ${host} is already in use (another poolgraph?): stop that process, or start with another PORT, e.g. PORT=${port + 1}`,
    ]);
  }
}
