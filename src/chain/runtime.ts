import { join } from 'node:path';
import { Keypair, LAMPORTS_PER_SOL, PublicKey } from '@solana/web3.js';
import { deriveProofKey } from './proof.js';
import { parseSecretKey, loadOrCreateKeys, type ServiceKeys } from './keys.js';
import { ChainClient } from './rpc.js';
import type { ChainAccounts } from './transactions.js';

/** What the services need of the chain: the client, the service keys, the mint, the proof key. */
export interface ChainRuntime {
  client: ChainClient;
  keys: ServiceKeys;
  accounts: ChainAccounts;
  proofSecret: Uint8Array;
  /** How long a built transaction's proof stays valid (the blockhash may expire sooner). */
  proofTtlSeconds: number;
  /**
   * Per-user cap on relayer-paid SOL beyond signature fees (lamports), over the user's whole
   * history: a user at the cap gets nothing more signed (docs/security.md).
   */
  sponsorCapLamports: bigint;
  /** The chain is a devchain: it mints test tokens (`requestDevTokens`) and funds custody accounts. */
  isDevchain: boolean;
}

export interface ChainSettings {
  /** JSON-RPC endpoint of the cluster; null starts the embedded chain in this process. */
  rpcUrl: string | null;
  /** Where the embedded chain persists (ledger and service keys); null = nothing persists. */
  devchainDataDir: string | null;
  /** The service keys and the stake mint, required with `rpcUrl` (the embedded chain makes its own). */
  relayerSecretKey: string | null;
  custodySecretKey: string | null;
  stakeMint: string | null;
  /** How long a built transaction's proof is accepted (its blockhash may expire sooner). */
  proofTtlSeconds: number;
  /** Per-user cap on relayer-paid SOL beyond signature fees; {@link DEFAULT_SPONSOR_CAP_LAMPORTS} when absent. */
  sponsorCapLamports?: bigint;
}

/**
 * The default sponsor cap: the rules keep relayer spend beyond fees at 0, so this only
 * bounds what a missed rule could cost per user (about two token accounts' rent).
 */
export const DEFAULT_SPONSOR_CAP_LAMPORTS = 5_000_000n;

/** The relayer is topped up to this on a devchain, so it never runs out of fees. */
const RELAYER_FLOAT_LAMPORTS = 100n * BigInt(LAMPORTS_PER_SOL);

/**
 * The proof key, derived from the service secret under its own HKDF label (see
 * `KEY_LABELS` in proof.ts), so a proof can never pass as a session token or the other way round.
 */
export const deriveProofSecret = deriveProofKey;

/**
 * Opens the chain the gateway talks to, always through JSON-RPC: the cluster at `rpcUrl`
 * with the configured keys and mint, or else an embedded devchain started here (its keys
 * kept beside its ledger, so a restart keeps the same vault owners).
 */
export async function openChain(
  settings: ChainSettings,
  proofSecret: Uint8Array,
): Promise<{ runtime: ChainRuntime; url: string; close(): Promise<void> }> {
  if (settings.rpcUrl) {
    const client = new ChainClient(settings.rpcUrl);
    const keys = { relayer: parseSecretKey(settings.relayerSecretKey!), custody: parseSecretKey(settings.custodySecretKey!) };
    const mint = new PublicKey(settings.stakeMint!);
    const isDevchain = (await client.devchainInfo()) !== null;
    const runtime = runtimeFor(client, keys, mint, await client.mintDecimals(mint), isDevchain, settings, proofSecret);
    return { runtime, url: settings.rpcUrl, close: async () => {} };
  }
  const { startDevchain } = await import('../devchain/index.js');
  const devchain = await startDevchain({ port: 0, dataDir: settings.devchainDataDir });
  const keys = settings.devchainDataDir
    ? loadOrCreateKeys(join(settings.devchainDataDir, 'service-keys.json'))
    : { relayer: Keypair.generate(), custody: Keypair.generate() };
  const client = new ChainClient(devchain.url);
  const lamports = BigInt(await client.connection.getBalance(keys.relayer.publicKey));
  if (lamports < RELAYER_FLOAT_LAMPORTS / 2n) await devchain.airdrop(keys.relayer.publicKey, RELAYER_FLOAT_LAMPORTS - lamports);
  const runtime = runtimeFor(client, keys, devchain.stakeMint, devchain.stakeMintDecimals, true, settings, proofSecret);
  return { runtime, url: devchain.url, close: () => devchain.close() };
}

function runtimeFor(
  client: ChainClient,
  keys: ServiceKeys,
  mint: PublicKey,
  decimals: number,
  isDevchain: boolean,
  settings: ChainSettings,
  proofSecret: Uint8Array,
): ChainRuntime {
  return {
    client,
    keys,
    accounts: { mint, decimals, relayer: keys.relayer.publicKey, custody: keys.custody.publicKey },
    proofSecret,
    proofTtlSeconds: settings.proofTtlSeconds,
    sponsorCapLamports: settings.sponsorCapLamports ?? DEFAULT_SPONSOR_CAP_LAMPORTS,
    isDevchain,
  };
}
