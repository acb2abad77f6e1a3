/**
 * The Solana transaction wire format (legacy and v0), decoded just far enough for the
 * devchain to check, route and report a transaction the way a validator's RPC does.
 */

/** Largest serialized transaction a validator accepts (`PACKET_DATA_SIZE`). */
export const MAX_TRANSACTION_BYTES = 1232;

const SIGNATURE_BYTES = 64;
const ADDRESS_BYTES = 32;
const VERSION_PREFIX_MASK = 0x80;

/** A wire transaction or message that cannot be decoded; the message says what is wrong. */
export class WireFormatError extends Error {
  override name = 'WireFormatError';
}

/** The three counts at the start of every message that give each account key its role. */
export interface MessageHeader {
  numRequiredSignatures: number;
  numReadonlySignedAccounts: number;
  numReadonlyUnsignedAccounts: number;
}

/** A compiled instruction: indexes into the message's full account key list. */
export interface CompiledInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
}

/** A v0 address table lookup. */
export interface AddressTableLookup {
  accountKey: Uint8Array;
  writableIndexes: number[];
  readonlyIndexes: number[];
}

/** A decoded transaction message. */
export interface WireMessage {
  /** The exact serialized message (what the signatures sign). */
  bytes: Uint8Array;
  version: 'legacy' | 0;
  header: MessageHeader;
  staticAccountKeys: Uint8Array[];
  recentBlockhash: Uint8Array;
  /** Offset of the recent blockhash inside {@link WireMessage.bytes}. */
  recentBlockhashOffset: number;
  instructions: CompiledInstruction[];
  addressTableLookups: AddressTableLookup[];
}

/** A decoded transaction: its signatures and its message. */
export interface WireTransaction {
  /** The exact wire bytes. */
  bytes: Uint8Array;
  signatures: Uint8Array[];
  message: WireMessage;
  /** Offset of the message inside {@link WireTransaction.bytes}. */
  messageOffset: number;
}

class Reader {
  offset = 0;
  constructor(private readonly bytes: Uint8Array) {}

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  u8(what: string): number {
    if (this.remaining < 1) throw new WireFormatError(`unexpected end of data reading ${what}`);
    return this.bytes[this.offset++]!;
  }

  /** Solana's "compact-u16" (shortvec) length prefix. */
  shortVec(what: string): number {
    let value = 0;
    for (let shift = 0; shift <= 14; shift += 7) {
      const byte = this.u8(what);
      value |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) {
        if (value > 0xffff) throw new WireFormatError(`${what} length overflows u16`);
        return value;
      }
    }
    throw new WireFormatError(`${what} length is not a valid compact-u16`);
  }

  take(length: number, what: string): Uint8Array {
    if (this.remaining < length) throw new WireFormatError(`unexpected end of data reading ${what}`);
    const slice = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }

  indexes(what: string): number[] {
    return Array.from(this.take(this.shortVec(what), what));
  }
}

function readMessage(reader: Reader, bytes: Uint8Array, start: number): WireMessage {
  const first = reader.u8('message prefix');
  let version: 'legacy' | 0 = 'legacy';
  let numRequiredSignatures = first;
  if (first & VERSION_PREFIX_MASK) {
    const declared = first & ~VERSION_PREFIX_MASK;
    if (declared !== 0) throw new WireFormatError(`unsupported transaction version ${declared}`);
    version = 0;
    numRequiredSignatures = reader.u8('message header');
  }
  const header: MessageHeader = {
    numRequiredSignatures,
    numReadonlySignedAccounts: reader.u8('message header'),
    numReadonlyUnsignedAccounts: reader.u8('message header'),
  };
  const keyCount = reader.shortVec('account keys');
  const staticAccountKeys: Uint8Array[] = [];
  for (let i = 0; i < keyCount; i++) staticAccountKeys.push(reader.take(ADDRESS_BYTES, 'account key'));
  const recentBlockhashOffset = reader.offset - start;
  const recentBlockhash = reader.take(ADDRESS_BYTES, 'recent blockhash');
  const instructionCount = reader.shortVec('instructions');
  const instructions: CompiledInstruction[] = [];
  for (let i = 0; i < instructionCount; i++) {
    const programIdIndex = reader.u8('program id index');
    const accounts = reader.indexes('instruction accounts');
    const data = reader.take(reader.shortVec('instruction data'), 'instruction data');
    instructions.push({ programIdIndex, accounts, data });
  }
  const addressTableLookups: AddressTableLookup[] = [];
  if (version === 0) {
    const lookupCount = reader.shortVec('address table lookups');
    for (let i = 0; i < lookupCount; i++) {
      const accountKey = reader.take(ADDRESS_BYTES, 'lookup table address');
      const writableIndexes = reader.indexes('lookup writable indexes');
      const readonlyIndexes = reader.indexes('lookup readonly indexes');
      addressTableLookups.push({ accountKey, writableIndexes, readonlyIndexes });
    }
  }
  const message: WireMessage = {
    bytes: bytes.subarray(start, reader.offset),
    version,
    header,
    staticAccountKeys,
    recentBlockhash,
    recentBlockhashOffset,
    instructions,
    addressTableLookups,
  };
  sanitizeMessage(message);
  return message;
}

