/**
 * The embedded chain: a Solana JSON-RPC endpoint on loopback backed by an in-process
 * LiteSVM, with a demo stake mint and a faucet, persisted under a data directory. The
 * gateway talks to it exactly as to any cluster, through JSON-RPC.
 *
 * ```ts
 * const devchain = await startDevchain({ port: 0 });
 * const connection = new Connection(devchain.url, { commitment: 'confirmed', wsEndpoint: devchain.wsUrl });
 * await devchain.mintTokens(user.publicKey, 5_000_000n); // 5 tokens
 * await devchain.close();
 * ```
 */
import { PublicKey } from '@solana/web3.js';
import { DevChain, STAKE_MINT_DECIMALS } from './chain.js';
import { createRpcMethods } from './rpc-methods.js';
import { startRpcServer } from './rpc-server.js';
import { DevchainStore } from './store.js';

export { DevChain, DevchainTransactionError, STAKE_MINT_DECIMALS, LAMPORTS_PER_SIGNATURE } from './chain.js';
export { RpcErrorCode } from './rpc-methods.js';

/** Options of {@link startDevchain}. */
export interface DevchainOptions {
  /** Port of the HTTP JSON-RPC endpoint; websockets use `port + 1`. Default 0: a free pair. */
  port?: number;
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /**
   * Directory the chain persists to (created if missing). Default null (or `'memory'`):
   * nothing persists. `npm run devchain` uses `./data/devchain`.
   */
  dataDir?: string | null;
  /** Milliseconds per slot; every slot brings a new blockhash. Default 400. 0: slots advance only through {@link Devchain.advanceSlots}. */
  slotMs?: number;
  /** Slots a blockhash stays valid. Default 150 (a minute at 400 ms, as on mainnet). */
  blockhashValiditySlots?: number;
  /** Slots after which a transaction counts as finalized. Default 32. */
  finalizationSlots?: number;
  /** Slots a status stays in `getSignatureStatuses` without `searchTransactionHistory`. Default 300. */
  statusCacheSlots?: number;
  /** Landed transactions kept for `getTransaction` and statuses. Default 10 000. */
  maxTransactionHistory?: number;
  /** Where notices go (e.g. a taken websocket port). Default: none. */
  log?: (line: string) => void;
}

/** A running devchain. */
export interface Devchain {
  /** HTTP JSON-RPC URL, e.g. `http://127.0.0.1:8899`. */
  url: string;
  /** Websocket URL (subscriptions), e.g. `ws://127.0.0.1:8900`. */
  wsUrl: string;
  /** The demo stake mint (6 decimals). */
  stakeMint: PublicKey;
  /** Decimals of the stake mint: 6. */
  stakeMintDecimals: number;
  /** The stake mint's mint authority (held by the devchain). */
  mintAuthority: PublicKey;
  /** The faucet: source of airdrops and fee payer of the devchain's own transactions. */
  faucet: PublicKey;
  /** The ledger itself (for tests that need to reach below JSON-RPC). */
  chain: DevChain;
  /** Current slot (equal to the block height). */
  readonly slot: number;
  /** Websocket subscriptions open now (what a test waits on before changing what they watch). */
  readonly subscriptions: number;
  /**
   * Mints `amount` base units of the stake mint to `owner`'s associated token account
   * (created if missing; off-curve owners allowed). Resolves once the transaction landed.
   */
  mintTokens(owner: PublicKey | string, amount: bigint | number | string): Promise<{ signature: string; tokenAccount: PublicKey }>;
  /** Sends `lamports` from the faucet to `address`; resolves to the landed transaction's signature. */
  airdrop(address: PublicKey | string, lamports: bigint | number): Promise<string>;
  /** Moves the clock forward `slots` slots (each a new blockhash), e.g. to expire a blockhash. */
  advanceSlots(slots: number): void;
  /** Stops serving, flushes the state to the data directory and closes it. */
  close(): Promise<void>;
}

function toBase58(address: PublicKey | string): string {
  return typeof address === 'string' ? new PublicKey(address).toBase58() : address.toBase58();
}

/** Starts a devchain: restores (or creates) its state, then serves JSON-RPC on loopback. */
export async function startDevchain(options: DevchainOptions = {}): Promise<Devchain> {
  const dataDir = options.dataDir === 'memory' ? null : (options.dataDir ?? null);
  const maxTransactionHistory = options.maxTransactionHistory ?? 10_000;
  const store = dataDir ? DevchainStore.open(dataDir, maxTransactionHistory) : null;
  const log = options.log ?? (() => {});
  let chain: DevChain;
  try {
    chain = DevChain.create({
      slotMs: options.slotMs ?? 400,
      blockhashValiditySlots: options.blockhashValiditySlots ?? 150,
      finalizationSlots: options.finalizationSlots ?? 32,
      statusCacheSlots: options.statusCacheSlots ?? 300,
      maxTransactionHistory,
      persistence: store,
    });
  } catch (error) {
    store?.store.close();
    throw error;
  }
  let endpoint;
  try {
    endpoint = await startRpcServer(chain, createRpcMethods(chain), {
      host: options.host ?? '127.0.0.1',
      port: options.port ?? 0,
      log,
    });
  } catch (error) {
    chain.close();
    throw error;
  }
  let closing: Promise<void> | null = null;
  return {
    url: endpoint.url,
    wsUrl: endpoint.wsUrl,
    stakeMint: new PublicKey(chain.stakeMint),
    stakeMintDecimals: STAKE_MINT_DECIMALS,
    mintAuthority: new PublicKey(chain.mintAuthorityAddress),
    faucet: new PublicKey(chain.faucetAddress),
    chain,
    get slot() {
      return chain.slot;
    },
    get subscriptions() {
      return endpoint.subscriptions;
    },
    async mintTokens(owner, amount) {
      const { signature, tokenAccount } = chain.mintTokens(toBase58(owner), BigInt(amount));
      return { signature, tokenAccount: new PublicKey(tokenAccount) };
    },
    async airdrop(address, lamports) {
      return chain.airdrop(toBase58(address), BigInt(lamports));
    },
    advanceSlots(slots) {
      chain.advanceSlots(slots);
    },
    close() {
      closing ??= endpoint.close().then(() => chain.close());
      return closing;
    },
  };
}
