// Over 300 lines: the ledger is one state machine (slots, blockhashes, signature statuses, persistence around one LiteSVM);
// split, its parts would share every field.
/**
 * The devchain's ledger: one in-process LiteSVM (a real Solana VM) plus what a validator
 * adds around it — slots and blockhashes that advance and expire, a status cache and
 * transaction history, preflight semantics, fees, a faucet and a demo stake mint — and
 * the persistence of all of it. Knows nothing of HTTP or JSON-RPC (see `rpc-methods.ts`).
 *
 * LiteSVM is used through its native binding (`litesvm/dist/internal.js`), which takes
 * raw bytes: the `LiteSVM` wrapper converts every address through @solana/kit's base58
 * codec (about 0.1 ms each), which would dominate a transaction's cost here.
 */
import { createPrivateKey, randomBytes, sign as signEd25519, type KeyObject } from 'node:crypto';
import { Keypair, PublicKey, SystemProgram, Transaction, type TransactionInstruction } from '@solana/web3.js';
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeMint2Instruction,
  createMintToInstruction,
  getAssociatedTokenAddressSync,
  MINT_SIZE,
} from '@solana/spl-token';
import bs58 from 'bs58';
import {
  Account,
  FailedTransactionMetadata,
  LiteSvm,
  type SimulatedTransactionInfo,
  type TransactionMetadata,
} from 'litesvm/dist/internal.js';
import type { DevchainKeys, DevchainStore, StoredAccount, StoredState } from './store.js';
import { decodeMint, decodeTokenAccount, isTokenProgram, TOKEN_PROGRAM_ID, uiTokenAmount } from './token-layout.js';
import { describeTransactionError, fieldlessTransactionError, type TransactionFailure } from './transaction-error.js';
import type { InnerInstructionRecord, TokenBalance, TransactionRecord } from './transaction-record.js';
import { decodeWireTransaction, isStaticKeyWritable, replaceRecentBlockhash, type WireMessage, type WireTransaction } from './wire.js';

/** Lamports charged per signature (LiteSVM's and mainnet's base fee). */
export const LAMPORTS_PER_SIGNATURE = 5000;
/** Decimals of the demo stake mint. */
export const STAKE_MINT_DECIMALS = 6;

const NATIVE_LOADER = 'NativeLoader1111111111111111111111111111111';
const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
/** Owners of accounts the devchain never persists: programs, their data, sysvars. */
const UNPERSISTED_OWNERS = new Set([
  NATIVE_LOADER,
  'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'LoaderV411111111111111111111111111111111111',
  'Sysvar1111111111111111111111111111111111111',
]);
const LOOKUP_TABLE_META_SIZE = 56;
const MAX_COMPUTE_UNIT_LIMIT = 1_400_000;
const DEFAULT_BUILTIN_COMPUTE_UNITS = 3_000;
const DEFAULT_INSTRUCTION_COMPUTE_UNITS = 200_000;
const FAUCET_FLOOR_LAMPORTS = 100_000n * 1_000_000_000n;
const FAUCET_FUND_LAMPORTS = 1_000_000n * 1_000_000_000n;
const SLOT_PERSIST_INTERVAL = 100;
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** Tuning of the devchain's clock and history. */
export interface ChainOptions {
  /** Milliseconds per slot; each slot brings a new blockhash. 0 = slots advance only through {@link DevChain.advanceSlots}. */
  slotMs: number;
  /** Slots a blockhash stays valid (`lastValidBlockHeight` = height when issued + this). */
  blockhashValiditySlots: number;
  /** Slots after which a landed transaction counts as finalized. */
  finalizationSlots: number;
  /** Slots a status stays visible to `getSignatureStatuses` without `searchTransactionHistory`. */
  statusCacheSlots: number;
  /** Landed transactions kept (in memory and on disk) for `getTransaction` and statuses. */
  maxTransactionHistory: number;
  /** Where state persists; null keeps it in memory only. */
  persistence: { store: DevchainStore; state: StoredState } | null;
}

/** An account as the chain holds it. */
export interface AccountState {
  lamports: bigint;
  owner: string;
  executable: boolean;
  data: Uint8Array;
  rentEpoch: bigint;
}

/** The execution details an RPC reports for a simulation or a rejected preflight. */
export interface ExecutionReport {
  err: TransactionFailure | null;
  logs: string[];
  unitsConsumed: number;
  returnData: { programId: string; data: [string, 'base64'] } | null;
}

