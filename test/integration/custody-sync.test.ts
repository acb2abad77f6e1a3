import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { poolVaultAddress } from '../../src/chain/addresses.js';
import { UNLINKED_STAKE_MINT } from '../../src/db/unlinked-records.js';
import { ForeignRecordsError, syncCustodyAccounts } from '../../src/modules/transactions/custody-sync.js';
import { type ChainFixture, startChainFixture } from '../support/chain-fixture.js';
import { address } from '../support/fixtures/values.js';
import { backends, startEmptyTestApp, type TestApp } from '../support/harness.js';

/**
 * Start-up links records written unlinked (the demo seed's, the fixtures') to its chain's
 * custody accounts, and never rewrites a record another chain linked: a replica on a chain
 * of its own, sharing the database, refuses to start instead of repointing every pool.
 */
describe.each(backends)('custody sync at start-up on %s', (kind) => {
  let t: TestApp;
  let chain: ChainFixture;

  beforeAll(async () => {
    chain = await startChainFixture();
    t = await startEmptyTestApp(kind, { chain: chain.runtime });
  });
  afterAll(async () => {
    await t?.close();
    await chain?.close();
  });

  const poolRow = async (id: string) => (await t.database.db.select().from(tables.pools).where(eq(tables.pools.id, id)))[0]!;
  const predictionRows = async (poolId: string) =>
    t.database.db.select().from(tables.predictions).where(eq(tables.predictions.poolId, poolId));

  it('links unlinked pools and their predictions once, then leaves them', async () => {
    const pool = (await t.seed.user().withPool().withPrediction()).pool!;
    expect(pool.stakeTokenMint).toBe(UNLINKED_STAKE_MINT);
    expect(await syncCustodyAccounts(t.database, chain.runtime)).toEqual({ pools: 1, streaks: 0 });
    const vault = (await poolVaultAddress(chain.runtime.keys.custody.publicKey, pool.id)).toBase58();
    const mint = chain.runtime.accounts.mint.toBase58();
    expect(await poolRow(pool.id)).toMatchObject({ poolAccount: vault, stakeTokenMint: mint });
    expect((await predictionRows(pool.id)).map((p) => [p.poolAccount, p.stakeTokenMint])).toEqual([[vault, mint]]);
    expect(await syncCustodyAccounts(t.database, chain.runtime)).toEqual({ pools: 0, streaks: 0 });
  });

  it("refuses, changing nothing, when a pool names another chain's vault and mint", async () => {
    const linked = (await t.seed.user().withPool()).pool!;
    const foreign = { poolAccount: address(), stakeTokenMint: address() };
    const elsewhere = (await t.seed.user().withPool(foreign).withPrediction()).pool!;
    const before = await t.database.db.select().from(tables.pools);
    const error = await syncCustodyAccounts(t.database, chain.runtime).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ForeignRecordsError);
    expect((error as Error).message).toMatch(
      /1 pool\(s\) name custody accounts of another chain.*does not rewrite records it did not create/,
    );
    expect((error as Error).message).toContain(elsewhere.id);
    // Nothing written: the foreign pool and its prediction as they were, the unlinked one still unlinked.
    expect(await t.database.db.select().from(tables.pools)).toEqual(before);
    expect(await poolRow(elsewhere.id)).toMatchObject(foreign);
    expect((await predictionRows(elsewhere.id)).map((p) => p.stakeTokenMint)).toEqual([foreign.stakeTokenMint]);
    expect((await poolRow(linked.id)).stakeTokenMint).toBe(UNLINKED_STAKE_MINT);
    expect(
      await chain.runtime.client.connection.getAccountInfo(await poolVaultAddress(chain.runtime.keys.custody.publicKey, linked.id)),
    ).toBeNull();
  });
});
