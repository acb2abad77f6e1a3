import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';

/** The service's two keys (docs/onchain.md): the relayer pays fees, custody holds vaults. */
export interface ServiceKeys {
  relayer: Keypair;
  custody: Keypair;
}

/** Reads a secret key written as a JSON byte array (Solana CLI files) or base58. */
export function parseSecretKey(text: string): Keypair {
  const trimmed = text.trim();
  const bytes = trimmed.startsWith('[') ? Uint8Array.from(JSON.parse(trimmed) as number[]) : bs58.decode(trimmed);
  if (bytes.length !== 64) throw new Error('a secret key must be 64 bytes');
  return Keypair.fromSecretKey(bytes);
}

/**
 * Keys of the embedded chain: generated on first start and kept in `file`, so a restart
 * keeps the same vault owners. Production keys come from the environment instead.
 */
export function loadOrCreateKeys(file: string): ServiceKeys {
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { relayer: number[]; custody: number[] };
    return {
      relayer: Keypair.fromSecretKey(Uint8Array.from(stored.relayer)),
      custody: Keypair.fromSecretKey(Uint8Array.from(stored.custody)),
    };
  }
  const keys = { relayer: Keypair.generate(), custody: Keypair.generate() };
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ relayer: Array.from(keys.relayer.secretKey), custody: Array.from(keys.custody.secretKey) }), {
    mode: 0o600,
  });
  return keys;
}
