/**
 * What the devchain keeps of every transaction that landed: enough to answer
 * `getSignatureStatuses` and `getTransaction` exactly like a validator, in a JSON-safe form
 * so the record persists as it is.
 */
import type { TransactionErrorJson } from './transaction-error.js';
import type { UiTokenAmount } from './token-layout.js';

/** A token balance entry of `meta.preTokenBalances` / `meta.postTokenBalances`. */
export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: UiTokenAmount;
}

/** An inner (CPI) instruction of `meta.innerInstructions`. */
export interface InnerInstructionRecord {
  programIdIndex: number;
  accounts: number[];
  /** Base58, as in the RPC's `json` encoding. */
  data: string;
  stackHeight: number;
}

/** A landed transaction (successful, or failed after paying its fee). */
export interface TransactionRecord {
  signature: string;
  slot: number;
  /** Unix seconds. */
  blockTime: number;
  /** The wire transaction, base64. */
  transaction: string;
  err: TransactionErrorJson | null;
  logs: string[];
  fee: number;
  computeUnitsConsumed: number;
  preBalances: number[];
  postBalances: number[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  innerInstructions: Array<{ index: number; instructions: InnerInstructionRecord[] }>;
  loadedAddresses: { writable: string[]; readonly: string[] };
  returnData: { programId: string; data: [string, 'base64'] } | null;
}
