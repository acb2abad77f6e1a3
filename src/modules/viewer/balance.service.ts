import { AccountLayout } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import { sql } from 'drizzle-orm';
import { resultRows } from '../../db/client.js';
import { userTokenAccount } from '../../chain/addresses.js';
import type { ServiceContext } from '../context.js';
import { requireChain } from '../transactions/submission.js';
import { AppError } from '../../errors.js';

/** A wallet's holdings as the chain reports them: the stake token (base units) and SOL (lamports). */
export interface WalletBalance {
  tokenAccount: string;
  tokenUnits: bigint;
  decimals: number;
  lamports: bigint;
  /** When the chain was read (a cached answer is at most BALANCE_CACHE_MS old, and never older than the user's last transaction). */
  readAt: Date;
}

/** How long a balance read from the chain is reused for the same wallet. */
export const BALANCE_CACHE_MS = 3000;
const MAX_CACHED_WALLETS = 10_000;

/**
 * Balances read from the chain, briefly cached per wallet, so a wallet screen polling
 * every second costs the node one read per few seconds. An entry is reused only while the
 * user's transactions through this service are unchanged (their chain_submissions, shared by
 * every replica): after a stake, withdrawal or claim the next read goes to the chain.
 */
const cache = new Map<string, { version: string; expiresAt: number; balance: WalletBalance }>();

export async function walletBalance(ctx: ServiceContext, userId: string, walletAddress: string): Promise<WalletBalance> {
  const chain = requireChain(ctx);
  const wallet = new PublicKey(walletAddress);
  // Reading only: an address off the curve (seeded, imported) has a balance to show too.
  const tokenAccount = userTokenAccount(chain.accounts.mint, wallet, true);
  const key = `${chain.client.url}|${chain.accounts.mint.toBase58()}|${walletAddress}`;
  const [{ version }] = resultRows<{ version: string }>(
    await ctx.database.db.execute(sql`
      SELECT count(*)::text || '/' || coalesce(max(updated_at)::text, '') AS version
      FROM chain_submissions WHERE user_id = ${userId}`),
  ) as [{ version: string }];
  const nowMs = Date.now();
  const cached = cache.get(key);
  if (cached && cached.version === version && cached.expiresAt > nowMs) return cached.balance;

  // One RPC call for both accounts; a token account that does not exist holds 0.
  let infos;
  try {
    infos = await chain.client.connection.getMultipleAccountsInfo([wallet, tokenAccount], 'confirmed');
  } catch (error) {
    throw new AppError('CHAIN_UNAVAILABLE', `The balance could not be read from the chain: ${(error as Error).message}`);
  }
  const [walletInfo, tokenInfo] = infos;
  const balance: WalletBalance = {
    tokenAccount: tokenAccount.toBase58(),
    tokenUnits: tokenInfo ? AccountLayout.decode(tokenInfo.data).amount : 0n,
    decimals: chain.accounts.decimals,
    lamports: BigInt(walletInfo?.lamports ?? 0),
    readAt: new Date(nowMs),
  };
  cache.delete(key);
  if (cache.size >= MAX_CACHED_WALLETS) cache.delete(cache.keys().next().value!);
  cache.set(key, { version, expiresAt: nowMs + BALANCE_CACHE_MS, balance });
  return balance;
}
