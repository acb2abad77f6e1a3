import type { PublicKey } from '@solana/web3.js';
import { verifyEd25519 } from './ed25519.js';
import { ProofError } from './proof.js';
import { hashMessage, MAX_TRANSACTION_BYTES, parseWireTransaction, type WireTransaction } from './transactions.js';

/** A signed transaction that cannot even be read: malformed base64, oversized, not a transaction. */
export class TransactionFormatError extends Error {}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Checks a signed transaction against its proof before the relayer signs anything: the
 * message must be byte-for-byte the one built (same hash), the relayer must appear only as
 * fee payer, and the user's signature must be present and valid over those bytes.
 */
export function verifySignedTransaction(
  base64: string,
  expected: { messageHash: string; relayer: PublicKey; user: PublicKey },
): WireTransaction {
  if (!BASE64.test(base64)) throw new TransactionFormatError('signedTransaction is not base64');
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length > MAX_TRANSACTION_BYTES) {
    throw new TransactionFormatError(`signedTransaction is ${bytes.length} bytes; at most ${MAX_TRANSACTION_BYTES} fit a transaction`);
  }
  const wire = parseWireTransaction(bytes);
  if (!wire) throw new TransactionFormatError('signedTransaction is not a Solana transaction');
  if (hashMessage(wire.message) !== expected.messageHash) {
    throw new ProofError('PROOF_INVALID', 'The transaction differs from the one built');
  }
  // Given the same bytes this holds by construction; checked anyway, as the relayer's key is at stake.
  if (!relayerOnlyPaysFees(wire, expected.relayer)) throw new ProofError('PROOF_INVALID', 'The relayer may only be the fee payer');
  const userSlot = wire.signers.findIndex((key) => key.equals(expected.user));
  if (userSlot < 0) throw new ProofError('PROOF_INVALID', 'The transaction does not need the user’s signature');
  if (!verifyEd25519(wire.message, wire.signatures[userSlot]!, expected.user.toBytes())) {
    throw new ProofError('PROOF_INVALID', 'The user’s signature is missing or wrong');
  }
  return wire;
}

/**
 * The relayer is the fee payer (account 0) and appears in no instruction at all: never a
 * source, owner or authority of tokens, and never the funder of an account (a user could
 * close it and keep the rent).
 */
export function relayerOnlyPaysFees(wire: WireTransaction, relayer: PublicKey): boolean {
  const slots = wire.accountKeys.flatMap((key, index) => (key.equals(relayer) ? [index] : []));
  if (slots.length !== 1 || slots[0] !== 0) return false;
  return wire.instructions.every((instruction) => instruction.programIdIndex !== 0 && !instruction.accountKeyIndexes.includes(0));
}
