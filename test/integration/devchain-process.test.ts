import { spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Whether something accepts connections on `port` (loopback). */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('npm run devchain (real process)', () => {
  it('stops with the SIGTERM sent to npm, leaving no chain running without a parent', { timeout: 180_000 }, async () => {
    const port = await freePort();
    const child = spawn('npm', ['run', 'devchain'], {
      cwd: ROOT,
      env: { ...process.env, DEVCHAIN_PORT: String(port), DEVCHAIN_DATA_DIR: 'memory' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 150_000;
      while (!output.includes('devchain JSON-RPC')) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the devchain did not start:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(await listening(port)).toBe(true);
      child.kill('SIGTERM');
      expect(await exited, output).toBe(0);
      expect(output).toContain('devchain: SIGTERM, saving and stopping');
      // npm's child was the chain itself: once npm has exited, nothing listens on its port.
      expect(await listening(port)).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
