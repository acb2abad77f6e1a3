import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { SystemProgram } from '@solana/web3.js';
import { MEMO_PROGRAM_ID } from './addresses.js';
import type { ChainClient, ParsedAccount, SimulationResult } from './rpc.js';
import { parseWireTransaction, type WireTransaction } from './transactions.js';

/**
 * What a transaction will do, told before anyone signs it: its instructions decoded, and
 * the balances of every account it writes, before and as the chain's own simulation of
 * the unsigned message predicts them after. Only public chain state is read (the accounts
 * the message names), nothing is signed, and the simulation never verifies signatures,
 * so previewing needs no key and sends nothing.
 */
export interface TransactionPreview {
  /** The account paying the transaction fee (the first signer). */
  feePayer: string;
  /** The fee the chain charges for the message, in lamports. */
  feeLamports: bigint;
  instructions: DecodedInstruction[];
  /** Every writable account of the message, in message order. */
  balances: PreviewBalance[];
  /** Accounts the transaction opens, with the lamports of rent moved into them and who pays them. */
  rent: PreviewRent[];
  /** Null when the simulation succeeds; else the chain's error and the program's reason. */
  failure: PreviewFailure | null;
}

export interface DecodedInstruction {
  /** A short name of the program (`spl-token`, `associated-token`, `memo`, `system`), else its address. */
  program: string;
  programId: string;
  /** The instruction (`transferChecked`, `createIdempotent`, `memo`, ...), or `unknown`. */
  name: string;
  /** Each account with its role in the instruction (`source`, `destination`, `authority`, ...). */
  accounts: Array<{ role: string; address: string }>;
  /** A token amount in base units, with the decimals the instruction states; null when it moves none. */
  tokenAmount: { units: bigint; decimals: number; mint: string } | null;
  /** Lamports a System transfer moves; null otherwise. */
  lamports: bigint | null;
  /** The memo's text, for a Memo instruction. */
  memo: string | null;
}

export interface PreviewBalance {
  address: string;
  /** The wallet owning the token account, or null for an account that is not one. */
  owner: string | null;
  /** The token account's mint, or null. */
  mint: string | null;
  decimals: number | null;
  tokensBefore: bigint | null;
  tokensAfter: bigint | null;
  lamportsBefore: bigint;
  lamportsAfter: bigint;
}

export interface PreviewRent {
  account: string;
  payer: string;
  lamports: bigint;
}

export interface PreviewFailure {
  /** The chain's transaction error, as JSON text (`{"InstructionError":[0,{"Custom":1}]}`). */
  error: string;
  /** The program's own words: its last error log line, else the error. */
  reason: string;
  logs: string[];
}

const ROLES = {
  transferChecked: ['source', 'mint', 'destination', 'authority'],
  transfer: ['source', 'destination', 'authority'],
  createAssociatedTokenAccount: ['payer', 'account', 'owner', 'mint', 'systemProgram', 'tokenProgram'],
  systemTransfer: ['from', 'to'],
} as const;

function withRoles(roles: readonly string[], keys: string[]): Array<{ role: string; address: string }> {
  return keys.map((address, i) => ({ role: roles[i] ?? 'account', address }));
}

/** Decodes the instructions of the standard programs the service uses; any other is named by its address. */
export function decodeInstructions(wire: WireTransaction): DecodedInstruction[] {
  return wire.instructions.map((instruction) => {
    const programId = wire.accountKeys[instruction.programIdIndex]!;
    const keys = instruction.accountKeyIndexes.map((index) => wire.accountKeys[index]!.toBase58());
    const data = Buffer.from(instruction.data);
    const base = { programId: programId.toBase58(), tokenAmount: null, lamports: null, memo: null };
    if (programId.equals(TOKEN_PROGRAM_ID)) {
      if (data[0] === 12 && data.length === 10) {
        return {
          ...base,
          program: 'spl-token',
          name: 'transferChecked',
          accounts: withRoles(ROLES.transferChecked, keys),
          tokenAmount: { units: data.readBigUInt64LE(1), decimals: data[9]!, mint: keys[1]! },
        };
      }
      return { ...base, program: 'spl-token', name: 'unknown', accounts: withRoles([], keys) };
    }
    if (programId.equals(ASSOCIATED_TOKEN_PROGRAM_ID)) {
      const name = data.length === 0 || data[0] === 0 ? 'create' : data[0] === 1 ? 'createIdempotent' : 'unknown';
      return { ...base, program: 'associated-token', name, accounts: withRoles(ROLES.createAssociatedTokenAccount, keys) };
    }
    if (programId.equals(MEMO_PROGRAM_ID)) {
      return {
        ...base,
        program: 'memo',
        name: 'memo',
        accounts: withRoles(
          keys.map(() => 'signer'),
          keys,
        ),
        memo: data.toString('utf8'),
      };
    }
    if (programId.equals(SystemProgram.programId) && data.length === 12 && data.readUInt32LE(0) === 2) {
      const accounts = withRoles(ROLES.systemTransfer, keys);
      return { ...base, program: 'system', name: 'transfer', accounts, lamports: data.readBigUInt64LE(4) };
    }
    return { ...base, program: programId.toBase58(), name: 'unknown', accounts: withRoles([], keys) };
  });
}