/** The structural checks a validator runs before it looks at any account. */
function sanitizeMessage(message: WireMessage): void {
  const { header, staticAccountKeys, instructions, addressTableLookups } = message;
  const loadedCount = addressTableLookups.reduce((sum, lookup) => sum + lookup.writableIndexes.length + lookup.readonlyIndexes.length, 0);
  const totalKeys = staticAccountKeys.length + loadedCount;
  if (header.numRequiredSignatures === 0) throw new WireFormatError('message requires no signature');
  if (header.numRequiredSignatures + header.numReadonlyUnsignedAccounts > staticAccountKeys.length) {
    throw new WireFormatError('message header counts exceed the account keys');
  }
  if (header.numReadonlySignedAccounts >= header.numRequiredSignatures) {
    throw new WireFormatError('message has no writable signer to pay the fee');
  }
  if (totalKeys > 256) throw new WireFormatError('message references more than 256 accounts');
  for (const instruction of instructions) {
    if (instruction.programIdIndex === 0 || instruction.programIdIndex >= staticAccountKeys.length) {
      throw new WireFormatError('instruction program id index is out of range');
    }
    if (instruction.accounts.some((index) => index >= totalKeys)) {
      throw new WireFormatError('instruction account index is out of range');
    }
  }
}

/**
 * Decodes a wire transaction (signatures + message). Throws {@link WireFormatError} when
 * the bytes are not exactly one well-formed transaction.
 */
export function decodeWireTransaction(bytes: Uint8Array): WireTransaction {
  const reader = new Reader(bytes);
  const signatureCount = reader.shortVec('signatures');
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < signatureCount; i++) signatures.push(reader.take(SIGNATURE_BYTES, 'signature'));
  const messageOffset = reader.offset;
  const message = readMessage(reader, bytes, messageOffset);
  if (reader.remaining !== 0) throw new WireFormatError('trailing bytes after the message');
  if (signatures.length !== message.header.numRequiredSignatures) {
    throw new WireFormatError(
      `transaction has ${signatures.length} signatures but its message requires ${message.header.numRequiredSignatures}`,
    );
  }
  return { bytes, signatures, message, messageOffset };
}

/** Decodes a serialized message alone (as `getFeeForMessage` receives it). */
export function decodeWireMessage(bytes: Uint8Array): WireMessage {
  const reader = new Reader(bytes);
  const message = readMessage(reader, bytes, 0);
  if (reader.remaining !== 0) throw new WireFormatError('trailing bytes after the message');
  return message;
}

/** A copy of the transaction's wire bytes with another recent blockhash (signatures untouched). */
export function replaceRecentBlockhash(transaction: WireTransaction, blockhash: Uint8Array): Uint8Array {
  const copy = Uint8Array.from(transaction.bytes);
  copy.set(blockhash, transaction.messageOffset + transaction.message.recentBlockhashOffset);
  return copy;
}

/** Whether the static account key at `index` is writable under the message header. */
export function isStaticKeyWritable(message: WireMessage, index: number): boolean {
  const { numRequiredSignatures, numReadonlySignedAccounts, numReadonlyUnsignedAccounts } = message.header;
  if (index < numRequiredSignatures) return index < numRequiredSignatures - numReadonlySignedAccounts;
  return index < message.staticAccountKeys.length - numReadonlyUnsignedAccounts;
}
