/**
 * `npm run devchain`: the embedded chain on its own, so tests and several gateway
 * processes can share one. Env: DEVCHAIN_PORT (default 8899; websockets on the next
 * port), DEVCHAIN_HOST (default 127.0.0.1), DEVCHAIN_DATA_DIR (default ./data/devchain;
 * `memory` for none), DEVCHAIN_SLOT_MS (default 400).
 */
import { startDevchain } from './index.js';

function integerEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) {
    console.error(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
    process.exit(1);
  }
  return value;
}

const dataDir = process.env.DEVCHAIN_DATA_DIR || './data/devchain';
const devchain = await startDevchain({
  port: integerEnv('DEVCHAIN_PORT', 8899),
  host: process.env.DEVCHAIN_HOST || '127.0.0.1',
  dataDir,
  slotMs: integerEnv('DEVCHAIN_SLOT_MS', 400),
  log: (line) => console.error(line),
});

// The handlers go in before the ready lines: whoever waits for those lines may signal at once.
let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`devchain: ${signal}, saving and stopping`);
  devchain.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));

console.log(`devchain JSON-RPC  ${devchain.url}`);
console.log(`devchain websocket ${devchain.wsUrl}`);
console.log(`stake mint         ${devchain.stakeMint.toBase58()} (${devchain.stakeMintDecimals} decimals)`);
console.log(`data               ${dataDir === 'memory' ? 'in memory (not persisted)' : dataDir}`);
