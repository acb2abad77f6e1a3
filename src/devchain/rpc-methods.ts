// Over 300 lines: one table of the Solana JSON-RPC methods the devchain answers, each a few lines, kept together as a validator's API reference is.
/**
 * The Solana JSON-RPC methods the devchain answers, with the request parameters and the
 * response shapes of a validator's RPC (so @solana/web3.js and @solana/kit clients parse
 * them unchanged), plus the devchain's own `devchain_*` methods. Transport-agnostic: see
 * `rpc-server.ts` for HTTP and websockets.
 */
import bs58 from 'bs58';
import { LAMPORTS_PER_SIGNATURE, STAKE_MINT_DECIMALS, type AccountState, type DevChain, type ExecutionReport } from './chain.js';
import { decodeTokenAccount, isTokenProgram, parseTokenProgramAccount, uiTokenAmount, decodeMint } from './token-layout.js';
import type { TransactionRecord } from './transaction-record.js';
import {
  decodeWireMessage,
  decodeWireTransaction,
  isStaticKeyWritable,
  MAX_TRANSACTION_BYTES,
  WireFormatError,
  type WireTransaction,
} from './wire.js';

/** JSON-RPC 2.0 and Solana RPC error codes the devchain answers with. */
export const RpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** sendTransaction: the preflight simulation failed (data: the simulation result). */
  SendTransactionPreflightFailure: -32002,
  TransactionSignatureVerificationFailure: -32003,
  UnsupportedTransactionVersion: -32015,
  MinContextSlotNotReached: -32016,
} as const;

/** A JSON-RPC error response (`{ code, message, data? }`). */
export class RpcError extends Error {
  override name = 'RpcError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** A method: takes the request's `params` (positional array or named object), returns `result`. */
export type RpcMethod = (params: unknown) => unknown;

/** Version the devchain reports as `solana-core`: the agave line LiteSVM 1.5 is built on. */
const REPORTED_CORE_VERSION = '3.0.0';
const MAX_MULTIPLE_ACCOUNTS = 100;
const MAX_SIGNATURE_STATUSES = 256;
const MAX_BASE58_ACCOUNT_BYTES = 128;
const SLOTS_PER_EPOCH = 432_000;
const BASE64_PATTERN = /^[A-Za-z0-9+/]*={0,2}$/;

type Config = Record<string, unknown>;

function invalidParams(message: string): RpcError {
  return new RpcError(RpcErrorCode.InvalidParams, message);
}

function positional(params: unknown): unknown[] {
  if (params === undefined || params === null) return [];
  if (Array.isArray(params)) return params;
  throw invalidParams('Invalid params: expected an array of parameters');
}

function configAt(params: unknown[], index: number): Config {
  const value = params[index];
  if (value === undefined || value === null) return {};
  if (typeof value === 'object' && !Array.isArray(value)) return value as Config;
  throw invalidParams(`Invalid params: parameter ${index} must be a configuration object`);
}

function addressAt(params: unknown[], index: number): string {
  return parseAddress(params[index]);
}

function parseAddress(value: unknown): string {
  if (typeof value !== 'string') throw invalidParams('Invalid params: expected a base58 address string');
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(value);
  } catch {
    throw invalidParams('Invalid param: Invalid');
  }
  if (bytes.length !== 32) throw invalidParams('Invalid param: WrongSize');
  return value;
}

function parseSignature(value: unknown): string {
  if (typeof value !== 'string') throw invalidParams('Invalid params: expected a base58 signature string');
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(value);
  } catch {
    throw invalidParams(`Invalid param: Invalid`);
  }
  if (bytes.length !== 64) throw invalidParams('Invalid param: WrongSize');
  return value;
}

function nonNegativeInteger(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalidParams(`Invalid params: ${what} must be a non-negative integer`);
  }
  return value;
}

function optionalBoolean(config: Config, key: string): boolean {
  const value = config[key];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw invalidParams(`Invalid params: ${key} must be a boolean`);
  return value;
}

