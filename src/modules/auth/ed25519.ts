import bs58 from 'bs58';

export { verifyEd25519 } from '../../chain/ed25519.js';

/** Decodes a base58 Solana address to its 32 public-key bytes, or null. */
export function decodeAddress(address: string): Uint8Array | null {
  try {
    const bytes = bs58.decode(address);
    return bytes.length === 32 ? bytes : null;
  } catch {
    return null;
  }
}

/** Decodes a detached signature written in base58 (as wallets do) or base64; null if neither. */
export function decodeSignature(text: string): Uint8Array | null {
  try {
    const bytes = bs58.decode(text);
    if (bytes.length === 64) return bytes;
  } catch {
    // not base58; try base64
  }
  const bytes = Buffer.from(text, 'base64');
  return bytes.length === 64 && bytes.toString('base64').replace(/=+$/, '') === text.replace(/=+$/, '') ? bytes : null;
}
