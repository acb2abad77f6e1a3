import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import type { PublicKey } from '@solana/web3.js';
import { MEMO_PROGRAM_ID } from './addresses.js';
import { ProofError } from './proof.js';
import type { ChainAccounts, WireTransaction } from './transactions.js';
import { relayerOnlyPaysFees } from './verify.js';

/**
 * What the service may sign for one operation. A valid proof alone is never enough: before
 * the relayer or custody adds a signature, the message must be byte-for-byte the one the
 * service itself builds from the recorded state, and, checked independently on the decoded
 * instructions, the relayer only pays fees and custody authorises at most the one
 * vault-to-user transfer the operation's rule allows (docs/security.md).
 */
export interface SigningRule {
  /** The message the service builds for this operation from the current records. */
  expectedMessage: Uint8Array;
  /** The one transfer custody may authorise (source vault, the user's token account, amount), or null. */
  custodyTransfer: CustodyTransfer | null;
}

export interface CustodyTransfer {
  source: PublicKey;
  destination: PublicKey;
  amount: bigint;
}

/** SPL Token TransferChecked: data [12, amount u64 LE, decimals u8]; accounts [source, mint, destination, authority]. */
const TRANSFER_CHECKED = 12;

/** Throws PROOF_INVALID unless `wire` is what `rule` allows the service to sign. */
export function assertSigningRule(wire: WireTransaction, accounts: ChainAccounts, rule: SigningRule): void {
  if (Buffer.compare(Buffer.from(wire.message), Buffer.from(rule.expectedMessage)) !== 0) {
    throw new ProofError('PROOF_INVALID', 'The transaction is not the one this operation builds from the current records; build it again');
  }
  if (!relayerOnlyPaysFees(wire, accounts.relayer)) throw new ProofError('PROOF_INVALID', 'The relayer may only be the fee payer');
  const problem = custodyProblem(wire, accounts, rule.custodyTransfer);
  if (problem) throw new ProofError('PROOF_INVALID', `Custody will not sign: ${problem}`);
}

/**
 * Why custody may not sign `wire`, or null. Custody may appear only as the authority of
 * one TransferChecked of the stake mint matching `allowed` exactly, and as the signer of
 * a memo; with `allowed` null, custody may appear nowhere.
 */
function custodyProblem(wire: WireTransaction, accounts: ChainAccounts, allowed: CustodyTransfer | null): string | null {
  const custodyIndex = wire.accountKeys.findIndex((key) => key.equals(accounts.custody));
  if (custodyIndex < 0) return allowed ? 'the transfer it should authorise is missing' : null;
  let transfers = 0;
  for (const instruction of wire.instructions) {
    const program = wire.accountKeys[instruction.programIdIndex]!;
    const keys = instruction.accountKeyIndexes;
    if (instruction.programIdIndex === custodyIndex) return 'custody is not a program';
    if (!keys.includes(custodyIndex)) {
      if (!program.equals(TOKEN_PROGRAM_ID) && !program.equals(MEMO_PROGRAM_ID) && !program.equals(ASSOCIATED_TOKEN_PROGRAM_ID)) {
        return `an instruction of an unexpected program (${program.toBase58()})`;
      }
      continue;
    }
    if (program.equals(MEMO_PROGRAM_ID)) continue;
    if (
      !program.equals(TOKEN_PROGRAM_ID) ||
      instruction.data[0] !== TRANSFER_CHECKED ||
      instruction.data.length !== 10 ||
      keys.length !== 4
    ) {
      return 'it may only authorise a TransferChecked';
    }
    if (keys.indexOf(custodyIndex) !== 3) return 'it may only be the transfer’s authority';
    const [source, mint, destination] = keys.map((index) => wire.accountKeys[index]!);
    const amount = Buffer.from(instruction.data).readBigUInt64LE(1);
    if (!allowed) return 'no transfer out of custody is allowed for this operation';
    if (!mint!.equals(accounts.mint) || instruction.data[9] !== accounts.decimals) return 'the transfer is not of the stake mint';
    if (!source!.equals(allowed.source)) return 'the transfer’s source is not the vault the records name';
    if (!destination!.equals(allowed.destination)) return 'the transfer’s destination is not the user’s token account';
    if (amount !== allowed.amount) return 'the transfer’s amount is not the one the records allow';
    transfers++;
  }
  if (transfers > 1) return 'it may authorise one transfer only';
  if (allowed && transfers === 0) return 'the transfer it should authorise is missing';
  return null;
}