/** What became of a submitted transaction. */
export type SendOutcome =
  /** Landed in a slot (possibly failed on-chain after paying its fee: `record.err`). */
  | { kind: 'landed'; signature: string; record: TransactionRecord }
  /** Refused by preflight (nothing changed); `signatureFailure` marks a bad signature. */
  | { kind: 'rejected'; signature: string; signatureFailure: boolean; report: ExecutionReport }
  /** Accepted without preflight but never landed (bad signature, unknown blockhash, ...). */
  | { kind: 'dropped'; signature: string; reason: TransactionFailure };

/** What a simulation reports. */
export interface SimulationOutcome extends ExecutionReport {
  /** Set when the blockhash was replaced: the one used. */
  replacementBlockhash: { blockhash: string; lastValidBlockHeight: number } | null;
  /** Accounts after the simulation, for the requested addresses (null = not requested / missing). */
  accounts: Array<AccountState | null> | null;
  signatureFailure: boolean;
}

/** A signature's status as `getSignatureStatuses` reports it. */
export interface SignatureStatus {
  slot: number;
  confirmations: number | null;
  err: TransactionRecord['err'];
  status: { Ok: null } | { Err: unknown };
  confirmationStatus: 'confirmed' | 'finalized';
}

/** Thrown by the devchain's own transactions (faucet, minting) when they do not land. */
export class DevchainTransactionError extends Error {
  override name = 'DevchainTransactionError';
  constructor(
    message: string,
    readonly logs: string[],
  ) {
    super(logs.length ? `${message}\n${logs.join('\n')}` : message);
  }
}

interface ChainEvents {
  slot: (slot: number) => void;
  transaction: (record: TransactionRecord) => void;
  accounts: (addresses: string[]) => void;
}

interface ResolvedKeys {
  keys: Uint8Array[];
  addresses: string[];
  writable: boolean[];
  programIndexes: Set<number>;
  loaded: { writable: string[]; readonly: string[] };
}

interface Signer {
  publicKey: PublicKey;
  key: KeyObject;
}

function toSigner(secretKey: Uint8Array): Signer {
  const keypair = Keypair.fromSecretKey(secretKey);
  const der = Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.from(secretKey.subarray(0, 32))]);
  return { publicKey: keypair.publicKey, key: createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }) };
}

function addressBytes(address: string): Uint8Array {
  const bytes = bs58.decode(address);
  if (bytes.length !== 32) throw new TypeError(`not a 32-byte base58 address: ${address}`);
  return bytes;
}

