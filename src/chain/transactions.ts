import { createHash } from 'node:crypto';
import { createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction } from '@solana/spl-token';
import { type PublicKey, Transaction, TransactionInstruction, VersionedMessage } from '@solana/web3.js';
import { MEMO_PROGRAM_ID, userTokenAccount } from './addresses.js';
import { encodeMemo, type PredictionMemo } from './memo.js';

/**
 * Transaction builders and the wire-level checks of the two-step flow. Builders return
 * legacy wire-format transactions with the relayer as fee payer and every signature slot
 * empty; the client signs its slot and sends the bytes back. Checks work on the exact
 * bytes, never on a re-serialisation, so "unchanged" means byte-for-byte.
 */
export interface ChainAccounts {
  mint: PublicKey;
  decimals: number;
  /** Fee payer of every transaction; never a source or authority of a user's transfer. */
  relayer: PublicKey;
  /** Token authority of pool vaults and streak accumulators. */
  custody: PublicKey;
}

export interface RecentBlockhash {
  blockhash: string;
  lastValidBlockHeight: number;
}

export interface BuiltTransaction {
  /** Base64 wire transaction, signature slots zeroed. */
  transaction: string;
  /** SHA-256 of the message bytes, base64url: what the proof binds. */
  messageHash: string;
  blockhash: string;
  lastValidBlockHeight: number;
}

/** The largest transaction a Solana packet carries. */
export const MAX_TRANSACTION_BYTES = 1232;

function memoInstruction(memo: PredictionMemo, signer: PublicKey): TransactionInstruction {
  return new TransactionInstruction({
    programId: MEMO_PROGRAM_ID,
    keys: [{ pubkey: signer, isSigner: true, isWritable: false }],
    data: encodeMemo(memo),
  });
}

function finish(accounts: ChainAccounts, recent: RecentBlockhash, instructions: TransactionInstruction[]): BuiltTransaction {
  const transaction = new Transaction({ feePayer: accounts.relayer, ...recent }).add(...instructions);
  const message = transaction.serializeMessage();
  return {
    transaction: transaction.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64'),
    messageHash: hashMessage(message),
    ...recent,
  };
}

/** Place a prediction: the stake moves user -> vault, and the user signs a memo of the record. */
export function buildPlacePrediction(
  accounts: ChainAccounts,
  recent: RecentBlockhash,
  p: { user: PublicKey; vault: PublicKey; poolId: string; stake: bigint; value: string },
): BuiltTransaction {
  return finish(accounts, recent, [
    createTransferCheckedInstruction(userTokenAccount(accounts.mint, p.user), accounts.mint, p.vault, p.user, p.stake, accounts.decimals),
    memoInstruction({ v: 1, op: 'predict', pool: p.poolId, value: p.value, stake: p.stake.toString(), rev: 1 }, p.user),
  ]);
}

/**
 * Update a stake: a positive delta moves user -> vault (the user signs the transfer), a
 * negative one vault -> user (the custody key co-signs at submit). The user signs the memo
 * either way, so no stake moves without the user's consent.
 */
export function buildStakeUpdate(
  accounts: ChainAccounts,
  recent: RecentBlockhash,
  p: { user: PublicKey; vault: PublicKey; poolId: string; predictionAccount: string; stake: bigint; delta: bigint; revision: number },
): BuiltTransaction {
  const userAccount = userTokenAccount(accounts.mint, p.user);
  const transfer =
    p.delta > 0n
      ? createTransferCheckedInstruction(userAccount, accounts.mint, p.vault, p.user, p.delta, accounts.decimals)
      : createTransferCheckedInstruction(p.vault, accounts.mint, userAccount, accounts.custody, -p.delta, accounts.decimals);
  return finish(accounts, recent, [
    transfer,
    memoInstruction(
      { v: 1, op: 'stake', pool: p.poolId, prediction: p.predictionAccount, stake: p.stake.toString(), rev: p.revision },
      p.user,
    ),
  ]);
}

/** Update a predicted value: a memo only, signed by the user. */
export function buildValueUpdate(
  accounts: ChainAccounts,
  recent: RecentBlockhash,
  p: { user: PublicKey; poolId: string; predictionAccount: string; value: string; revision: number },
): BuiltTransaction {
  return finish(accounts, recent, [
    memoInstruction({ v: 1, op: 'value', pool: p.poolId, prediction: p.predictionAccount, value: p.value, rev: p.revision }, p.user),
  ]);
}

