import { join } from 'node:path';
import { Keypair, LAMPORTS_PER_SOL } from '@solana/web3.js';
import { startDevchain } from '../devchain/index.js';
import { loadOrCreateKeys } from './keys.js';
import { ChainClient } from './rpc.js';
import type { ChainRuntime } from './runtime.js';

/** The relayer is topped up to this on the embedded chain, so it never runs out of fees. */
const RELAYER_FLOAT_LAMPORTS = 100n * BigInt(LAMPORTS_PER_SOL);

/**
 * The embedded default chain: a devchain in this process (persisted under `dataDir`), the
 * service keys kept beside it, and the relayer funded. The gateway still talks JSON-RPC to it.
 */
export async function startEmbeddedChain(options: {
  dataDir: string | null;
  proofSecret: Uint8Array;
  proofTtlSeconds: number;
}): Promise<{ runtime: ChainRuntime; url: string; close(): Promise<void> }> {
  const devchain = await startDevchain({ port: 0, dataDir: options.dataDir });
  const keys = options.dataDir ? loadOrCreateKeys(join(options.dataDir, 'service-keys.json')) : { relayer: Keypair.generate(), custody: Keypair.generate() };
  const client = new ChainClient(devchain.url);
  const lamports = BigInt(await client.connection.getBalance(keys.relayer.publicKey));
  if (lamports < RELAYER_FLOAT_LAMPORTS / 2n) await devchain.airdrop(keys.relayer.publicKey, RELAYER_FLOAT_LAMPORTS - lamports);
  return {
    url: devchain.url,
    runtime: {
      client,
      keys,
      accounts: { mint: devchain.stakeMint, decimals: devchain.stakeMintDecimals, relayer: keys.relayer.publicKey, custody: keys.custody.publicKey },
      proofSecret: options.proofSecret,
      proofTtlSeconds: options.proofTtlSeconds,
    },
    close: () => devchain.close(),
  };
}
