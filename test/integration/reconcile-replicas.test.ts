import { PublicKey } from '@solana/web3.js';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { MEMO_PROGRAM_ID } from '../../src/chain/addresses.js';
import { parseWireTransaction } from '../../src/chain/transactions.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { EventHub } from '../../src/modules/events/event-hub.js';
import { type CommittedEvent, fromMessage } from '../../src/modules/events/events.js';
import { syncCustodyAccounts } from '../../src/modules/transactions/custody-sync.js';
import { reconcilePendingSubmissions } from '../../src/modules/transactions/reconcile.js';
import { coSign, sha256Hex } from '../../src/modules/transactions/submission.js';
import { type ChainFixture, startChainFixture, TestKeypairWallet } from '../support/chain-fixture.js';
import { UNIT } from '../support/fixtures/builders.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { BUILD_PREDICTION, signInWith, SUBMIT_PREDICTION } from '../support/operator-fixture.js';

describe.each(backends)('pending submissions settled once, whatever the chain says of them, on %s', (kind) => {
  let t: TestApp;
  let chain: ChainFixture;

  beforeAll(async () => {
    chain = await startChainFixture();
    t = await startEmptyTestApp(kind, { chain: chain.runtime, config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000' }) });
  });
  afterAll(async () => {
    await t?.close();
    await chain?.close();
  });

  const db = () => t.database.db;

  /** The transactionStatus events of `signatures` in the event outbox, in its order: what every replica's subscribers receive. */
  async function announced(signatures: string[]) {
    const rows = await db().select().from(tables.eventOutbox).orderBy(tables.eventOutbox.seq);
    return rows
      .map((row) => fromMessage(row.payload))
      .filter(
        (e): e is Extract<CommittedEvent, { type: 'transactionStatus' }> =>
          e?.type === 'transactionStatus' && signatures.includes(e.signature),
      );
  }

  /** An open pool with its vault on the chain; stakes of 3 tokens. */
  async function openPool() {
    const { pool } = await t.seed.user().withPool({ minStake: UNIT });
    await syncCustodyAccounts(t.database, chain.runtime);
    const [row] = await db().select().from(tables.pools).where(eq(tables.pools.id, pool!.id));
    return { ...row!, vault: new PublicKey(row!.poolAccount) };
  }
  type Pool = Awaited<ReturnType<typeof openPool>>;

  /** A signed-in user with 100 tokens, and a prediction transaction built for `pool`, signed by the user and co-signed. */
  async function signedPrediction(pool: Pool) {
    const wallet = new TestKeypairWallet();
    await chain.devchain.mintTokens(wallet.publicKey, 100n * UNIT);
    const user = await signInWith(t.gql, wallet);
    const input = { poolId: pool.id, stake: 3, value: Number(pool.minOutcome) };
    const built = await t.gql(BUILD_PREDICTION, { i: input }, user.headers);
    expect(built.errors, JSON.stringify(built.errors)).toBeUndefined();
    const { transaction, proof } = built.data.buildPredictionTransaction as { transaction: string; proof: string };
    const signed = Buffer.from(await wallet.signTransaction(transaction), 'base64');
    const wire = parseWireTransaction(signed)!;
    const { bytes, signature } = coSign(chain.runtime, wire, { expectedMessage: wire.message, custodyTransfer: null });
    const predictor = wallet.tokenAccount(chain.runtime.accounts.mint);
    return { user, wallet, input, proof, signed, bytes, signature, predictor };
  }
  type Signed = Awaited<ReturnType<typeof signedPrediction>>;

  /** What a replica whose process or database connection died after sending leaves: a PENDING row, its lease run out. */
  async function recordPending(pool: Pool, s: Signed, lastValidBlockHeight: number) {
    const [address, bump] = PublicKey.findProgramAddressSync(
      [Buffer.from('prediction'), pool.vault.toBuffer(), s.predictor.toBuffer()],
      MEMO_PROGRAM_ID,
    );
    await db()
      .insert(tables.chainSubmissions)
      .values({
        idempotencyKey: sha256Hex(s.proof),
        operation: 'placePrediction',
        userId: s.user.userId,
        params: {
          poolId: pool.id,
          stake: String(3n * UNIT),
          value: String(s.input.value),
          predictorAccount: s.predictor.toBase58(),
          predictionAccount: address.toBase58(),
          bump: String(bump),
        },
        signature: s.signature,
        transaction: Buffer.from(s.bytes).toString('base64'),
        lastValidBlockHeight,
        leaseExpiresAt: new Date(Date.now() - 1000),
      });
  }

  it('a submit whose transaction already landed (an earlier send got through) confirms it and applies it once, never FAILED', async () => {
    const pool = await openPool();
    const s = await signedPrediction(pool);
    // The same bytes landed before this submit sent them: the chain answers "already processed".
    await chain.runtime.client.send(s.bytes);

    const submitted = await t.gql(
      SUBMIT_PREDICTION,
      { i: { ...s.input, signedTransaction: s.signed.toString('base64'), proof: s.proof } },
      s.user.headers,
    );
    expect(submitted.errors, JSON.stringify(submitted.errors)).toBeUndefined();
    expect(submitted.data.submitPredictionTransaction.signature).toBe(s.signature);
    const [row] = await db().select().from(tables.chainSubmissions).where(eq(tables.chainSubmissions.signature, s.signature));
    expect(row?.status).toBe('CONFIRMED');
    const [after] = await db().select().from(tables.pools).where(eq(tables.pools.id, pool.id));
    expect(after!.totalVolume).toBe(3n * UNIT);
    expect(await chain.balance(pool.vault)).toBe(3n * UNIT);
  });

  it('a PENDING row another process still holds the lease of is left alone until the lease runs out', async () => {
    const pool = await openPool();
    const s = await signedPrediction(pool);
    const recent = await chain.runtime.client.latestBlockhash();
    await recordPending(pool, s, recent.lastValidBlockHeight);
    await chain.runtime.client.send(s.bytes);
    const now = new Date();
    await db()
      .update(tables.chainSubmissions)
      .set({ leaseExpiresAt: new Date(now.getTime() + 60_000) })
      .where(eq(tables.chainSubmissions.signature, s.signature));

    expect(await reconcilePendingSubmissions(t.database, chain.runtime, { clock: () => now })).toEqual({
      confirmed: 0,
      forgotten: 0,
      resent: 0,
    });
    expect(await announced([s.signature])).toEqual([]);
    const later = new Date(now.getTime() + 61_000);
    expect(await reconcilePendingSubmissions(t.database, chain.runtime, { clock: () => later })).toEqual({
      confirmed: 1,
      forgotten: 0,
      resent: 0,
    });
    // The event carries the submission's committed row too; its type, signature and status are what is asserted.
    expect(await announced([s.signature])).toEqual([
      expect.objectContaining({ type: 'transactionStatus', signature: s.signature, status: 'CONFIRMED' }),
    ]);
  });

  it.runIf(kind === 'postgres')(
    'two replicas reconciling at once settle each PENDING submission exactly once; chain and database agree',
    async () => {
      const second: Database = await openDatabase({ kind: 'postgres', url: t.url!, applicationName: 'replica-b' });
      try {
        const pool = await openPool();
        // Expired and never landed: its blockhash is past before anyone sends it.
        const expired = await signedPrediction(pool);
        await recordPending(pool, expired, (await chain.runtime.client.latestBlockhash()).lastValidBlockHeight);
        chain.devchain.advanceSlots(400);
        const landed = [await signedPrediction(pool), await signedPrediction(pool)];
        const unsent = [await signedPrediction(pool), await signedPrediction(pool)];
        const height = (await chain.runtime.client.latestBlockhash()).lastValidBlockHeight;
        for (const s of [...landed, ...unsent]) await recordPending(pool, s, height);
        // Landed while the database write that would have confirmed them was cut off.
        for (const s of landed) await chain.runtime.client.send(s.bytes);

        const tallies = await Promise.all([
          reconcilePendingSubmissions(t.database, chain.runtime, { events: new EventHub(t.database) }),
          reconcilePendingSubmissions(second, chain.runtime, { events: new EventHub(second) }),
        ]);
        const sum = (key: 'confirmed' | 'forgotten' | 'resent') => tallies[0][key] + tallies[1][key];
        expect({ confirmed: sum('confirmed'), forgotten: sum('forgotten'), resent: sum('resent') }).toEqual({
          confirmed: 4,
          forgotten: 1,
          resent: 2,
        });

        const statuses = await announced([expired, ...landed, ...unsent].map((s) => s.signature));
        const confirmedOnce = [...landed, ...unsent].map(
          (s) => statuses.filter((e) => e.signature === s.signature && e.status === 'CONFIRMED').length,
        );
        expect(confirmedOnce).toEqual([1, 1, 1, 1]);
        expect(statuses.filter((e) => e.signature === expired.signature)).toEqual([
          expect.objectContaining({ type: 'transactionStatus', signature: expired.signature, status: 'FAILED' }),
        ]);

        // Chain and database agree: every landed transaction has a CONFIRMED row (none forgotten), nothing else does.
        const signatures = [expired, ...landed, ...unsent].map((s) => s.signature);
        const onChain = (await chain.runtime.client.connection.getSignatureStatuses(signatures, { searchTransactionHistory: true })).value;
        expect(onChain.map((status) => (status && !status.err ? 'landed' : 'absent'))).toEqual([
          'absent',
          'landed',
          'landed',
          'landed',
          'landed',
        ]);
        const rows = await db().select().from(tables.chainSubmissions).where(inArray(tables.chainSubmissions.signature, signatures));
        expect(rows.map((r) => r.status).sort()).toEqual(['CONFIRMED', 'CONFIRMED', 'CONFIRMED', 'CONFIRMED']);
        const predictions = await db().select().from(tables.predictions).where(eq(tables.predictions.poolId, pool.id));
        expect(predictions).toHaveLength(4);
        const [after] = await db().select().from(tables.pools).where(eq(tables.pools.id, pool.id));
        expect(after!.totalVolume).toBe(12n * UNIT);
        expect(await chain.balance(pool.vault)).toBe(12n * UNIT);
        expect(await chain.balance(expired.predictor)).toBe(100n * UNIT);

        expect(await reconcilePendingSubmissions(second, chain.runtime)).toEqual({ confirmed: 0, forgotten: 0, resent: 0 });
      } finally {
        await second.close();
      }
    },
  );
});