/** The writable accounts of a message, in message order (what a transaction can change). */
function writableAccounts(wire: WireTransaction): string[] {
  const message = wire.message;
  // Legacy header: [numRequiredSignatures, numReadonlySigned, numReadonlyUnsigned]; v0 has a version byte first.
  const offset = (message[0]! & 0x80) !== 0 ? 1 : 0;
  const [signed, readonlySigned, readonlyUnsigned] = [message[offset]!, message[offset + 1]!, message[offset + 2]!];
  const total = wire.accountKeys.length;
  return wire.accountKeys
    .filter((_, i) => (i < signed ? i < signed - readonlySigned : i < total - readonlyUnsigned))
    .map((key) => key.toBase58());
}

function balanceOf(address: string, before: ParsedAccount | null, after: ParsedAccount | null): PreviewBalance {
  const token = after?.token ?? before?.token ?? null;
  return {
    address,
    owner: token?.owner ?? null,
    mint: token?.mint ?? null,
    decimals: token?.decimals ?? null,
    tokensBefore: token ? (before?.token?.amount ?? 0n) : null,
    tokensAfter: token ? (after?.token?.amount ?? 0n) : null,
    lamportsBefore: before?.lamports ?? 0n,
    lamportsAfter: after?.lamports ?? 0n,
  };
}

/** The program's reason for a failure: its last `Error` log line, else the chain's error. */
function reasonOf(simulation: SimulationResult): string {
  const saysWhy = (line: string) => /^Program log: (Error|Instruction error|Custom)/i.test(line) || /failed: /.test(line);
  const said = [...simulation.logs].reverse().find(saysWhy);
  return said?.replace(/^Program log: /, '') ?? JSON.stringify(simulation.err);
}

/**
 * Previews the base64 wire transaction `transaction` on the chain `client` talks to: reads
 * its writable accounts, simulates the message (no signature verification, the blockhash
 * kept, the same accounts returned as the simulation leaves them) and its fee. The balances
 * after are the simulation's, so they hold as long as nothing else changes these accounts first.
 */
export async function previewTransaction(client: ChainClient, transaction: string): Promise<TransactionPreview> {
  const bytes = Buffer.from(transaction, 'base64');
  const wire = parseWireTransaction(bytes);
  if (!wire) throw new Error('previewTransaction: not a wire transaction');
  const addresses = writableAccounts(wire);
  const before = await client.parsedAccounts(addresses);
  const simulation = await client.simulate(bytes, addresses);
  const feeLamports = await client.feeForMessage(wire.message);
  const instructions = decodeInstructions(wire);
  const failure: PreviewFailure | null =
    simulation.err === null ? null : { error: JSON.stringify(simulation.err), reason: reasonOf(simulation), logs: simulation.logs };
  // A transaction that fails its simulation is never sent (submit simulates it again first): nothing changes.
  const feePayer = wire.signers[0]!.toBase58();
  const after = failure ? before : simulation.accounts;
  const balances = addresses.map((address, i) => balanceOf(address, before[i] ?? null, after[i] ?? null));
  const rent: PreviewRent[] = [];
  for (const instruction of instructions) {
    if (instruction.program !== 'associated-token' || instruction.name === 'unknown') continue;
    const account = instruction.accounts.find((entry) => entry.role === 'account')!.address;
    const opened = balances.find((balance) => balance.address === account);
    if (!opened || opened.lamportsBefore !== 0n || opened.lamportsAfter === 0n) continue;
    rent.push({ account, payer: instruction.accounts.find((entry) => entry.role === 'payer')!.address, lamports: opened.lamportsAfter });
  }
  return { feePayer, feeLamports, instructions, balances, rent, failure };
}