function optionalString(config: Config, key: string): string | undefined {
  const value = config[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalidParams(`Invalid params: ${key} must be a string`);
  return value;
}

function decodeBinary(encoded: unknown, encoding: string, what: string): Uint8Array {
  if (typeof encoded !== 'string') throw invalidParams(`Invalid params: ${what} must be a string`);
  if (encoding === 'base64') {
    if (encoded.length % 4 !== 0 || !BASE64_PATTERN.test(encoded)) {
      throw invalidParams(`invalid base64 encoding: ${what} is not valid base64`);
    }
    return Buffer.from(encoded, 'base64');
  }
  if (encoding === 'base58') {
    try {
      return bs58.decode(encoded);
    } catch {
      throw invalidParams(`invalid base58 encoding: ${what} is not valid base58`);
    }
  }
  throw invalidParams(`Invalid params: unsupported encoding ${encoding}; use base64 or base58`);
}

/** The wire transaction of a sendTransaction / simulateTransaction request. */
function transactionParam(encoded: unknown, config: Config): WireTransaction {
  const encoding = optionalString(config, 'encoding') ?? 'base58';
  const bytes = decodeBinary(encoded, encoding, 'transaction');
  if (bytes.length > MAX_TRANSACTION_BYTES) {
    const maxEncoded = encoding === 'base64' ? 1644 : 1683;
    throw invalidParams(
      `${encoding} encoded solana_transaction::versioned::VersionedTransaction too large: ${bytes.length} bytes ` +
        `(max: encoded/raw ${maxEncoded}/${MAX_TRANSACTION_BYTES})`,
    );
  }
  try {
    return decodeWireTransaction(bytes);
  } catch (error) {
    if (error instanceof WireFormatError) {
      throw invalidParams(`failed to deserialize solana_transaction::versioned::VersionedTransaction: ${error.message}`);
    }
    throw error;
  }
}

/** Encodes an account the way `getAccountInfo` and its relatives do. */
export function encodeAccount(chain: DevChain, account: AccountState, config: Config): Record<string, unknown> {
  const encoding = optionalString(config, 'encoding') ?? 'binary';
  const slice = config.dataSlice as { offset?: unknown; length?: unknown } | undefined;
  let data: Uint8Array = account.data;
  if (slice && encoding !== 'jsonParsed') {
    const offset = nonNegativeInteger(slice.offset, 'dataSlice.offset');
    const length = nonNegativeInteger(slice.length, 'dataSlice.length');
    data = data.subarray(offset, offset + length);
  }
  const base = {
    executable: account.executable,
    lamports: Number(account.lamports),
    owner: account.owner,
    rentEpoch: Number(account.rentEpoch),
    space: account.data.length,
  };
  const base64 = (): [string, 'base64'] => [Buffer.from(data).toString('base64'), 'base64'];
  const base58 = (): string => {
    if (data.length > MAX_BASE58_ACCOUNT_BYTES) {
      throw invalidParams('Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.');
    }
    return bs58.encode(data);
  };
  switch (encoding) {
    case 'base64':
      return { ...base, data: base64() };
    case 'base58':
      return { ...base, data: [base58(), 'base58'] };
    case 'binary':
      return { ...base, data: base58() };
    case 'jsonParsed': {
      const parsed = isTokenProgram(account.owner)
        ? parseTokenProgramAccount(account.owner, account.data, (mint) => chain.mintDecimals(mint))
        : null;
      return { ...base, data: parsed ?? base64() };
    }
    default:
      throw invalidParams(`Invalid params: unsupported account encoding ${encoding}`);
  }
}

function preflightFailure(report: ExecutionReport): RpcError {
  return new RpcError(
    RpcErrorCode.SendTransactionPreflightFailure,
    `Transaction simulation failed: ${report.err?.text ?? 'unknown error'}`,
    {
      accounts: null,
      err: report.err?.json ?? null,
      innerInstructions: null,
      logs: report.logs,
      replacementBlockhash: null,
      returnData: report.returnData,
      unitsConsumed: report.unitsConsumed,
    },
  );
}

function signatureVerificationFailure(): RpcError {
  return new RpcError(RpcErrorCode.TransactionSignatureVerificationFailure, 'Transaction signature verification failure');
}

/** A named-or-positional parameter of the `devchain_*` methods. */
function namedParam(params: unknown, name: string, index: number): unknown {
  if (Array.isArray(params)) {
    const first = params[0];
    if (params.length === 1 && first && typeof first === 'object' && !Array.isArray(first)) {
      return (first as Config)[name];
    }
    return params[index];
  }
  if (params && typeof params === 'object') return (params as Config)[name];
  return undefined;
}

function baseUnits(value: unknown, what: string): bigint {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !/^[0-9]{1,20}$/.test(text)) {
    throw invalidParams(`Invalid params: ${what} must be a string of base units (digits only)`);
  }
  const amount = BigInt(text);
  if (amount <= 0n || amount >= 1n << 64n) throw invalidParams(`Invalid params: ${what} must be a positive u64`);
  return amount;
}