function toAccountState(account: Account): AccountState {
  return {
    lamports: account.lamports(),
    owner: bs58.encode(account.owner()),
    executable: account.executable(),
    data: account.data(),
    rentEpoch: account.rentEpoch(),
  };
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * The ledger. Create with {@link DevChain.create}; stop its clock and flush its store with
 * {@link DevChain.close}.
 */
export class DevChain {
  private readonly svm = new LiteSvm();
  private currentSlot: number;
  private lastPersistedSlot: number;
  /** Valid blockhashes (oldest first) and the last block height each is valid for. */
  private readonly blockhashes = new Map<string, number>();
  private latest!: { blockhash: string; lastValidBlockHeight: number };
  private readonly records = new Map<string, TransactionRecord>();
  /** Addresses of every account the devchain created or a transaction wrote. */
  private readonly tracked = new Set<string>();
  private readonly mintDecimalsCache = new Map<string, number>();
  private readonly builtinCache = new Map<string, boolean>();
  private readonly listeners: { [E in keyof ChainEvents]: Set<ChainEvents[E]> } = {
    slot: new Set(),
    transaction: new Set(),
    accounts: new Set(),
  };
  private timer: NodeJS.Timeout | null = null;
  private readonly store: DevchainStore | null;
  private keys!: DevchainKeys;
  private faucet!: Signer;
  private mintAuthority!: Signer;
  private closed = false;

  private constructor(private readonly options: ChainOptions) {
    // Duplicates are caught against our own history, which survives restarts; LiteSVM's
    // would also make a transaction rolled back by preflight unsendable.
    this.svm.setTransactionHistory(0n);
    // Blockhash validity is ours: LiteSVM only knows its single latest blockhash.
    this.svm.setBlockhashCheck(false);
    this.store = options.persistence?.store ?? null;
    const initialSlot = Number(this.svm.getClock().slot);
    // The slot is persisted at least every SLOT_PERSIST_INTERVAL slots, so resuming that far
    // ahead keeps slots monotonic across a crash (clients may have seen later ones).
    const storedSlot = options.persistence?.state.slot;
    this.currentSlot = Math.max(initialSlot, storedSlot === null || storedSlot === undefined ? 0 : storedSlot + SLOT_PERSIST_INTERVAL);
    this.lastPersistedSlot = this.currentSlot;
    this.setClock();
    this.registerBlockhash();
  }

  /** Starts a chain: restores the store's state, or creates the faucet and the stake mint. */
  static create(options: ChainOptions): DevChain {
    const chain = new DevChain(options);
    chain.restoreOrGenesis();
    if (options.slotMs > 0) {
      chain.timer = setInterval(() => chain.advanceSlots(1), options.slotMs);
      chain.timer.unref();
    }
    return chain;
  }

  private restoreOrGenesis(): void {
    const stored = this.options.persistence?.state;
    for (const account of stored?.accounts.values() ?? []) {
      this.svm.setAccount(
        addressBytes(account.address),
        new Account(account.lamports, account.data, addressBytes(account.owner), account.executable, 0n),
      );
      this.tracked.add(account.address);
    }
    for (const record of stored?.transactions ?? []) this.records.set(record.signature, record);
    if (stored?.keys) {
      this.useKeys(stored.keys);
      this.fundFaucet();
    } else {
      const mint = Keypair.generate();
      this.useKeys({
        faucet: bs58.encode(Keypair.generate().secretKey),
        mintAuthority: bs58.encode(Keypair.generate().secretKey),
        stakeMint: mint.publicKey.toBase58(),
        genesisHash: bs58.encode(randomBytes(32)),
      });
      this.store?.append({ keys: this.keys });
      this.fundFaucet();
      this.createStakeMint(mint);
    }
    this.compact();
  }

  private useKeys(keys: DevchainKeys): void {
    this.keys = keys;
    this.faucet = toSigner(bs58.decode(keys.faucet));
    this.mintAuthority = toSigner(bs58.decode(keys.mintAuthority));
  }

  private fundFaucet(): void {
    const address = this.faucet.publicKey.toBase58();
    const current = this.getAccount(address);
    if (current && current.lamports >= FAUCET_FLOOR_LAMPORTS) return;
    const systemProgram = addressBytes(SystemProgram.programId.toBase58());
    const funded = new Account(FAUCET_FUND_LAMPORTS, new Uint8Array(0), systemProgram, false, 0n);
    this.svm.setAccount(addressBytes(address), funded);
    this.persistAccounts([{ address, account: funded }]);
  }

  private createStakeMint(mint: Keypair): void {
    const rent = Number(this.svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE)));
    const mintSigner = toSigner(mint.secretKey);
    this.submitOwnTransaction(
      [
        SystemProgram.createAccount({
          fromPubkey: this.faucet.publicKey,
          newAccountPubkey: mint.publicKey,
          lamports: rent,
          space: MINT_SIZE,
          programId: new PublicKey(TOKEN_PROGRAM_ID),
        }),
        createInitializeMint2Instruction(mint.publicKey, STAKE_MINT_DECIMALS, this.mintAuthority.publicKey, null),
      ],
      [this.faucet, mintSigner],
    );
  }

  // ---------------------------------------------------------------- identity

  /** Address of the demo stake mint. */
  get stakeMint(): string {
    return this.keys.stakeMint;
  }

  /** Address of the stake mint's mint authority. */
  get mintAuthorityAddress(): string {
    return this.mintAuthority.publicKey.toBase58();
  }

  /** Address of the faucet (airdrop source, fee payer of devchain transactions). */
  get faucetAddress(): string {
    return this.faucet.publicKey.toBase58();
  }

  /** The hash `getGenesisHash` reports. */
  get genesisHash(): string {
    return this.keys.genesisHash;
  }

  // ---------------------------------------------------------------- clock

  /** The current slot. Every slot produces a block, so it is also the block height. */
  get slot(): number {
    return this.currentSlot;
  }

  /** Current block height (equal to the slot: the devchain skips no slots). */
  get blockHeight(): number {
    return this.currentSlot;
  }

  /** Landed transactions currently kept. */
  get transactionCount(): number {
    return this.records.size;
  }

  /** The newest blockhash and the last block height at which it is valid. */
  latestBlockhash(): { blockhash: string; lastValidBlockHeight: number } {
    return this.latest;
  }

  /** Whether a transaction using `blockhash` would be accepted now. */
  isBlockhashValid(blockhash: string): boolean {
    const lastValid = this.blockhashes.get(blockhash);
    return lastValid !== undefined && this.blockHeight <= lastValid;
  }

  /** Moves the clock `count` slots forward, each with a new blockhash (expiring old ones). */
  advanceSlots(count = 1): void {
    if (this.closed) return;
    for (let i = 0; i < count; i++) {
      this.currentSlot += 1;
      this.svm.expireBlockhash();
      this.registerBlockhash();
    }
    this.setClock();
    if (this.currentSlot - this.lastPersistedSlot >= SLOT_PERSIST_INTERVAL) {
      this.lastPersistedSlot = this.currentSlot;
      this.store?.append({ slot: this.currentSlot });
    }
    for (const listener of this.listeners.slot) listener(this.currentSlot);
  }

  private setClock(): void {
    const clock = this.svm.getClock();
    clock.slot = BigInt(this.currentSlot);
    clock.unixTimestamp = BigInt(Math.floor(Date.now() / 1000));
    this.svm.setClock(clock);
  }

  private registerBlockhash(): void {
    const blockhash = this.svm.latestBlockhash();
    const lastValidBlockHeight = this.blockHeight + this.options.blockhashValiditySlots;
    this.blockhashes.set(blockhash, lastValidBlockHeight);
    this.latest = { blockhash, lastValidBlockHeight };
    for (const [hash, lastValid] of this.blockhashes) {
      if (lastValid >= this.blockHeight) break;
      this.blockhashes.delete(hash);
    }
  }

  // ---------------------------------------------------------------- events

  /** Subscribes to a chain event; returns the unsubscribe function. */
  on<E extends keyof ChainEvents>(event: E, listener: ChainEvents[E]): () => void {
    const set = this.listeners[event] as Set<ChainEvents[E]>;
    set.add(listener);
    return () => set.delete(listener);
  }

  // ---------------------------------------------------------------- accounts

  /** The account at `address`, or null when none exists. */
  getAccount(address: string): AccountState | null {
    const account = this.svm.getAccount(addressBytes(address));
    if (!account || (account.lamports() === 0n && account.data().length === 0)) return null;
    return toAccountState(account);
  }

  /** Lamports held by `address` (0 when no account exists). */
  getBalance(address: string): bigint {
    return this.svm.getBalance(addressBytes(address)) ?? 0n;
  }

  /** Lamports an account of `dataLength` bytes needs to be rent exempt. */
  minimumBalanceForRentExemption(dataLength: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(dataLength));
  }

  /** Decimals of `mint`, or null when it is not a mint. */
  mintDecimals(mint: string): number | null {
    const cached = this.mintDecimalsCache.get(mint);
    if (cached !== undefined) return cached;
    const account = this.getAccount(mint);
    const decoded = account && decodeMint(account.owner, account.data);
    if (!decoded?.isInitialized) return null;
    this.mintDecimalsCache.set(mint, decoded.decimals);
    return decoded.decimals;
  }

  /** Token accounts of `owner` under `programId`, optionally only those of `mint`. */
  tokenAccountsByOwner(owner: string, filter: { mint?: string; programId: string }): Array<{ address: string; account: AccountState }> {
    const ownerBytes = Buffer.from(addressBytes(owner));
    const mintBytes = filter.mint ? Buffer.from(addressBytes(filter.mint)) : null;
    const out: Array<{ address: string; account: AccountState }> = [];
    for (const entry of this.svm.getProgramAccounts(addressBytes(filter.programId))) {
      const account = entry.account();
      const data = account.data();
      if (data.length < 165 || !ownerBytes.equals(data.subarray(32, 64))) continue;
      if (mintBytes && !mintBytes.equals(data.subarray(0, 32))) continue;
      const state = toAccountState(account);
      if (!decodeTokenAccount(state.owner, data)) continue;
      out.push({ address: bs58.encode(entry.address), account: state });
    }
    return out;
  }

  // ---------------------------------------------------------------- transactions

  /**
   * Submits a wire transaction. With preflight (the default) a transaction that would fail
   * changes nothing and is rejected with its logs, as a validator's preflight simulation
   * does; with `skipPreflight` it lands and pays its fee even if it fails, or is dropped
   * when it could never land (bad signature, unknown blockhash, duplicate).
   *
   * Signatures are verified by LiteSVM as the transaction executes (several times faster
   * than node:crypto), so unlike a validator, which verifies first, a badly signed
   * transaction that is also a duplicate or expired is refused for that instead.
   */
  sendTransaction(transaction: WireTransaction, options: { skipPreflight?: boolean } = {}): SendOutcome {
    const skipPreflight = options.skipPreflight ?? false;
    const signature = bs58.encode(transaction.signatures[0]!);
    const refuse = (failure: TransactionFailure): SendOutcome =>
      skipPreflight
        ? { kind: 'dropped', signature, reason: failure }
        : {
            kind: 'rejected',
            signature,
            signatureFailure: failure.json === 'SignatureFailure',
            report: { err: failure, logs: [], unitsConsumed: 0, returnData: null },
          };
    if (this.records.has(signature)) return refuse(fieldlessTransactionError('AlreadyProcessed'));
    if (!this.isBlockhashValid(bs58.encode(transaction.message.recentBlockhash))) {
      return refuse(fieldlessTransactionError('BlockhashNotFound'));
    }

    const resolved = this.resolveKeys(transaction.message);
    const pre = resolved.keys.map((key, index) => (resolved.programIndexes.has(index) ? null : this.svm.getAccount(key)));
    const preBalances = resolved.keys.map((key, index) =>
      resolved.programIndexes.has(index) ? (this.svm.getBalance(key) ?? 0n) : (pre[index]?.lamports() ?? 0n),
    );
    const result = this.execute(transaction.bytes, transaction.message.version);

    if (result instanceof FailedTransactionMetadata) {
      const failure = describeTransactionError(result);
      const meta = result.meta();
      if (!skipPreflight) {
        // LiteSVM charged the fee (and advanced any nonce): preflight must change nothing.
        this.rollBack(resolved, pre);
        return {
          kind: 'rejected',
          signature,
          signatureFailure: failure.json === 'SignatureFailure',
          report: { err: failure, ...this.executionDetails(meta) },
        };
      }
      const charged = (this.svm.getBalance(resolved.keys[0]!) ?? 0n) !== preBalances[0];
      if (!charged) return { kind: 'dropped', signature, reason: failure };
      return { kind: 'landed', signature, record: this.land(transaction, signature, resolved, pre, preBalances, meta, failure) };
    }
    return { kind: 'landed', signature, record: this.land(transaction, signature, resolved, pre, preBalances, result, null) };
  }

  /**
   * Simulates a wire transaction without changing state. `sigVerify` checks signatures
   * (off by default, as on a validator); `replaceRecentBlockhash` runs it with the latest
   * blockhash instead of its own. `accounts` asks for those accounts' post-simulation state.
   */
  simulateTransaction(
    transaction: WireTransaction,
    options: { sigVerify?: boolean; replaceRecentBlockhash?: boolean; accounts?: string[] } = {},
  ): SimulationOutcome {
    let bytes = transaction.bytes;
    let replacementBlockhash: SimulationOutcome['replacementBlockhash'] = null;
    const empty = { logs: [], unitsConsumed: 0, returnData: null, accounts: null, signatureFailure: false };
    if (options.replaceRecentBlockhash) {
      replacementBlockhash = { ...this.latest };
      bytes = replaceRecentBlockhash(transaction, addressBytes(this.latest.blockhash));
    } else if (!this.isBlockhashValid(bs58.encode(transaction.message.recentBlockhash))) {
      return { ...empty, err: fieldlessTransactionError('BlockhashNotFound'), replacementBlockhash };
    }
    if (this.records.has(bs58.encode(transaction.signatures[0]!))) {
      return { ...empty, err: fieldlessTransactionError('AlreadyProcessed'), replacementBlockhash };
    }
    // LiteSVM verifies signatures (about 3x faster than node:crypto here); a validator
    // simulates without verifying unless asked to.
    this.svm.setSigverify(options.sigVerify ?? false);
    let result: SimulatedTransactionInfo | FailedTransactionMetadata;
    try {
      result =
        transaction.message.version === 'legacy' ? this.svm.simulateLegacyTransaction(bytes) : this.svm.simulateVersionedTransaction(bytes);
    } finally {
      this.svm.setSigverify(true);
    }
    if (result instanceof FailedTransactionMetadata) {
      const failure = describeTransactionError(result);
      return {
        err: failure,
        ...this.executionDetails(result.meta()),
        replacementBlockhash,
        accounts: null,
        signatureFailure: failure.json === 'SignatureFailure',
      };
    }
    let accounts: SimulationOutcome['accounts'] = null;
    if (options.accounts) {
      const post = new Map<string, AccountState>();
      for (const entry of result.postAccounts()) post.set(bs58.encode(entry.address), toAccountState(entry.account()));
      accounts = options.accounts.map((address) => post.get(address) ?? this.getAccount(address));
    }
    return {
      err: null,
      ...this.executionDetails(result.meta()),
      replacementBlockhash,
      accounts,
      signatureFailure: false,
    };
  }

  /** The fee a message would pay, or null when its blockhash is not valid (as the RPC answers). */
  feeForMessage(message: WireMessage): number | null {
    if (!this.isBlockhashValid(bs58.encode(message.recentBlockhash))) return null;
    return this.computeFee(
      message,
      message.staticAccountKeys.map((key) => bs58.encode(key)),
    );
  }

  /**
   * The status of a landed transaction; null when unknown, or when older than the status
   * cache and `searchTransactionHistory` is not set.
   */
  signatureStatus(signature: string, searchTransactionHistory: boolean): SignatureStatus | null {
    const record = this.records.get(signature);
    if (!record) return null;
    const age = this.currentSlot - record.slot;
    if (!searchTransactionHistory && age > this.options.statusCacheSlots) return null;
    const finalized = age >= this.options.finalizationSlots;
    return {
      slot: record.slot,
      confirmations: finalized ? null : age,
      err: record.err,
      status: record.err === null ? { Ok: null } : { Err: record.err },
      confirmationStatus: finalized ? 'finalized' : 'confirmed',
    };
  }

  /** Whether a landed transaction has reached `commitment`. */
  hasReached(record: TransactionRecord, commitment: 'processed' | 'confirmed' | 'finalized'): boolean {
    return commitment !== 'finalized' || this.currentSlot - record.slot >= this.options.finalizationSlots;
  }

  /** A landed transaction's record, or null. */
  getTransaction(signature: string): TransactionRecord | null {
    return this.records.get(signature) ?? null;
  }

  // ---------------------------------------------------------------- faucet

  /** Sends `lamports` from the faucet to `address` in a real transfer; returns its signature. */
  airdrop(address: string, lamports: bigint): string {
    if (lamports <= 0n) throw new RangeError('airdrop amount must be positive');
    const to = new PublicKey(addressBytes(address));
    return this.submitOwnTransaction(
      [SystemProgram.transfer({ fromPubkey: this.faucet.publicKey, toPubkey: to, lamports })],
      [this.faucet],
    );
  }

  /**
   * Mints `amount` base units of the stake mint to `owner`'s associated token account,
   * creating the account if needed. Owners off the curve (program-derived) are allowed.
   */
  mintTokens(owner: string, amount: bigint): { signature: string; tokenAccount: string } {
    if (amount <= 0n || amount >= 1n << 64n) throw new RangeError('mint amount must be a positive u64');
    const ownerKey = new PublicKey(addressBytes(owner));
    const mint = new PublicKey(this.keys.stakeMint);
    const tokenAccount = getAssociatedTokenAddressSync(mint, ownerKey, true);
    const signature = this.submitOwnTransaction(
      [
        createAssociatedTokenAccountIdempotentInstruction(this.faucet.publicKey, tokenAccount, ownerKey, mint),
        createMintToInstruction(mint, tokenAccount, this.mintAuthority.publicKey, amount),
      ],
      [this.faucet, this.mintAuthority],
    );
    return { signature, tokenAccount: tokenAccount.toBase58() };
  }

  /** Builds, signs and lands a devchain transaction (faucet as fee payer). */
  private submitOwnTransaction(instructions: TransactionInstruction[], signers: Signer[]): string {
    for (let attempt = 0; attempt < 3; attempt++) {
      const transaction = new Transaction({ feePayer: this.faucet.publicKey, recentBlockhash: this.latest.blockhash });
      transaction.add(...instructions);
      const message = transaction.serializeMessage();
      for (const signer of signers) transaction.addSignature(signer.publicKey, signEd25519(null, message, signer.key));
      const bytes = transaction.serialize({ verifySignatures: false });
      const outcome = this.sendTransaction(decodeWireTransaction(bytes));
      if (outcome.kind === 'landed') return outcome.signature;
      if (outcome.kind === 'rejected' && outcome.report.err?.json === 'AlreadyProcessed') {
        // The same instructions in the same slot sign identically: take the next blockhash.
        this.advanceSlots(1);
        continue;
      }
      const reason = outcome.kind === 'rejected' ? outcome.report : { err: outcome.reason, logs: [] };
      throw new DevchainTransactionError(`devchain transaction failed: ${reason.err?.text ?? 'unknown error'}`, reason.logs);
    }
    throw new DevchainTransactionError('devchain transaction kept colliding with an identical one', []);
  }

  // ---------------------------------------------------------------- internals

  private execute(bytes: Uint8Array, version: WireMessage['version']): TransactionMetadata | FailedTransactionMetadata {
    return version === 'legacy' ? this.svm.sendLegacyTransaction(bytes) : this.svm.sendVersionedTransaction(bytes);
  }

  private executionDetails(meta: TransactionMetadata): Omit<ExecutionReport, 'err'> {
    const returned = meta.returnData();
    const returnedData = returned.data();
    return {
      logs: meta.logs(),
      unitsConsumed: Number(meta.computeUnitsConsumed()),
      returnData: returnedData.length > 0 ? { programId: bs58.encode(returned.programId()), data: [base64(returnedData), 'base64'] } : null,
    };
  }

  /** Static keys plus the addresses loaded from lookup tables (static keys only if a table is missing). */
  private resolveKeys(message: WireMessage): ResolvedKeys {
    const keys = [...message.staticAccountKeys];
    const writable = keys.map((_, index) => isStaticKeyWritable(message, index));
    const loaded = { writable: [] as string[], readonly: [] as string[] };
    const loadedWritable: Uint8Array[] = [];
    const loadedReadonly: Uint8Array[] = [];
    for (const lookup of message.addressTableLookups) {
      const table = this.svm.getAccount(lookup.accountKey);
      const data = table?.data();
      const entry = (index: number): Uint8Array | null => {
        const start = LOOKUP_TABLE_META_SIZE + index * 32;
        return data && start + 32 <= data.length ? data.subarray(start, start + 32) : null;
      };
      for (const index of lookup.writableIndexes) {
        const key = entry(index);
        if (key) loadedWritable.push(key);
      }
      for (const index of lookup.readonlyIndexes) {
        const key = entry(index);
        if (key) loadedReadonly.push(key);
      }
    }
    for (const key of loadedWritable) {
      keys.push(key);
      writable.push(true);
      loaded.writable.push(bs58.encode(key));
    }
    for (const key of loadedReadonly) {
      keys.push(key);
      writable.push(false);
      loaded.readonly.push(bs58.encode(key));
    }
    const programIndexes = new Set(message.instructions.map((instruction) => instruction.programIdIndex));
    return { keys, addresses: keys.map((key) => bs58.encode(key)), writable, programIndexes, loaded };
  }

  private rollBack(resolved: ResolvedKeys, pre: Array<Account | null>): void {
    resolved.keys.forEach((key, index) => {
      const before = pre[index];
      if (resolved.writable[index] && before) this.svm.setAccount(key, before);
    });
  }

  private isBuiltin(programId: string): boolean {
    let builtin = this.builtinCache.get(programId);
    if (builtin === undefined) {
      builtin = this.getAccount(programId)?.owner === NATIVE_LOADER;
      this.builtinCache.set(programId, builtin);
    }
    return builtin;
  }

  /** Base fee per signature plus the prioritization fee of any compute-budget instructions. */
  private computeFee(message: WireMessage, addresses: string[]): number {
    let unitLimit: number | null = null;
    let microLamportsPerUnit = 0n;
    let defaultUnits = 0;
    for (const instruction of message.instructions) {
      const programId = addresses[instruction.programIdIndex] ?? '';
      if (programId === COMPUTE_BUDGET_PROGRAM) {
        const data = Buffer.from(instruction.data);
        if (data[0] === 2 && data.length >= 5) unitLimit = data.readUInt32LE(1);
        if (data[0] === 3 && data.length >= 9) microLamportsPerUnit = data.readBigUInt64LE(1);
      }
      defaultUnits += this.isBuiltin(programId) ? DEFAULT_BUILTIN_COMPUTE_UNITS : DEFAULT_INSTRUCTION_COMPUTE_UNITS;
    }
    const units = BigInt(Math.min(unitLimit ?? defaultUnits, MAX_COMPUTE_UNIT_LIMIT));
    const priority = (microLamportsPerUnit * units + 999_999n) / 1_000_000n;
    return message.header.numRequiredSignatures * LAMPORTS_PER_SIGNATURE + Number(priority);
  }

  private tokenBalances(accounts: Array<Account | null>): TokenBalance[] {
    const balances: TokenBalance[] = [];
    accounts.forEach((account, accountIndex) => {
      if (!account) return;
      const programId = bs58.encode(account.owner());
      if (!isTokenProgram(programId)) return;
      const token = decodeTokenAccount(programId, account.data());
      if (!token || token.state === 'uninitialized') return;
      const decimals = this.mintDecimals(token.mint);
      if (decimals === null) return;
      balances.push({
        accountIndex,
        mint: token.mint,
        owner: token.owner,
        programId,
        uiTokenAmount: uiTokenAmount(token.amount, decimals),
      });
    });
    return balances;
  }

  /** Records a landed transaction, persists what it wrote, and tells listeners. */
  private land(
    transaction: WireTransaction,
    signature: string,
    resolved: ResolvedKeys,
    pre: Array<Account | null>,
    preBalances: bigint[],
    meta: TransactionMetadata,
    failure: TransactionFailure | null,
  ): TransactionRecord {
    const post = resolved.keys.map((key, index) => (resolved.programIndexes.has(index) ? null : this.svm.getAccount(key)));
    const postBalances = resolved.keys.map((key, index) =>
      resolved.programIndexes.has(index) ? (this.svm.getBalance(key) ?? 0n) : (post[index]?.lamports() ?? 0n),
    );
    const innerInstructions: TransactionRecord['innerInstructions'] = [];
    meta.innerInstructions().forEach((inner, index) => {
      if (inner.length === 0) return;
      innerInstructions.push({
        index,
        instructions: inner.map((entry): InnerInstructionRecord => {
          const compiled = entry.instruction();
          return {
            programIdIndex: compiled.programIdIndex(),
            accounts: Array.from(compiled.accounts()),
            data: bs58.encode(compiled.data()),
            stackHeight: entry.stackHeight(),
          };
        }),
      });
    });
    const details = this.executionDetails(meta);
    const record: TransactionRecord = {
      signature,
      slot: this.currentSlot,
      blockTime: Math.floor(Date.now() / 1000),
      transaction: base64(transaction.bytes),
      err: failure?.json ?? null,
      logs: details.logs,
      fee: this.computeFee(transaction.message, resolved.addresses),
      computeUnitsConsumed: details.unitsConsumed,
      preBalances: preBalances.map(Number),
      postBalances: postBalances.map(Number),
      preTokenBalances: this.tokenBalances(pre),
      postTokenBalances: this.tokenBalances(post),
      innerInstructions,
      loadedAddresses: resolved.loaded,
      returnData: details.returnData,
    };
    this.records.set(signature, record);
    if (this.records.size > this.options.maxTransactionHistory) {
      const oldest = this.records.keys().next().value;
      if (oldest !== undefined) this.records.delete(oldest);
    }
    const written: Array<{ address: string; account: Account | null }> = [];
    resolved.addresses.forEach((address, index) => {
      if (resolved.writable[index] && !resolved.programIndexes.has(index)) written.push({ address, account: post[index] ?? null });
    });
    this.persistAccounts(written, record);
    for (const listener of this.listeners.transaction) listener(record);
    if (this.listeners.accounts.size > 0) {
      const addresses = written.map((entry) => entry.address);
      for (const listener of this.listeners.accounts) listener(addresses);
    }
    return record;
  }

  /** Appends the state of accounts just written (and the transaction that wrote them) to the store. */
  private persistAccounts(written: Array<{ address: string; account: Account | null }>, transaction?: TransactionRecord): void {
    if (!this.store) return;
    const changes: Array<StoredAccount | { address: string; closed: true }> = [];
    for (const { address, account } of written) {
      const state = account && account.lamports() > 0n ? toAccountState(account) : null;
      if (!state) {
        if (this.tracked.delete(address)) changes.push({ address, closed: true });
        continue;
      }
      if (state.executable || UNPERSISTED_OWNERS.has(state.owner)) continue;
      this.tracked.add(address);
      changes.push({ address, ...state });
    }
    this.store.append({ accounts: changes, transaction });
    if (this.store.needsCompaction) this.compact();
  }

  private compact(): void {
    if (!this.store) return;
    const chain = this;
    function* accounts(): Generator<StoredAccount> {
      for (const address of chain.tracked) {
        const account = chain.getAccount(address);
        if (account) yield { address, ...account };
      }
    }
    this.lastPersistedSlot = this.currentSlot;
    this.store.compact({ keys: this.keys, slot: this.currentSlot, accounts: accounts(), transactions: this.records.values() });
  }

  /** Stops the clock and flushes and closes the store. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const set of Object.values(this.listeners)) set.clear();
    if (this.store) {
      this.compact();
      this.store.close();
    }
  }
}
