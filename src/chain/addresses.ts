import { getAssociatedTokenAddressSync, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';

/**
 * Every address the service derives, in one place (docs/onchain.md describes the same
 * derivations so another implementation can verify them). Only standard programs are used.
 */
export const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

/** A record id (UUID) in the 22-character base58 form used in seeds (seeds are at most 32 bytes). */
export function compactId(uuid: string): string {
  return bs58.encode(Buffer.from(uuid.replace(/-/g, ''), 'hex'));
}

/** The create-with-seed seed of a pool vault: `pool:` + the pool id in compact form. */
export const poolVaultSeed = (poolId: string) => `pool:${compactId(poolId)}`;
/** The create-with-seed seed of a streak accumulator: `streak:` + the streak id in compact form. */
export const streakAccumulatorSeed = (streakId: string) => `streak:${compactId(streakId)}`;

/** A pool's vault: a token account of the stake mint, owned by the custody key, at createWithSeed(custody, seed, Token program). */
export function poolVaultAddress(custody: PublicKey, poolId: string): Promise<PublicKey> {
  return PublicKey.createWithSeed(custody, poolVaultSeed(poolId), TOKEN_PROGRAM_ID);
}

/** A streak's accumulator: like a pool vault, with the streak seed. */
export function streakAccumulatorAddress(custody: PublicKey, streakId: string): Promise<PublicKey> {
  return PublicKey.createWithSeed(custody, streakAccumulatorSeed(streakId), TOKEN_PROGRAM_ID);
}

/**
 * A prediction's account: the program-derived address of (pool vault, predictor token
 * account) under the Memo program, with its bump. No account is created there; the address
 * names the prediction on-chain and in every memo that concerns it.
 */
export function predictionAddress(poolVault: PublicKey, predictorAccount: PublicKey): { address: PublicKey; bump: number } {
  const [address, bump] = PublicKey.findProgramAddressSync(
    [Buffer.from('prediction'), poolVault.toBuffer(), predictorAccount.toBuffer()],
    MEMO_PROGRAM_ID,
  );
  return { address, bump };
}

/**
 * A wallet's token account of the stake mint: its associated token account. An owner off the
 * ed25519 curve (no key can sign for it: a program address, or an address recorded without
 * its wallet) is refused unless `ownerOffCurve`, for reads that only look.
 */
export function userTokenAccount(mint: PublicKey, owner: PublicKey, ownerOffCurve = false): PublicKey {
  return getAssociatedTokenAddressSync(mint, owner, ownerOffCurve);
}