/** The method table (name -> handler) over `chain`. */
export function createRpcMethods(chain: DevChain): Map<string, RpcMethod> {
  const context = () => ({ apiVersion: REPORTED_CORE_VERSION, slot: chain.slot });
  const withContext = (value: unknown) => ({ context: context(), value });
  const checkMinContextSlot = (config: Config): void => {
    const minContextSlot = config.minContextSlot;
    if (minContextSlot === undefined || minContextSlot === null) return;
    if (nonNegativeInteger(minContextSlot, 'minContextSlot') > chain.slot) {
      throw new RpcError(RpcErrorCode.MinContextSlotNotReached, 'Minimum context slot has not been reached', {
        contextSlot: chain.slot,
      });
    }
  };
  const accountValue = (address: string, config: Config) => {
    const account = chain.getAccount(address);
    return account ? encodeAccount(chain, account, config) : null;
  };
  const tokenAccount = (address: string) => {
    const account = chain.getAccount(address);
    if (!account) throw invalidParams('Invalid param: could not find account');
    const token = decodeTokenAccount(account.owner, account.data);
    if (!token) throw invalidParams('Invalid param: not a Token account');
    const decimals = chain.mintDecimals(token.mint);
    if (decimals === null) throw invalidParams('Invalid param: could not find mint');
    return { token, decimals };
  };

  const methods: Record<string, RpcMethod> = {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': REPORTED_CORE_VERSION, 'feature-set': 0, devchain: 'litesvm 1.5.0' }),
    getGenesisHash: () => chain.genesisHash,
    getIdentity: () => ({ identity: chain.faucetAddress }),

    getSlot: (params) => {
      checkMinContextSlot(configAt(positional(params), 0));
      return chain.slot;
    },
    getBlockHeight: (params) => {
      checkMinContextSlot(configAt(positional(params), 0));
      return chain.blockHeight;
    },
    getEpochInfo: (params) => {
      checkMinContextSlot(configAt(positional(params), 0));
      return {
        absoluteSlot: chain.slot,
        blockHeight: chain.blockHeight,
        epoch: Math.floor(chain.slot / SLOTS_PER_EPOCH),
        slotIndex: chain.slot % SLOTS_PER_EPOCH,
        slotsInEpoch: SLOTS_PER_EPOCH,
        transactionCount: chain.transactionCount,
      };
    },
    getEpochSchedule: () => ({
      firstNormalEpoch: 0,
      firstNormalSlot: 0,
      leaderScheduleSlotOffset: SLOTS_PER_EPOCH,
      slotsPerEpoch: SLOTS_PER_EPOCH,
      warmup: false,
    }),

    getLatestBlockhash: (params) => {
      checkMinContextSlot(configAt(positional(params), 0));
      return withContext(chain.latestBlockhash());
    },
    getRecentBlockhash: () =>
      withContext({
        blockhash: chain.latestBlockhash().blockhash,
        feeCalculator: { lamportsPerSignature: LAMPORTS_PER_SIGNATURE },
      }),
    isBlockhashValid: (params) => {
      const list = positional(params);
      const blockhash = list[0];
      if (typeof blockhash !== 'string') throw invalidParams('Invalid params: expected a blockhash string');
      checkMinContextSlot(configAt(list, 1));
      return withContext(chain.isBlockhashValid(blockhash));
    },
    getFeeForMessage: (params) => {
      const list = positional(params);
      checkMinContextSlot(configAt(list, 1));
      const bytes = decodeBinary(list[0], 'base64', 'message');
      try {
        return withContext(chain.feeForMessage(decodeWireMessage(bytes)));
      } catch (error) {
        if (error instanceof WireFormatError) throw invalidParams(`invalid message: ${error.message}`);
        throw error;
      }
    },
    getRecentPrioritizationFees: () => [],
    getMinimumBalanceForRentExemption: (params) => {
      const list = positional(params);
      return Number(chain.minimumBalanceForRentExemption(nonNegativeInteger(list[0] ?? 0, 'data length')));
    },

    getBalance: (params) => {
      const list = positional(params);
      const address = addressAt(list, 0);
      checkMinContextSlot(configAt(list, 1));
      return withContext(Number(chain.getBalance(address)));
    },
    getAccountInfo: (params) => {
      const list = positional(params);
      const address = addressAt(list, 0);
      const config = configAt(list, 1);
      checkMinContextSlot(config);
      return withContext(accountValue(address, config));
    },
    getMultipleAccounts: (params) => {
      const list = positional(params);
      const addresses = list[0];
      if (!Array.isArray(addresses)) throw invalidParams('Invalid params: expected an array of addresses');
      if (addresses.length > MAX_MULTIPLE_ACCOUNTS) {
        throw invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
      }
      const config = configAt(list, 1);
      checkMinContextSlot(config);
      const parsed = addresses.map(parseAddress);
      return withContext(parsed.map((address) => accountValue(address, config)));
    },
    getTokenAccountBalance: (params) => {
      const list = positional(params);
      const address = addressAt(list, 0);
      checkMinContextSlot(configAt(list, 1));
      const { token, decimals } = tokenAccount(address);
      return withContext(uiTokenAmount(token.amount, decimals));
    },
    getTokenSupply: (params) => {
      const list = positional(params);
      const address = addressAt(list, 0);
      const account = chain.getAccount(address);
      const mint = account && decodeMint(account.owner, account.data);
      if (!mint) throw invalidParams('Invalid param: not a Token mint');
      return withContext(uiTokenAmount(mint.supply, mint.decimals));
    },
    getTokenAccountsByOwner: (params) => {
      const list = positional(params);
      const owner = addressAt(list, 0);
      const filter = configAt(list, 1);
      const config = configAt(list, 2);
      checkMinContextSlot(config);
      let programId: string;
      let mint: string | undefined;
      if (filter.mint !== undefined) {
        mint = parseAddress(filter.mint);
        const mintAccount = chain.getAccount(mint);
        if (!mintAccount || !isTokenProgram(mintAccount.owner)) throw invalidParams('Invalid param: could not find mint');
        programId = mintAccount.owner;
      } else if (filter.programId !== undefined) {
        programId = parseAddress(filter.programId);
        if (!isTokenProgram(programId)) throw invalidParams(`Invalid param: unrecognized Token program id`);
      } else {
        throw invalidParams('Invalid params: expected a filter with mint or programId');
      }
      const accounts = chain.tokenAccountsByOwner(owner, { mint, programId });
      return withContext(accounts.map(({ address, account }) => ({ pubkey: address, account: encodeAccount(chain, account, config) })));
    },

    sendTransaction: (params) => {
      const list = positional(params);
      const config = configAt(list, 1);
      checkMinContextSlot(config);
      const transaction = transactionParam(list[0], config);
      const outcome = chain.sendTransaction(transaction, { skipPreflight: optionalBoolean(config, 'skipPreflight') });
      if (outcome.kind === 'rejected') {
        throw outcome.signatureFailure ? signatureVerificationFailure() : preflightFailure(outcome.report);
      }
      return outcome.signature;
    },
    simulateTransaction: (params) => {
      const list = positional(params);
      const config = configAt(list, 1);
      checkMinContextSlot(config);
      const sigVerify = optionalBoolean(config, 'sigVerify');
      const replaceRecentBlockhash = optionalBoolean(config, 'replaceRecentBlockhash');
      if (sigVerify && replaceRecentBlockhash) {
        throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
      }
      const transaction = transactionParam(list[0], config);
      const accountsConfig = config.accounts as { addresses?: unknown; encoding?: unknown } | undefined | null;
      const addresses = accountsConfig?.addresses;
      if (addresses !== undefined && !Array.isArray(addresses)) {
        throw invalidParams('Invalid params: accounts.addresses must be an array');
      }
      const outcome = chain.simulateTransaction(transaction, {
        sigVerify,
        replaceRecentBlockhash,
        accounts: addresses?.map(parseAddress),
      });
      if (outcome.signatureFailure) throw signatureVerificationFailure();
      const accountEncoding = { encoding: accountsConfig?.encoding ?? 'base64' };
      return withContext({
        accounts: outcome.accounts?.map((account) => (account ? encodeAccount(chain, account, accountEncoding) : null)) ?? null,
        err: outcome.err?.json ?? null,
        innerInstructions: null,
        logs: outcome.logs,
        replacementBlockhash: outcome.replacementBlockhash,
        returnData: outcome.returnData,
        unitsConsumed: outcome.unitsConsumed,
      });
    },
    getSignatureStatuses: (params) => {
      const list = positional(params);
      const signatures = list[0];
      if (!Array.isArray(signatures)) throw invalidParams('Invalid params: expected an array of signatures');
      if (signatures.length > MAX_SIGNATURE_STATUSES) {
        throw invalidParams(`Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
      }
      const search = optionalBoolean(configAt(list, 1), 'searchTransactionHistory');
      return withContext(signatures.map((signature) => chain.signatureStatus(parseSignature(signature), search)));
    },
    getTransaction: (params) => {
      const list = positional(params);
      const signature = parseSignature(list[0]);
      const config: Config = typeof list[1] === 'string' ? { encoding: list[1] } : configAt(list, 1);
      const record = chain.getTransaction(signature);
      return record ? encodeTransaction(record, config) : null;
    },
    requestAirdrop: (params) => {
      const list = positional(params);
      const address = addressAt(list, 0);
      const lamports = list[1];
      if (typeof lamports !== 'number' || !Number.isSafeInteger(lamports) || lamports <= 0) {
        throw invalidParams('Invalid params: lamports must be a positive integer');
      }
      return chain.airdrop(address, BigInt(lamports));
    },

    devchain_info: () => ({
      stakeMint: chain.stakeMint,
      stakeMintDecimals: STAKE_MINT_DECIMALS,
      mintAuthority: chain.mintAuthorityAddress,
      faucet: chain.faucetAddress,
      slot: chain.slot,
    }),
    devchain_mintTokens: (params) => {
      const owner = parseAddress(namedParam(params, 'owner', 0));
      const amount = baseUnits(namedParam(params, 'amount', 1), 'amount');
      const { signature, tokenAccount } = chain.mintTokens(owner, amount);
      return { signature, tokenAccount, mint: chain.stakeMint, amount: amount.toString() };
    },
    devchain_advanceSlots: (params) => {
      const slots = namedParam(params, 'slots', 0) ?? 1;
      const count = nonNegativeInteger(slots, 'slots');
      if (count > 100_000) throw invalidParams('Invalid params: slots must be at most 100000');
      chain.advanceSlots(count);
      return { slot: chain.slot, ...chain.latestBlockhash() };
    },
  };
  return new Map(Object.entries(methods));
}

/** `getTransaction`'s result for a record, in the requested encoding. */
function encodeTransaction(record: TransactionRecord, config: Config): Record<string, unknown> {
  const encoding = optionalString(config, 'encoding') ?? 'json';
  const maxVersion = config.maxSupportedTransactionVersion;
  const bytes = Buffer.from(record.transaction, 'base64');
  const transaction = decodeWireTransaction(bytes);
  const { message } = transaction;
  if (message.version === 0 && (maxVersion === undefined || maxVersion === null)) {
    throw new RpcError(
      RpcErrorCode.UnsupportedTransactionVersion,
      'Transaction version (0) is not supported by the requesting client. Please try the request again with the ' +
        'following configuration parameter: "maxSupportedTransactionVersion": 0',
    );
  }
  const staticKeys = message.staticAccountKeys.map((key) => bs58.encode(key));
  const allKeys = [...staticKeys, ...record.loadedAddresses.writable, ...record.loadedAddresses.readonly];
  const lookups = message.addressTableLookups.map((lookup) => ({
    accountKey: bs58.encode(lookup.accountKey),
    writableIndexes: lookup.writableIndexes,
    readonlyIndexes: lookup.readonlyIndexes,
  }));
  const meta: Record<string, unknown> = {
    computeUnitsConsumed: record.computeUnitsConsumed,
    err: record.err,
    fee: record.fee,
    innerInstructions: record.innerInstructions,
    loadedAddresses: record.loadedAddresses,
    logMessages: record.logs,
    postBalances: record.postBalances,
    postTokenBalances: record.postTokenBalances,
    preBalances: record.preBalances,
    preTokenBalances: record.preTokenBalances,
    rewards: [],
    status: record.err === null ? { Ok: null } : { Err: record.err },
  };
  if (record.returnData) meta.returnData = record.returnData;
  let encoded: unknown;
  switch (encoding) {
    case 'base64':
      encoded = [record.transaction, 'base64'];
      break;
    case 'base58':
      encoded = [bs58.encode(bytes), 'base58'];
      break;
    case 'json':
      encoded = {
        signatures: transaction.signatures.map((signature) => bs58.encode(signature)),
        message: {
          accountKeys: staticKeys,
          header: message.header,
          recentBlockhash: bs58.encode(message.recentBlockhash),
          instructions: message.instructions.map((instruction) => ({
            accounts: instruction.accounts,
            data: bs58.encode(instruction.data),
            programIdIndex: instruction.programIdIndex,
            stackHeight: null,
          })),
          ...(message.version === 0 ? { addressTableLookups: lookups } : {}),
        },
      };
      break;
    case 'jsonParsed': {
      // Instructions are reported partially decoded, as a validator does for programs it
      // has no parser for.
      const signerCount = message.header.numRequiredSignatures;
      const accountKeys = allKeys.map((pubkey, index) => ({
        pubkey,
        signer: index < signerCount,
        source: index < staticKeys.length ? 'transaction' : 'lookupTable',
        writable:
          index < staticKeys.length
            ? isStaticKeyWritable(message, index)
            : index < staticKeys.length + record.loadedAddresses.writable.length,
      }));
      const partiallyDecoded = (programIdIndex: number, accounts: number[], data: string, stackHeight: number | null) => ({
        accounts: accounts.map((index) => allKeys[index]),
        data,
        programId: allKeys[programIdIndex],
        stackHeight,
      });
      encoded = {
        signatures: transaction.signatures.map((signature) => bs58.encode(signature)),
        message: {
          accountKeys,
          recentBlockhash: bs58.encode(message.recentBlockhash),
          instructions: message.instructions.map((instruction) =>
            partiallyDecoded(instruction.programIdIndex, instruction.accounts, bs58.encode(instruction.data), null),
          ),
          ...(message.version === 0 ? { addressTableLookups: lookups } : {}),
        },
      };
      meta.innerInstructions = record.innerInstructions.map((inner) => ({
        index: inner.index,
        instructions: inner.instructions.map((entry) =>
          partiallyDecoded(entry.programIdIndex, entry.accounts, entry.data, entry.stackHeight),
        ),
      }));
      break;
    }
    default:
      throw invalidParams(`Invalid params: unsupported transaction encoding ${encoding}`);
  }
  const result: Record<string, unknown> = {
    blockTime: record.blockTime,
    meta,
    slot: record.slot,
    transaction: encoded,
  };
  if (maxVersion !== undefined && maxVersion !== null) result.version = message.version;
  return result;
}
