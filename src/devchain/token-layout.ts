/**
 * SPL Token (and the Token-2022 base layout) account and mint decoding, and the shapes
 * the RPC answers with: `UiTokenAmount` and the `jsonParsed` account data.
 */
import bs58 from 'bs58';

/** The SPL Token program. */
export const TOKEN_PROGRAM_ID = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
/** The Token-2022 program (base layouts only; extensions are not parsed). */
export const TOKEN_2022_PROGRAM_ID = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

const ACCOUNT_LENGTH = 165;
const MINT_LENGTH = 82;
const ACCOUNT_TYPE_OFFSET = 165;
const ACCOUNT_TYPE_MINT = 1;
const ACCOUNT_TYPE_ACCOUNT = 2;

/** Whether `programId` is one of the two token programs. */
export function isTokenProgram(programId: string): boolean {
  return programId === TOKEN_PROGRAM_ID || programId === TOKEN_2022_PROGRAM_ID;
}

/** A decoded token account. */
export interface TokenAccountState {
  mint: string;
  owner: string;
  amount: bigint;
  delegate: string | null;
  state: 'uninitialized' | 'initialized' | 'frozen';
  /** Rent-exempt reserve of a wrapped-SOL account, else null. */
  isNative: bigint | null;
  delegatedAmount: bigint;
  closeAuthority: string | null;
}

/** A decoded mint. */
export interface MintState {
  mintAuthority: string | null;
  supply: bigint;
  decimals: number;
  isInitialized: boolean;
  freezeAuthority: string | null;
}

/** `UiTokenAmount` as the RPC reports it. */
export interface UiTokenAmount {
  amount: string;
  decimals: number;
  uiAmount: number | null;
  uiAmountString: string;
}

function view(data: Uint8Array): DataView {
  return new DataView(data.buffer, data.byteOffset, data.byteLength);
}

function optionalAddress(data: Uint8Array, offset: number): string | null {
  return view(data).getUint32(offset, true) === 1 ? bs58.encode(data.subarray(offset + 4, offset + 36)) : null;
}

function isAccountLayout(data: Uint8Array): boolean {
  if (data.length === ACCOUNT_LENGTH) return true;
  return data.length > ACCOUNT_LENGTH && data[ACCOUNT_TYPE_OFFSET] === ACCOUNT_TYPE_ACCOUNT;
}

function isMintLayout(data: Uint8Array): boolean {
  if (data.length === MINT_LENGTH) return true;
  return data.length > ACCOUNT_LENGTH && data[ACCOUNT_TYPE_OFFSET] === ACCOUNT_TYPE_MINT;
}

/** Decodes a token account owned by `programOwner`; null when it is not an initialized-layout token account. */
export function decodeTokenAccount(programOwner: string, data: Uint8Array): TokenAccountState | null {
  if (!isTokenProgram(programOwner) || !isAccountLayout(data)) return null;
  const dv = view(data);
  const stateByte = data[108]!;
  if (stateByte > 2) return null;
  return {
    mint: bs58.encode(data.subarray(0, 32)),
    owner: bs58.encode(data.subarray(32, 64)),
    amount: dv.getBigUint64(64, true),
    delegate: optionalAddress(data, 72),
    state: (['uninitialized', 'initialized', 'frozen'] as const)[stateByte]!,
    isNative: dv.getUint32(109, true) === 1 ? dv.getBigUint64(113, true) : null,
    delegatedAmount: dv.getBigUint64(121, true),
    closeAuthority: optionalAddress(data, 129),
  };
}

/** Decodes a mint owned by `programOwner`; null when the data is not a mint. */
export function decodeMint(programOwner: string, data: Uint8Array): MintState | null {
  if (!isTokenProgram(programOwner) || !isMintLayout(data)) return null;
  const dv = view(data);
  return {
    mintAuthority: optionalAddress(data, 0),
    supply: dv.getBigUint64(36, true),
    decimals: data[44]!,
    isInitialized: data[45] === 1,
    freezeAuthority: optionalAddress(data, 46),
  };
}

/** `amount` base units as a decimal string with `decimals` places, trailing zeros trimmed ("1.5", "0"). */
export function formatTokenAmount(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const digits = amount.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, -decimals);
  const fraction = digits.slice(-decimals).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/** The RPC's `UiTokenAmount` for `amount` base units. */
export function uiTokenAmount(amount: bigint, decimals: number): UiTokenAmount {
  const uiAmountString = formatTokenAmount(amount, decimals);
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

/**
 * The `jsonParsed` form of a token program account, or null when it is neither a token
 * account nor a mint (the caller then falls back to base64, as the RPC does).
 * `decimalsOf` looks up a mint's decimals; a token account whose mint is unknown is not parsed.
 */
export function parseTokenProgramAccount(
  programOwner: string,
  data: Uint8Array,
  decimalsOf: (mint: string) => number | null,
): { program: string; parsed: unknown; space: number } | null {
  const program = programOwner === TOKEN_PROGRAM_ID ? 'spl-token' : 'spl-token-2022';
  const account = decodeTokenAccount(programOwner, data);
  if (account && account.state !== 'uninitialized') {
    const decimals = decimalsOf(account.mint);
    if (decimals === null) return null;
    const info: Record<string, unknown> = {
      isNative: account.isNative !== null,
      mint: account.mint,
      owner: account.owner,
      state: account.state,
      tokenAmount: uiTokenAmount(account.amount, decimals),
    };
    if (account.delegate) {
      info.delegate = account.delegate;
      info.delegatedAmount = uiTokenAmount(account.delegatedAmount, decimals);
    }
    if (account.isNative !== null) info.rentExemptReserve = uiTokenAmount(account.isNative, 9);
    if (account.closeAuthority) info.closeAuthority = account.closeAuthority;
    return { program, parsed: { info, type: 'account' }, space: data.length };
  }
  const mint = decodeMint(programOwner, data);
  if (mint && mint.isInitialized) {
    return {
      program,
      parsed: {
        info: {
          decimals: mint.decimals,
          freezeAuthority: mint.freezeAuthority,
          isInitialized: mint.isInitialized,
          mintAuthority: mint.mintAuthority,
          supply: mint.supply.toString(),
        },
        type: 'mint',
      },
      space: data.length,
    };
  }
  return null;
}
