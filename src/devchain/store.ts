/**
 * Persistence of the devchain under a data directory: one append-only JSON-lines log
 * (`devchain.jsonl`) of the devchain's keys, its slot, every account it created or a
 * transaction wrote, and the transactions that landed. Each state change is appended
 * synchronously before the caller answers, so a killed process loses nothing it reported;
 * the log is compacted (rewritten to one line per live account) at start, at close and
 * when it has grown well past its compacted size.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { type DataDirLock, lockDataDir } from '../db/data-dir-lock.js';
import type { TransactionRecord } from './transaction-record.js';

/** The devchain's own keys and identity, created on first start. */
export interface DevchainKeys {
  /** Secret key (64 bytes, base58) of the faucet: source of airdrops, fee payer of devchain transactions. */
  faucet: string;
  /** Secret key (64 bytes, base58) of the stake mint's mint authority. */
  mintAuthority: string;
  /** Address of the demo stake mint. */
  stakeMint: string;
  /** Base58 hash `getGenesisHash` reports, distinct per data directory. */
  genesisHash: string;
}

/** An account as persisted. */
export interface StoredAccount {
  address: string;
  lamports: bigint;
  owner: string;
  executable: boolean;
  data: Uint8Array;
}

/** Everything a data directory held at start. */
export interface StoredState {
  keys: DevchainKeys | null;
  slot: number | null;
  accounts: Map<string, StoredAccount>;
  transactions: TransactionRecord[];
}

/** The live state to write when compacting. */
export interface StateSnapshot {
  keys: DevchainKeys;
  slot: number;
  accounts: Iterable<StoredAccount>;
  transactions: Iterable<TransactionRecord>;
}

type LogLine =
  | ({ t: 'keys' } & DevchainKeys)
  | { t: 'slot'; slot: number }
  | { t: 'account'; address: string; lamports: string; owner: string; executable: boolean; data: string }
  | { t: 'closed'; address: string }
  | { t: 'tx'; record: TransactionRecord };

const LOG_FILE = 'devchain.jsonl';
const COMPACT_MIN_BYTES = 64 * 1024 * 1024;

function accountLine(account: StoredAccount): LogLine {
  return {
    t: 'account',
    address: account.address,
    lamports: account.lamports.toString(),
    owner: account.owner,
    executable: account.executable,
    data: Buffer.from(account.data.buffer, account.data.byteOffset, account.data.byteLength).toString('base64'),
  };
}

function serialize(lines: LogLine[]): string {
  let out = '';
  for (const line of lines) out += `${JSON.stringify(line)}\n`;
  return out;
}

/** The append-only state log of one data directory. */
export class DevchainStore {
  private fd: number;
  private bytesSinceCompaction = 0;
  private compactedBytes = 0;

  private constructor(
    private readonly path: string,
    private readonly maxTransactions: number,
    private readonly lock: DataDirLock,
  ) {
    this.fd = openSync(path, 'a');
  }

  /**
   * Locks `dir` (DataDirLockedError when another process holds it), opens (creating if
   * needed) the log under it and reads what it holds. A torn last
   * line (a crash mid-append) is ignored. Keeps the newest `maxTransactions` records.
   */
  static open(dir: string, maxTransactions: number): { store: DevchainStore; state: StoredState } {
    // Before anything is read: a second process on this directory would compact the log
    // under the first and lose what it confirms afterwards.
    const lock = lockDataDir(dir);
    try {
      return DevchainStore.openLocked(dir, maxTransactions, lock);
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  private static openLocked(dir: string, maxTransactions: number, lock: DataDirLock): { store: DevchainStore; state: StoredState } {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, LOG_FILE);
    const state: StoredState = { keys: null, slot: null, accounts: new Map(), transactions: [] };
    if (existsSync(path)) {
      const lines = readFileSync(path, 'utf8').split('\n');
      for (const [index, text] of lines.entries()) {
        if (!text) continue;
        let line: LogLine;
        try {
          line = JSON.parse(text) as LogLine;
        } catch (error) {
          if (index >= lines.length - 2) break;
          throw new Error(`${path}: line ${index + 1} is not valid JSON: ${(error as Error).message}`);
        }
        applyLine(state, line);
      }
      if (state.transactions.length > maxTransactions) {
        state.transactions = state.transactions.slice(-maxTransactions);
      }
    }
    return { store: new DevchainStore(path, maxTransactions, lock), state };
  }

  /** Appends one change set (synchronously; it is in the file when this returns). */
  append(change: {
    slot?: number;
    accounts?: Iterable<StoredAccount | { address: string; closed: true }>;
    transaction?: TransactionRecord;
    keys?: DevchainKeys;
  }): void {
    const lines: LogLine[] = [];
    if (change.keys) lines.push({ t: 'keys', ...change.keys });
    if (change.slot !== undefined) lines.push({ t: 'slot', slot: change.slot });
    for (const account of change.accounts ?? []) {
      lines.push('closed' in account ? { t: 'closed', address: account.address } : accountLine(account));
    }
    if (change.transaction) lines.push({ t: 'tx', record: change.transaction });
    if (lines.length === 0) return;
    const text = serialize(lines);
    writeSync(this.fd, text);
    this.bytesSinceCompaction += Buffer.byteLength(text);
  }

  /** Whether the log has grown enough since the last compaction to be worth rewriting. */
  get needsCompaction(): boolean {
    return this.bytesSinceCompaction > Math.max(COMPACT_MIN_BYTES, 4 * this.compactedBytes);
  }

  /** Rewrites the log as `snapshot` (atomically: a temporary file renamed over it). */
  compact(snapshot: StateSnapshot): void {
    const lines: LogLine[] = [
      { t: 'keys', ...snapshot.keys },
      { t: 'slot', slot: snapshot.slot },
    ];
    for (const account of snapshot.accounts) lines.push(accountLine(account));
    const transactions = [...snapshot.transactions].slice(-this.maxTransactions);
    for (const record of transactions) lines.push({ t: 'tx', record });
    const temporary = `${this.path}.tmp`;
    const fd = openSync(temporary, 'w');
    try {
      writeSync(fd, serialize(lines));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    closeSync(this.fd);
    renameSync(temporary, this.path);
    this.fd = openSync(this.path, 'a');
    this.compactedBytes = statSync(this.path).size;
    this.bytesSinceCompaction = 0;
  }

  /** Flushes to disk and closes the file. */
  close(): void {
    try {
      fsyncSync(this.fd);
      closeSync(this.fd);
    } finally {
      this.lock.release();
    }
  }
}

function applyLine(state: StoredState, line: LogLine): void {
  switch (line.t) {
    case 'keys': {
      const { t: _t, ...keys } = line;
      state.keys = keys;
      return;
    }
    case 'slot':
      state.slot = Math.max(state.slot ?? 0, line.slot);
      return;
    case 'account':
      state.accounts.set(line.address, {
        address: line.address,
        lamports: BigInt(line.lamports),
        owner: line.owner,
        executable: line.executable,
        data: Buffer.from(line.data, 'base64'),
      });
      return;
    case 'closed':
      state.accounts.delete(line.address);
      return;
    case 'tx':
      state.transactions.push(line.record);
      state.slot = Math.max(state.slot ?? 0, line.record.slot);
      return;
  }
}