/**
 * Withdraw to an external wallet: user -> the recipient's associated token account. When
 * that account does not exist yet, `createRecipientAccountPayer` (the user's own wallet,
 * never the relayer: the recipient could close it and keep the rent) funds its creation.
 */
export function buildWithdraw(
  accounts: ChainAccounts,
  recent: RecentBlockhash,
  p: { user: PublicKey; to: PublicKey; amount: bigint; createRecipientAccountPayer: PublicKey | null },
): BuiltTransaction {
  const destination = userTokenAccount(accounts.mint, p.to);
  const create = p.createRecipientAccountPayer
    ? [createAssociatedTokenAccountIdempotentInstruction(p.createRecipientAccountPayer, destination, p.to, accounts.mint)]
    : [];
  return finish(accounts, recent, [
    ...create,
    createTransferCheckedInstruction(
      userTokenAccount(accounts.mint, p.user),
      accounts.mint,
      destination,
      p.user,
      p.amount,
      accounts.decimals,
    ),
    memoInstruction({ v: 1, op: 'withdraw', amount: p.amount.toString(), to: p.to.toBase58() }, p.user),
  ]);
}

/**
 * A payout signed by the service alone: vault or accumulator -> the user's token account,
 * which must exist (the relayer never pays the rent of an account the user can close).
 */
export function buildPayout(
  accounts: ChainAccounts,
  recent: RecentBlockhash,
  p: { source: PublicKey; owner: PublicKey; amount: bigint; kind: 'reward' | 'refund' | 'streak'; id: string },
): BuiltTransaction {
  const destination = userTokenAccount(accounts.mint, p.owner);
  return finish(accounts, recent, [
    createTransferCheckedInstruction(p.source, accounts.mint, destination, accounts.custody, p.amount, accounts.decimals),
    memoInstruction({ v: 1, op: 'claim', kind: p.kind, id: p.id, amount: p.amount.toString() }, accounts.custody),
  ]);
}

/** The exact message bytes of a built transaction (what every signature covers). */
export function messageOf(built: BuiltTransaction): Uint8Array {
  return parseWireTransaction(Buffer.from(built.transaction, 'base64'))!.message;
}

export function hashMessage(message: Uint8Array): string {
  return createHash('sha256').update(message).digest('base64url');
}

/** A wire transaction split into its signature slots and its exact message bytes. */
export interface WireTransaction {
  bytes: Uint8Array;
  signatures: Uint8Array[];
  /** Offset of the first signature slot in `bytes`. */
  signaturesOffset: number;
  message: Uint8Array;
  /** The accounts whose signatures the message requires, in slot order. */
  signers: PublicKey[];
  /** Every account key of the message, in order. */
  accountKeys: PublicKey[];
  /** The instructions: program and account indexes into `accountKeys`, and data. */
  instructions: Array<{ programIdIndex: number; accountKeyIndexes: number[]; data: Uint8Array }>;
}

/** Parses wire bytes (legacy or v0); null when they are not a well-formed transaction. */
export function parseWireTransaction(bytes: Uint8Array): WireTransaction | null {
  // The signature count is a compact-u16; a transaction never needs more than 127.
  const count = bytes[0];
  if (count === undefined || count > 127 || bytes.length < 1 + count * 64 + 3) return null;
  const signatures = Array.from({ length: count }, (_, i) => bytes.subarray(1 + i * 64, 1 + (i + 1) * 64));
  const message = bytes.subarray(1 + count * 64);
  try {
    const decoded = VersionedMessage.deserialize(message);
    const accountKeys = decoded.staticAccountKeys;
    if (decoded.header.numRequiredSignatures !== count) return null;
    return {
      bytes,
      signatures,
      signaturesOffset: 1,
      message,
      signers: accountKeys.slice(0, count),
      accountKeys,
      instructions: decoded.compiledInstructions,
    };
  } catch {
    return null;
  }
}

/** The wire bytes with `signature` in slot `index` (a copy; the input is not changed). */
export function withSignature(wire: WireTransaction, index: number, signature: Uint8Array): Uint8Array {
  const bytes = Uint8Array.from(wire.bytes);
  bytes.set(signature, wire.signaturesOffset + index * 64);
  return bytes;
}

export const isEmptySignature = (signature: Uint8Array) => signature.every((byte) => byte === 0);
