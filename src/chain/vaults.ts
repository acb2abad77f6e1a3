import { ACCOUNT_SIZE, createInitializeAccount3Instruction, createTransferCheckedInstruction, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import { poolVaultSeed, streakAccumulatorSeed, userTokenAccount } from './addresses.js';
import type { ServiceKeys } from './keys.js';
import type { ChainClient } from './rpc.js';
import type { ChainAccounts } from './transactions.js';

/**
 * Creates (if missing) the custody-owned token account at createWithSeed(custody, seed):
 * the relayer funds the rent, custody signs as the seed's base. With `initialTokens`, the
 * new account also receives that many base units from custody's own token account (how a
 * devchain stocks vaults for demo data that predates it). Returns its address.
 */
async function ensureCustodyAccount(
  client: ChainClient,
  keys: ServiceKeys,
  accounts: ChainAccounts,
  seed: string,
  initialTokens = 0n,
): Promise<PublicKey> {
  const address = await PublicKey.createWithSeed(keys.custody.publicKey, seed, TOKEN_PROGRAM_ID);
  if (await client.connection.getAccountInfo(address)) return address;
  const lamports = await client.connection.getMinimumBalanceForRentExemption(ACCOUNT_SIZE);
  const recent = await client.latestBlockhash();
  const transaction = new Transaction({ feePayer: keys.relayer.publicKey, ...recent }).add(
    SystemProgram.createAccountWithSeed({
      fromPubkey: keys.relayer.publicKey,
      newAccountPubkey: address,
      basePubkey: keys.custody.publicKey,
      seed,
      lamports,
      space: ACCOUNT_SIZE,
      programId: TOKEN_PROGRAM_ID,
    }),
    createInitializeAccount3Instruction(address, accounts.mint, keys.custody.publicKey),
  );
  if (initialTokens > 0n) {
    const custodyTokens = userTokenAccount(accounts.mint, keys.custody.publicKey);
    transaction.add(
      createTransferCheckedInstruction(custodyTokens, accounts.mint, address, keys.custody.publicKey, initialTokens, accounts.decimals),
    );
  }
  transaction.sign(keys.relayer, keys.custody);
  const signature = await client.send(transaction.serialize());
  const status = await client.confirm(signature, recent.lastValidBlockHeight);
  if (!status || status.err) throw new Error(`creating the custody account ${address.toBase58()} failed`);
  return address;
}

/** A pool's vault, created on the chain (stocked with `initialTokens`) if it does not exist yet. */
export function ensurePoolVault(
  client: ChainClient,
  keys: ServiceKeys,
  accounts: ChainAccounts,
  poolId: string,
  initialTokens = 0n,
): Promise<PublicKey> {
  return ensureCustodyAccount(client, keys, accounts, poolVaultSeed(poolId), initialTokens);
}

/** A streak's accumulator, created on the chain (stocked with `initialTokens`) if it does not exist yet. */
export function ensureStreakAccumulator(
  client: ChainClient,
  keys: ServiceKeys,
  accounts: ChainAccounts,
  streakId: string,
  initialTokens = 0n,
): Promise<PublicKey> {
  return ensureCustodyAccount(client, keys, accounts, streakAccumulatorSeed(streakId), initialTokens);
}
