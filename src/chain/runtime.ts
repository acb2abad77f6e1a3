import type { ServiceKeys } from './keys.js';
import type { ChainClient } from './rpc.js';
import type { ChainAccounts } from './transactions.js';

/** What the services need of the chain: the client, the service keys, the mint, the proof key. */
export interface ChainRuntime {
  client: ChainClient;
  keys: ServiceKeys;
  accounts: ChainAccounts;
  proofSecret: Uint8Array;
  /** How long a built transaction's proof stays valid (the blockhash may expire sooner). */
  proofTtlSeconds: number;
}
