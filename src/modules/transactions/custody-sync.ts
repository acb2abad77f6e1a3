import type { PublicKey } from '@solana/web3.js';
import { eq, sql } from 'drizzle-orm';
import { pools, predictions, streaks } from '../../../schema/index.js';
import { poolVaultAddress, streakAccumulatorAddress } from '../../chain/addresses.js';
import type { ChainRuntime } from '../../chain/runtime.js';
import { ensurePoolVault, ensureStreakAccumulator } from '../../chain/vaults.js';
import type { Database } from '../../db/client.js';
import { UNLINKED_STAKE_MINT } from '../../db/unlinked-records.js';

/**
 * Makes the chain and the database agree on custody accounts: every pool's vault and every
 * streak's accumulator exists at its derived address (docs/onchain.md), and the records
 * name those addresses and the chain's stake mint. On a devchain, an account created here
 * is stocked with what the records say it holds (the pool's volume less the rewards already
 * paid; the streak's on-chain balance), so demo data seeded before the chain existed can be
 * claimed. Idempotent: once everything exists it only reads. Run at start-up.
 *
 * Only records written unlinked (UNLINKED_STAKE_MINT: the demo seed's) are linked here; when
 * any pool names another chain's vault or mint, it throws ForeignRecordsError before changing
 * anything, on the chain or in the database.
 */
export async function syncCustodyAccounts(database: Database, chain: ChainRuntime): Promise<{ pools: number; streaks: number }> {
  const db = database.db;
  const custody = chain.keys.custody.publicKey;
  const mint = chain.accounts.mint.toBase58();
  const poolRows = await db
    .select({
      id: pools.id,
      poolAccount: pools.poolAccount,
      stakeTokenMint: pools.stakeTokenMint,
      // Written out qualified: drizzle leaves column names bare in a one-table select.
      held: sql<string>`(pools.total_volume - coalesce((
        select sum(r.amount) from rewards r join predictions p on p.id = r.prediction_id
        where p.pool_id = pools.id and r.is_claimed), 0))::text`,
    })
    .from(pools);
  const streakRows = await db
    .select({ id: streaks.id, account: streaks.streakAccumulatorAccount, held: streaks.onchainBalance })
    .from(streaks);
  const vaults = await Promise.all(poolRows.map((pool) => poolVaultAddress(custody, pool.id)));
  const foreign = foreignPools(poolRows, vaults, mint);
  if (foreign) throw foreign;
  const accumulators = await Promise.all(streakRows.map((streak) => streakAccumulatorAddress(custody, streak.id)));

  // Only accounts created now are stocked, from custody's own token account, minted for them.
  const poolStock = poolRows.map(() => 0n);
  const streakStock = streakRows.map(() => 0n);
  if (chain.isDevchain) {
    const [poolsExist, streaksExist] = [await accountsExist(chain, vaults), await accountsExist(chain, accumulators)];
    poolRows.forEach((pool, i) => (poolStock[i] = poolsExist[i] ? 0n : BigInt(pool.held)));
    streakRows.forEach((streak, i) => (streakStock[i] = streaksExist[i] ? 0n : streak.held));
    const total = [...poolStock, ...streakStock].reduce((sum, units) => sum + units, 0n);
    if (total > 0n) await chain.client.mintDevTokens(custody, total);
  }

  let changedPools = 0;
  for (const [i, pool] of poolRows.entries()) {
    await ensurePoolVault(chain.client, chain.keys, chain.accounts, pool.id, poolStock[i]);
    const vault = vaults[i]!.toBase58();
    if (vault === pool.poolAccount && pool.stakeTokenMint === mint) continue;
    await db.transaction(async (tx) => {
      await tx.update(pools).set({ poolAccount: vault, stakeTokenMint: mint }).where(eq(pools.id, pool.id));
      await tx.update(predictions).set({ poolAccount: vault, stakeTokenMint: mint }).where(eq(predictions.poolId, pool.id));
    });
    changedPools++;
  }
  let changedStreaks = 0;
  for (const [i, streak] of streakRows.entries()) {
    await ensureStreakAccumulator(chain.client, chain.keys, chain.accounts, streak.id, streakStock[i]);
    const accumulator = accumulators[i]!.toBase58();
    if (accumulator === streak.account) continue;
    await db.update(streaks).set({ streakAccumulatorAccount: accumulator }).where(eq(streaks.id, streak.id));
    changedStreaks++;
  }
  return { pools: changedPools, streaks: changedStreaks };
}

/** Start-up refused to rewrite records it did not create. */
export class ForeignRecordsError extends Error {}

/**
 * The refusal when pools name a vault or stake mint other than this chain's (another
 * cluster, custody key or mint: another replica's records, say) and were not written
 * unlinked (UNLINKED_STAKE_MINT); null when there are none. Such records are another
 * chain's, so start-up stops rather than point them at accounts of its own.
 */
function foreignPools(rows: PoolLink[], vaults: PublicKey[], mint: string): ForeignRecordsError | null {
  const linkedElsewhere = (row: PoolLink, i: number) => row.stakeTokenMint !== mint || row.poolAccount !== vaults[i]!.toBase58();
  const foreign = rows.filter((row, i) => row.stakeTokenMint !== UNLINKED_STAKE_MINT && linkedElsewhere(row, i));
  if (!foreign.length) return null;
  const named = `${foreign
    .slice(0, 5)
    .map((row) => row.id)
    .join(', ')}${foreign.length > 5 ? ', ...' : ''}`;
  return new ForeignRecordsError(
    `${foreign.length} pool(s) name custody accounts of another chain, custody key or stake mint (${named}): ` +
      'start-up does not rewrite records it did not create. Point SOLANA_RPC_URL, CUSTODY_SECRET_KEY and STAKE_MINT ' +
      'at the chain these records belong to, or give this chain a database of its own.',
  );
}

type PoolLink = { id: string; poolAccount: string; stakeTokenMint: string };

/** Which of `addresses` hold an account, asked 100 at a time. */
async function accountsExist(chain: ChainRuntime, addresses: PublicKey[]): Promise<boolean[]> {
  const exists: boolean[] = [];
  for (let start = 0; start < addresses.length; start += 100) {
    const infos = await chain.client.connection.getMultipleAccountsInfo(addresses.slice(start, start + 100));
    exists.push(...infos.map((info) => info !== null));
  }
  return exists;
}
