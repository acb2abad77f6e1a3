// Over 300 lines: every two-step operation (build, sign, submit, refuse, claim) against one chain and one app per backend, with the sign-in and balance helpers they share; split, each part would start the chain and apps again.
import { createTransferCheckedInstruction } from '@solana/spl-token';
import { Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { MEMO_PROGRAM_ID, userTokenAccount } from '../../src/chain/addresses.js';
import { signProof } from '../../src/chain/proof.js';
import { ChainClient } from '../../src/chain/rpc.js';
import { hashMessage } from '../../src/chain/transactions.js';
import { syncCustodyAccounts } from '../../src/modules/transactions/custody-sync.js';
import { reconcilePendingSubmissions } from '../../src/modules/transactions/reconcile.js';
import { coSign, sha256Hex } from '../../src/modules/transactions/submission.js';
import { parseWireTransaction } from '../../src/chain/transactions.js';
import { createApp } from '../../src/server/app.js';
import { type ChainFixture, KitWallet, startChainFixture, TestKeypairWallet } from '../support/chain-fixture.js';
import { type PoolAttrs, UNIT } from '../support/fixtures/builders.js';
import { backends, metricSample, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { walletSignIn } from '../support/sessions.js';

const BUILD_PREDICTION = `mutation($i: PredictionTransactionInput!) { buildPredictionTransaction(input: $i) { transaction proof expiresAt } }`;
const PREDICTION_FIELDS = `signature prediction { id stake prediction poolAccount predictorAccount predictionAccount bump lastAppliedStakeRevision lastAppliedValueRevision isFeePayer user { id } pool { id totalVolume indexedPredictionUpdateCount } }`;
const SUBMIT_PREDICTION = `mutation($i: SubmitPredictionTransactionInput!) { submitPredictionTransaction(input: $i) { ${PREDICTION_FIELDS} } }`;
const BUILD_STAKE = `mutation($i: StakeUpdateTransactionInput!) { buildStakeUpdateTransaction(input: $i) { transaction proof } }`;
const SUBMIT_STAKE = `mutation($i: SubmitStakeUpdateTransactionInput!) { submitStakeUpdateTransaction(input: $i) { ${PREDICTION_FIELDS} } }`;
const BUILD_VALUE = `mutation($i: PredictionUpdateTransactionInput!) { buildPredictionUpdateTransaction(input: $i) { transaction proof } }`;
const SUBMIT_VALUE = `mutation($i: SubmitPredictionUpdateTransactionInput!) { submitPredictionUpdateTransaction(input: $i) { ${PREDICTION_FIELDS} } }`;
const BUILD_WITHDRAW = `mutation($i: WithdrawTransactionInput!) { buildWithdrawTransaction(input: $i) { transaction proof } }`;
const SUBMIT_WITHDRAW = `mutation($i: SubmitWithdrawTransactionInput!) { submitWithdrawTransaction(input: $i) { signature } }`;
const CLAIM_REWARD = `mutation($id: ID!) { claimReward(rewardId: $id) { signature reward { id isClaimed amount type } } }`;
const CLAIM_STREAK = `mutation($id: ID!) { claimStreakReward(streakRewardId: $id) { signature streakReward { id isClaimed amount } } }`;
const TOKEN = 1_000_000n;

type Wallet = TestKeypairWallet | KitWallet;

describe.each(backends)('two-step transactions on the embedded chain, over GraphQL, on %s', (kind) => {
  let t: TestApp;
  let chain: ChainFixture;
  /** Added to the app's clock, to expire proofs. */
  let clockOffsetMs = 0;

  beforeAll(async () => {
    chain = await startChainFixture();
    // Empty: each test writes the pools, predictions, rewards and streaks it asserts on.
    t = await startEmptyTestApp(kind, {
      chain: chain.runtime,
      clock: () => new Date(Date.now() + clockOffsetMs),
      config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000' }),
    });
  });
  afterAll(async () => {
    await t?.close();
    await chain?.close();
  });

  const db = () => t.database.db;
  const connection = () => chain.runtime.client.connection;
  const relayerLamports = () => connection().getBalance(chain.runtime.keys.relayer.publicKey);
  /** The fee of one signature on the embedded chain; the relayer pays every fee. */
  const SIGNATURE_FEE = 5000;

  async function signIn(wallet: Wallet) {
    const { headers, userId } = await walletSignIn(t.gql, wallet);
    return { headers, userId };
  }

  /** A signed-in user holding `tokens` of the stake mint and no SOL. */
  async function fundedUser(tokens: bigint, wallet: Wallet = new TestKeypairWallet()) {
    if (tokens > 0n) await chain.devchain.mintTokens(wallet.publicKey, tokens * TOKEN);
    const account = wallet.tokenAccount(chain.runtime.accounts.mint);
    return { wallet, account, ...(await signIn(wallet)) };
  }
  type User = Awaited<ReturnType<typeof fundedUser>>;

  /** Makes the custody accounts of the rows just written, as start-up does; exactly those are new. */
  async function syncCustody(expected: { pools: number; streaks: number }) {
    expect(await syncCustodyAccounts(t.database, chain.runtime)).toEqual(expected);
  }

  /**
   * A pool of the test's own, open unless `attrs` says otherwise (1..10 tokens of stake,
   * outcomes 0..1000 in steps of 1), its vault made on the chain and stocked with what the
   * other predictors (`stakes`, one user each) put in, so payouts have tokens to move.
   */
  async function openPool(attrs: PoolAttrs = {}, stakes: bigint[] = []) {
    const { pool } = await t.seed.user().withPool(attrs);
    const others = [];
    for (const stake of stakes) others.push(await t.seed.user().withPrediction({ pool: pool!, stake }));
    await syncCustody({ pools: 1, streaks: 0 });
    const row = await poolRow(pool!.id);
    expect(row.totalVolume).toBe(stakes.reduce((sum, stake) => sum + stake, 0n));
    expect(await chain.balance(new PublicKey(row.poolAccount))).toBe(row.totalVolume);
    return { ...row, vault: new PublicKey(row.poolAccount), others };
  }
  type Pool = Awaited<ReturnType<typeof openPool>>;

  const stakeOf = (pool: Pool, times = 3n) => Number((pool.minStake * times) / TOKEN);
  const valueOf = (pool: Pool, k = 7) => Number((pool.minOutcome + k * pool.step).toFixed(pool.precision));

  async function poolRow(id: string) {
    return (await db().select().from(tables.pools).where(eq(tables.pools.id, id)))[0]!;
  }
  async function rowCount(table: typeof tables.predictions | typeof tables.chainSubmissions | typeof tables.notifications) {
    return ((await db().select({ n: count() }).from(table)) as [{ n: number }])[0].n;
  }

  /** Build, sign as the wallet does, submit: the two steps a client takes. */
  async function twoStep(user: User, build: string, submit: string, input: Record<string, unknown>) {
    const built = await t.gql(build, { i: input }, user.headers);
    expect(built.errors, JSON.stringify(built.errors)).toBeUndefined();
    const prepared = Object.values(built.data)[0] as { transaction: string; proof: string };
    const signedTransaction = await user.wallet.signTransaction(prepared.transaction);
    const submitted = await t.gql(submit, { i: { ...input, signedTransaction, proof: prepared.proof } }, user.headers);
    expect(submitted.errors, JSON.stringify(submitted.errors)).toBeUndefined();
    return Object.values(submitted.data)[0] as { signature: string; prediction?: Record<string, any> };
  }

  async function expectConfirmed(signature: string) {
    const status = (await connection().getSignatureStatuses([signature])).value[0];
    expect(status?.err).toBeNull();
    expect(['confirmed', 'finalized']).toContain(status?.confirmationStatus);
  }

  async function placePrediction(user: User, pool: Pool) {
    return twoStep(user, BUILD_PREDICTION, SUBMIT_PREDICTION, { poolId: pool.id, stake: stakeOf(pool), value: valueOf(pool) });
  }

  it('places a prediction signed by a @solana/web3.js wallet: the stake moves exactly, the prediction is written', async () => {
    const pool = await openPool();
    const user = await fundedUser(1000n);
    const input = { poolId: pool.id, stake: stakeOf(pool), value: valueOf(pool) };
    const relayerBefore = await relayerLamports();

    const { signature, prediction } = await twoStep(user, BUILD_PREDICTION, SUBMIT_PREDICTION, input);

    await expectConfirmed(signature);
    const stakeUnits = 3n * UNIT;
    expect(input).toEqual({ poolId: pool.id, stake: 3, value: 7 });
    expect(await chain.balance(user.account)).toBe(1000n * UNIT - stakeUnits);
    expect(await chain.balance(pool.vault)).toBe(stakeUnits);
    // The relayer paid the fee of its and the user's signature, nothing else; the user holds no SOL at all.
    expect(relayerBefore - (await relayerLamports())).toBe(2 * SIGNATURE_FEE);
    expect(await connection().getBalance(user.wallet.publicKey)).toBe(0);

    const [address, bump] = PublicKey.findProgramAddressSync(
      [Buffer.from('prediction'), pool.vault.toBuffer(), user.account.toBuffer()],
      MEMO_PROGRAM_ID,
    );
    expect(prediction).toMatchObject({
      stake: input.stake,
      prediction: input.value,
      poolAccount: pool.poolAccount,
      predictorAccount: user.account.toBase58(),
      predictionAccount: address.toBase58(),
      bump,
      lastAppliedStakeRevision: 1,
      lastAppliedValueRevision: 1,
      isFeePayer: true,
      user: { id: user.userId },
      pool: { id: pool.id },
    });
    const poolAfter = await poolRow(pool.id);
    expect(poolAfter.totalVolume).toBe(stakeUnits);
    expect(poolAfter.indexedPredictionUpdateCount).toBe(1);
    // What the mutation returns reflects its write (read after it, not from the loaders' earlier reads).
    expect(prediction!.pool).toEqual({ id: pool.id, totalVolume: 3, indexedPredictionUpdateCount: 1 });
    const rows = await db().select().from(tables.predictions).where(eq(tables.predictions.poolId, pool.id));
    expect(rows.map((row) => [row.id, row.userId, row.stake, row.prediction])).toEqual([[prediction!.id, user.userId, stakeUnits, 7]]);

    const again = await t.gql(BUILD_PREDICTION, { i: input }, user.headers);
    expect(again.errors?.[0]?.extensions?.code).toBe('ALREADY_PREDICTED');
  });

  it('places a prediction signed by a @solana/kit wallet, which decodes and partially signs the same bytes', async () => {
    const pool = await openPool();
    const user = await fundedUser(500n, await KitWallet.create());
    const relayerBefore = await relayerLamports();
    const { signature, prediction } = await placePrediction(user, pool);
    await expectConfirmed(signature);
    expect(await chain.balance(user.account)).toBe(497n * UNIT);
    expect(await chain.balance(pool.vault)).toBe(3n * UNIT);
    expect(relayerBefore - (await relayerLamports())).toBe(2 * SIGNATURE_FEE);
    expect(prediction).toMatchObject({
      stake: 3,
      prediction: 7,
      user: { id: user.userId },
      predictorAccount: user.account.toBase58(),
      pool: { id: pool.id, totalVolume: 3 },
    });
  });

  it('updates a stake up (user -> vault) and down (vault -> user, custody co-signing) by exactly the difference', async () => {
    const pool = await openPool();
    const user = await fundedUser(1000n);
    const { prediction } = await placePrediction(user, pool);
    expect(await chain.balance(user.account)).toBe(997n * UNIT);
    expect(await chain.balance(pool.vault)).toBe(3n * UNIT);

    // 3 -> 5 tokens: 2 from the user to the vault, the user signing.
    const raised = stakeOf(pool, 5n);
    let relayerBefore = await relayerLamports();
    const up = await twoStep(user, BUILD_STAKE, SUBMIT_STAKE, { predictionId: prediction!.id, stake: raised });
    await expectConfirmed(up.signature);
    expect(await chain.balance(user.account)).toBe(995n * UNIT);
    expect(await chain.balance(pool.vault)).toBe(5n * UNIT);
    expect(relayerBefore - (await relayerLamports())).toBe(2 * SIGNATURE_FEE);
    expect(up.prediction).toMatchObject({
      stake: 5,
      lastAppliedStakeRevision: 2,
      lastAppliedValueRevision: 1,
      pool: { totalVolume: 5, indexedPredictionUpdateCount: 2 },
    });
    expect((await poolRow(pool.id)).totalVolume).toBe(5n * UNIT);

    // 5 -> 2 tokens: 3 from the vault back to the user, custody co-signing.
    const lowered = stakeOf(pool, 2n);
    relayerBefore = await relayerLamports();
    const down = await twoStep(user, BUILD_STAKE, SUBMIT_STAKE, { predictionId: prediction!.id, stake: lowered });
    await expectConfirmed(down.signature);
    expect(await chain.balance(user.account)).toBe(998n * UNIT);
    expect(await chain.balance(pool.vault)).toBe(2n * UNIT);
    expect(relayerBefore - (await relayerLamports())).toBe(3 * SIGNATURE_FEE);
    expect(down.prediction).toMatchObject({
      stake: 2,
      lastAppliedStakeRevision: 3,
      lastAppliedValueRevision: 1,
      pool: { totalVolume: 2, indexedPredictionUpdateCount: 3 },
    });
    const after = await poolRow(pool.id);
    expect(after.totalVolume).toBe(2n * UNIT);
    const [row] = await db().select().from(tables.predictions).where(eq(tables.predictions.id, prediction!.id));
    expect(row!.stake).toBe(2n * UNIT);

    const same = await t.gql(BUILD_STAKE, { i: { predictionId: prediction!.id, stake: lowered } }, user.headers);
    expect(same.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: 'input.stake' });
    const stranger = await fundedUser(10n);
    const foreign = await t.gql(BUILD_STAKE, { i: { predictionId: prediction!.id, stake: raised } }, stranger.headers);
    expect(foreign.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('updates a predicted value with a memo only: no tokens move, the value and its revision change', async () => {
    const pool = await openPool();
    const user = await fundedUser(1000n);
    const { prediction } = await placePrediction(user, pool);
    const relayerBefore = await relayerLamports();
    const value = valueOf(pool, 3);
    const { signature, prediction: updated } = await twoStep(user, BUILD_VALUE, SUBMIT_VALUE, { predictionId: prediction!.id, value });
    await expectConfirmed(signature);
    expect(await chain.balance(user.account)).toBe(997n * UNIT);
    expect(await chain.balance(pool.vault)).toBe(3n * UNIT);
    expect(relayerBefore - (await relayerLamports())).toBe(2 * SIGNATURE_FEE);
    expect(updated).toMatchObject({
      prediction: 3,
      stake: 3,
      lastAppliedValueRevision: 2,
      lastAppliedStakeRevision: 1,
      pool: { totalVolume: 3, indexedPredictionUpdateCount: 2 },
    });
    const [row] = await db().select().from(tables.predictions).where(eq(tables.predictions.id, prediction!.id));
    expect([row!.prediction, row!.stake]).toEqual([3, 3n * UNIT]);
    expect(await poolRow(pool.id)).toMatchObject({ indexedPredictionUpdateCount: 2, totalVolume: 3n * UNIT });
    const transaction = await connection().getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
    expect(transaction?.meta?.logMessages?.join('\n')).toContain('"op":"value"');
  });

  it('withdraws to an external wallet, its token account opened with the user’s SOL; refuses below the minimum, above the balance, and bad addresses', async () => {
    const user = await fundedUser(50n);
    await chain.devchain.airdrop(user.wallet.publicKey, 10_000_000);
    const recipient = Keypair.generate().publicKey;
    const recipientAccount = userTokenAccount(chain.runtime.accounts.mint, recipient);
    const relayerBefore = await connection().getBalance(chain.runtime.keys.relayer.publicKey);
    const { signature } = await twoStep(user, BUILD_WITHDRAW, SUBMIT_WITHDRAW, { toAddress: recipient.toBase58(), amount: 12.5 });
    await expectConfirmed(signature);
    expect(await chain.balance(recipientAccount)).toBe(12_500_000n);
    expect(await chain.balance(user.account)).toBe(50n * TOKEN - 12_500_000n);
    // The rent of the new account came from the user; the relayer paid the two signatures' fee only.
    const rent = await connection().getMinimumBalanceForRentExemption(165);
    expect(await connection().getBalance(user.wallet.publicKey)).toBe(10_000_000 - rent);
    expect(relayerBefore - (await connection().getBalance(chain.runtime.keys.relayer.publicKey))).toBe(2 * 5000);

    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ amount: 0.5 }, 'INSUFFICIENT_FUNDS', 'input.amount'],
      [{ amount: 38 }, 'INSUFFICIENT_FUNDS', 'input.amount'],
      [{ amount: 1.0000001 }, 'BAD_USER_INPUT', 'input.amount'],
      [{ toAddress: 'not-an-address' }, 'BAD_USER_INPUT', 'input.toAddress'],
      // A program address owns no associated token account.
      [
        { toAddress: PublicKey.findProgramAddressSync([Buffer.from('x')], MEMO_PROGRAM_ID)[0].toBase58() },
        'BAD_USER_INPUT',
        'input.toAddress',
      ],
    ];
    for (const [change, code, argumentName] of cases) {
      const response = await t.gql(BUILD_WITHDRAW, { i: { toAddress: recipient.toBase58(), amount: 2, ...change } }, user.headers);
      expect(response.errors?.[0]?.extensions, JSON.stringify(change)).toMatchObject({ code, argumentName });
    }
  });

  it('answers 20 concurrent submits of one proof with one transaction and one set of effects', async () => {
    const pool = await openPool();
    const user = await fundedUser(1000n);
    const input = { poolId: pool.id, stake: stakeOf(pool), value: valueOf(pool) };
    const { data } = await t.gql(BUILD_PREDICTION, { i: input }, user.headers);
    const signed = {
      ...input,
      signedTransaction: await user.wallet.signTransaction(data.buildPredictionTransaction.transaction),
      proof: data.buildPredictionTransaction.proof,
    };
    const relayerBefore = await relayerLamports();

    const results = await Promise.all(Array.from({ length: 20 }, () => t.gql(SUBMIT_PREDICTION, { i: signed }, user.headers)));
    for (const result of results) expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
    expect(new Set(results.map((r) => r.data.submitPredictionTransaction.signature)).size).toBe(1);
    expect(new Set(results.map((r) => r.data.submitPredictionTransaction.prediction.id)).size).toBe(1);
    const once = async () => {
      expect(await chain.balance(user.account)).toBe(997n * UNIT);
      expect(await chain.balance(pool.vault)).toBe(3n * UNIT);
      expect(relayerBefore - (await relayerLamports())).toBe(2 * SIGNATURE_FEE);
      expect(await poolRow(pool.id)).toMatchObject({ totalVolume: 3n * UNIT, indexedPredictionUpdateCount: 1 });
      const predictionRows = await db().select({ n: count() }).from(tables.predictions).where(eq(tables.predictions.poolId, pool.id));
      const submissionRows = await db()
        .select({ n: count() })
        .from(tables.chainSubmissions)
        .where(eq(tables.chainSubmissions.userId, user.userId));
      expect(Number(predictionRows[0]!.n)).toBe(1);
      expect(Number(submissionRows[0]!.n)).toBe(1);
    };
    await once();

    // Submitted again later, the proof still answers with the same signature and changes nothing.
    const later = await t.gql(SUBMIT_PREDICTION, { i: signed }, user.headers);
    expect(later.data.submitPredictionTransaction.signature).toBe(results[0]!.data.submitPredictionTransaction.signature);
    await once();
  });

  it('sends one of two transactions built for the same change, submitted at once: the other is refused and moves nothing', async () => {
    const pool = await openPool();
    const user = await fundedUser(1000n);
    /** Builds and signs, without submitting. */
    const prepare = async (build: string, input: Record<string, unknown>) => {
      const built = await t.gql(build, { i: input }, user.headers);
      expect(built.errors, JSON.stringify(built.errors)).toBeUndefined();
      const prepared = Object.values(built.data)[0] as { transaction: string; proof: string };
      return { ...input, signedTransaction: await user.wallet.signTransaction(prepared.transaction), proof: prepared.proof };
    };
    // Two first predictions on one pool, with different stakes: both valid when built.
    const [least, middle, most] = [1, 5, 10];
    expect([pool.minStake, pool.maxStake]).toEqual([BigInt(least) * UNIT, BigInt(most) * UNIT]);
    const small = await prepare(BUILD_PREDICTION, { poolId: pool.id, stake: least, value: valueOf(pool) });
    const large = await prepare(BUILD_PREDICTION, { poolId: pool.id, stake: middle, value: valueOf(pool) });
    const placed = await Promise.all([small, large].map((i) => t.gql(SUBMIT_PREDICTION, { i }, user.headers)));
    const won = placed.filter((r) => !r.errors);
    expect(won).toHaveLength(1);
    expect(placed.find((r) => r.errors)!.errors![0]!.extensions!.code).toBe('ALREADY_PREDICTED');
    const prediction = won[0]!.data.submitPredictionTransaction.prediction as { id: string; stake: number };
    expect([least, middle]).toContain(prediction.stake);
    expect(await chain.balance(user.account)).toBe(1000n * UNIT - BigInt(prediction.stake) * UNIT);
    expect(await chain.balance(pool.vault)).toBe(BigInt(prediction.stake) * UNIT);
    const inPool = await db().select().from(tables.predictions).where(eq(tables.predictions.poolId, pool.id));
    expect(inPool.map((row) => [row.id, row.userId, row.stake])).toEqual([[prediction.id, user.userId, BigInt(prediction.stake) * UNIT]]);

    // Two stake updates built from the same revision: only one may move tokens.
    const afterPlace = await chain.balance(user.account);
    const [first, second] = [least, middle, most].filter((stake) => stake !== prediction.stake);
    const up = await prepare(BUILD_STAKE, { predictionId: prediction.id, stake: first });
    const down = await prepare(BUILD_STAKE, { predictionId: prediction.id, stake: second });
    const updated = await Promise.all([up, down].map((i) => t.gql(SUBMIT_STAKE, { i }, user.headers)));
    const applied = updated.filter((r) => !r.errors);
    expect(applied).toHaveLength(1);
    expect(updated.find((r) => r.errors)!.errors![0]!.extensions!.code).toBe('PROOF_INVALID');
    const result = applied[0]!.data.submitStakeUpdateTransaction.prediction as { stake: number; lastAppliedStakeRevision: number };
    expect(result.lastAppliedStakeRevision).toBe(2);
    expect([first, second]).toContain(result.stake);
    expect(await chain.balance(user.account)).toBe(afterPlace - BigInt(result.stake - prediction.stake) * TOKEN);
    expect(await chain.balance(user.account)).toBe(1000n * UNIT - BigInt(result.stake) * UNIT);
    expect(await chain.balance(pool.vault)).toBe(BigInt(result.stake) * UNIT);
    const [row] = await db().select().from(tables.predictions).where(eq(tables.predictions.id, prediction.id));
    expect(row!.stake).toBe(BigInt(result.stake) * TOKEN);
    expect((await poolRow(pool.id)).totalVolume).toBe(BigInt(result.stake) * UNIT);
    const submissions = await db().select().from(tables.chainSubmissions).where(eq(tables.chainSubmissions.userId, user.userId));
    expect(submissions).toHaveLength(2);
  });

  describe('refusals leave balances and rows untouched', () => {
    let pool: Pool;
    let user: User;
    let other: User;
    let input: { poolId: string; stake: number; value: number };
    let built: { transaction: string; proof: string };

    const snapshot = async () => ({
      user: await chain.balance(user.account),
      vault: await chain.balance(pool.vault),
      relayer: await connection().getBalance(chain.runtime.keys.relayer.publicKey),
      predictions: await rowCount(tables.predictions),
      submissions: await rowCount(tables.chainSubmissions),
      volume: (await poolRow(pool.id)).totalVolume,
    });
    const submit = async (change: Record<string, unknown>, headers: Record<string, string> = user.headers) => {
      const signedTransaction = await user.wallet.signTransaction(built.transaction);
      return t.gql(SUBMIT_PREDICTION, { i: { ...input, signedTransaction, proof: built.proof, ...change } }, headers);
    };

    beforeAll(async () => {
      pool = await openPool();
      user = await fundedUser(1000n);
      other = await fundedUser(1000n);
      input = { poolId: pool.id, stake: stakeOf(pool), value: valueOf(pool) };
      built = (await t.gql(BUILD_PREDICTION, { i: input }, user.headers)).data.buildPredictionTransaction;
      // What every refusal must leave as it is: the user's 1000 tokens, an empty vault and pool.
      expect(await snapshot()).toMatchObject({ user: 1000n * UNIT, vault: 0n, volume: 0n });
    });

    it('tampered bytes, a foreign proof, other parameters, a missing signature, malformed or oversized input', async () => {
      const otherPool = await openPool();
      const before = await snapshot();
      const signed = Buffer.from(await user.wallet.signTransaction(built.transaction), 'base64');
      const tampered = Buffer.from(signed);
      tampered[tampered.length - 3] = tampered[tampered.length - 3]! ^ 0x01;
      const otherInput = { poolId: otherPool.id, stake: stakeOf(otherPool), value: valueOf(otherPool) };
      const otherBuilt = await t.gql(BUILD_PREDICTION, { i: otherInput }, other.headers);
      expect(otherBuilt.errors, JSON.stringify(otherBuilt.errors)).toBeUndefined();
      const otherBuild = otherBuilt.data.buildPredictionTransaction;
      const cases: Array<[string, Record<string, unknown>, Record<string, string>, string]> = [
        ['a changed byte of the message', { signedTransaction: tampered.toString('base64') }, user.headers, 'PROOF_INVALID'],
        ['the unsigned transaction', { signedTransaction: built.transaction }, user.headers, 'PROOF_INVALID'],
        ['another user submitting the proof', {}, other.headers, 'PROOF_INVALID'],
        ['another user’s proof', { proof: otherBuild.proof }, user.headers, 'PROOF_INVALID'],
        ['a different stake', { stake: input.stake + 1 }, user.headers, 'PROOF_INVALID'],
        ['a different value', { value: valueOf(pool, 8) }, user.headers, 'PROOF_INVALID'],
        ['a tampered proof', { proof: `${built.proof.slice(0, -3)}abc` }, user.headers, 'PROOF_INVALID'],
        ['malformed base64', { signedTransaction: '%%%' }, user.headers, 'BAD_USER_INPUT'],
        ['an oversized transaction', { signedTransaction: Buffer.alloc(1500, 1).toString('base64') }, user.headers, 'BAD_USER_INPUT'],
      ];
      for (const [name, change, headers, code] of cases) {
        const response = await submit(change, headers);
        expect(response.errors?.[0]?.extensions?.code, name).toBe(code);
      }
      expect(await snapshot()).toEqual(before);
    });

    it('a wrong user signature: the right slot, signed by another key', async () => {
      const before = await snapshot();
      const wire = parseWireTransaction(Buffer.from(built.transaction, 'base64'))!;
      const slot = wire.signers.findIndex((key) => key.equals(user.wallet.publicKey));
      const forged = Buffer.from(wire.bytes);
      forged.set(Keypair.generate().secretKey.subarray(0, 64), 1 + slot * 64);
      const response = await submit({ signedTransaction: forged.toString('base64') });
      expect(response.errors?.[0]?.extensions?.code).toBe('PROOF_INVALID');
      expect(await snapshot()).toEqual(before);
    });

    it('the relayer in any role but fee payer, even under a valid proof', async () => {
      const before = await snapshot();
      // A transaction that makes the relayer a transfer authority, with a proof the service's key signed.
      const recent = await chain.runtime.client.latestBlockhash();
      const relayerAccount = userTokenAccount(chain.runtime.accounts.mint, chain.runtime.keys.relayer.publicKey);
      const evil = new Transaction({ feePayer: chain.runtime.keys.relayer.publicKey, ...recent }).add(
        createTransferCheckedInstruction(
          relayerAccount,
          chain.runtime.accounts.mint,
          user.account,
          chain.runtime.keys.relayer.publicKey,
          1n,
          6,
        ),
        createTransferCheckedInstruction(user.account, chain.runtime.accounts.mint, pool.vault, user.wallet.publicKey, 1n, 6),
      );
      const proof = await signProof(
        chain.runtime.proofSecret,
        {
          operation: 'placePrediction',
          userId: user.userId,
          params: { poolId: input.poolId, stake: String(input.stake), value: String(input.value) },
          derived: {},
          messageHash: hashMessage(evil.serializeMessage()),
          ...recent,
        },
        new Date(Date.now() + 60_000),
      );
      evil.partialSign(user.wallet instanceof TestKeypairWallet ? user.wallet.keypair : Keypair.generate());
      const response = await t.gql(
        SUBMIT_PREDICTION,
        {
          i: {
            ...input,
            proof,
            signedTransaction: evil.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64'),
          },
        },
        user.headers,
      );
      expect(response.errors?.[0]?.extensions?.code).toBe('PROOF_INVALID');
      expect(response.errors?.[0]?.message).toMatch(/relayer/i);
      expect(await snapshot()).toEqual(before);
    });

    it('a proof replayed after its expiry, and a transaction whose blockhash expired: PROOF_EXPIRED', async () => {
      const before = await snapshot();
      clockOffsetMs = (chain.runtime.proofTtlSeconds + 5) * 1000;
      try {
        expect((await submit({})).errors?.[0]?.extensions?.code).toBe('PROOF_EXPIRED');
      } finally {
        clockOffsetMs = 0;
      }
      chain.devchain.advanceSlots(200);
      expect((await submit({})).errors?.[0]?.extensions?.code).toBe('PROOF_EXPIRED');
      expect(await snapshot()).toEqual(before);
      built = (await t.gql(BUILD_PREDICTION, { i: input }, user.headers)).data.buildPredictionTransaction;
    });

    it('a transaction that fails on-chain: TRANSACTION_FAILED with the program’s reason', async () => {
      // A vault address that holds no token account: every check passes, the Token program refuses.
      const realVault = pool.poolAccount;
      await db().update(tables.pools).set({ poolAccount: Keypair.generate().publicKey.toBase58() }).where(eq(tables.pools.id, pool.id));
      try {
        const { data } = await t.gql(BUILD_PREDICTION, { i: input }, other.headers);
        const before = await snapshot();
        const signedTransaction = await other.wallet.signTransaction(data.buildPredictionTransaction.transaction);
        const response = await t.gql(
          SUBMIT_PREDICTION,
          { i: { ...input, signedTransaction, proof: data.buildPredictionTransaction.proof } },
          other.headers,
        );
        expect(response.errors?.[0]?.extensions?.code).toBe('TRANSACTION_FAILED');
        expect(response.errors?.[0]?.message).toMatch(/rejected/i);
        expect(await snapshot()).toEqual(before);
      } finally {
        await db().update(tables.pools).set({ poolAccount: realVault }).where(eq(tables.pools.id, pool.id));
      }
    });

    it('an unreachable chain: CHAIN_UNAVAILABLE on build and on submit', async () => {
      const before = await snapshot();
      const deadChain = { ...chain.runtime, client: new ChainClient('http://127.0.0.1:9', 2_000) };
      const app = await createApp({ config: testConfig(), database: t.database, chain: deadChain });
      try {
        const gql = async (query: string, variables: Record<string, unknown>) =>
          (await app.inject({ method: 'POST', url: '/graphql', payload: { query, variables }, headers: user.headers })).json();
        expect((await gql(BUILD_PREDICTION, { i: input })).errors?.[0]?.extensions?.code).toBe('CHAIN_UNAVAILABLE');
        const signedTransaction = await user.wallet.signTransaction(built.transaction);
        const submitted = await gql(SUBMIT_PREDICTION, { i: { ...input, signedTransaction, proof: built.proof } });
        expect(submitted.errors?.[0]?.extensions?.code).toBe('CHAIN_UNAVAILABLE');
      } finally {
        await app.close();
      }
      expect(await snapshot()).toEqual(before);
    });
  });

  it('validates before building, each with its code', async () => {
    const pool = await openPool();
    // 5 tokens: the pool's 10-token maximum is a valid stake this user cannot pay.
    const user = await fundedUser(5n);
    const base = { poolId: pool.id, stake: stakeOf(pool), value: valueOf(pool) };
    // One pool per way a pool refuses predictions, each otherwise open.
    const ended = await openPool({ phase: 'ended' });
    const upcoming = await openPool({ phase: 'upcoming' });
    const frozen = await openPool({ status: 'FROZEN' });
    const closed = await openPool({ isClosed: true });
    const cases: Array<[Record<string, unknown>, string, string?, RegExp?]> = [
      [{ poolId: '00000000-0000-4000-8000-000000000000' }, 'NOT_FOUND'],
      [{ poolId: 'nope' }, 'BAD_USER_INPUT', 'input.poolId'],
      [{ poolId: ended.id }, 'POOL_CLOSED', undefined, /window has ended/],
      [{ poolId: upcoming.id }, 'POOL_CLOSED', undefined, /not take predictions yet/],
      [{ poolId: frozen.id }, 'POOL_CLOSED', undefined, /is FROZEN/],
      [{ poolId: closed.id }, 'POOL_CLOSED', undefined, /is closed/],
      // Each names the bounds and the value given, so the caller knows what to send instead.
      [
        { stake: 11 },
        'BAD_USER_INPUT',
        'input.stake',
        /^input\.stake must be between 1 and 10 \(the pool's minStake and maxStake\); got 11$/,
      ],
      [{ stake: 0.5 }, 'BAD_USER_INPUT', 'input.stake', /between 1 and 10 .*; got 0\.5$/],
      [{ stake: 0.0000001 }, 'BAD_USER_INPUT', 'input.stake'],
      [
        { value: 1001 },
        'BAD_USER_INPUT',
        'input.value',
        /^input\.value must be between 0 and 1000 \(the pool's minOutcome and maxOutcome\); got 1001$/,
      ],
      [
        { value: 0.5 },
        'BAD_USER_INPUT',
        'input.value',
        /^input\.value must lie on the pool's grid 0 \+ k \* 1, with at most 0 decimals; got 0\.5$/,
      ],
      [{ stake: 10 }, 'INSUFFICIENT_FUNDS', 'input.stake'],
    ];
    for (const [change, code, argumentName, message] of cases) {
      const response = await t.gql(BUILD_PREDICTION, { i: { ...base, ...change } }, user.headers);
      expect(response.errors, JSON.stringify(change)).toHaveLength(1);
      expect(response.errors?.[0]?.extensions?.code, JSON.stringify(change)).toBe(code);
      if (argumentName) expect(response.errors?.[0]?.extensions?.argumentName).toBe(argumentName);
      if (message) expect(response.errors?.[0]?.message).toMatch(message);
    }
    // The bounds themselves are accepted: all 10 tokens of a user holding them, the top outcome.
    const rich = await fundedUser(10n);
    expect((await t.gql(BUILD_PREDICTION, { i: { ...base, stake: 10, value: 1000 } }, rich.headers)).errors).toBeUndefined();
    const anonymous = await t.gql(BUILD_PREDICTION, { i: base });
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('claims a reward once, however many claims arrive at once, with its notification', async () => {
    // Two other predictors' 5 tokens each in the vault, then the user's 3: 13 tokens to pay 7.25 from.
    const pool = await openPool({}, [5n * UNIT, 5n * UNIT]);
    const user = await fundedUser(1000n);
    const { prediction } = await placePrediction(user, pool);
    const [reward] = await db()
      .insert(tables.rewards)
      .values({ predictionId: prediction!.id, decimals: 6, amount: 7_250_000n, precisionScore: 0.9, type: 'REWARD' })
      .returning();
    const before = {
      user: await chain.balance(user.account),
      vault: await chain.balance(pool.vault),
      notifications: await rowCount(tables.notifications),
    };
    expect([before.user, before.vault]).toEqual([997n * UNIT, 13n * UNIT]);
    const relayerBefore = await relayerLamports();

    const results = await Promise.all(Array.from({ length: 10 }, () => t.gql(CLAIM_REWARD, { id: reward!.id }, user.headers)));
    const signatures = new Set(results.filter((r) => !r.errors).map((r) => r.data.claimReward.signature));
    expect(signatures.size).toBe(1);
    for (const result of results) if (result.errors) expect(result.errors[0]?.extensions?.code).toBe('ALREADY_CLAIMED');
    // Which claims wait for the one transaction and which find the reward already claimed is timing; the sum is not.
    const answeredWithIt = results.filter((r) => !r.errors && r.data.claimReward.signature === [...signatures][0]).length;
    const refused = results.filter((r) => r.errors?.length === 1 && r.errors[0]?.extensions?.code === 'ALREADY_CLAIMED').length;
    expect(answeredWithIt + refused).toBe(10);
    const claims = await db()
      .select()
      .from(tables.chainSubmissions)
      .where(and(eq(tables.chainSubmissions.userId, user.userId), eq(tables.chainSubmissions.operation, 'claimReward')));
    expect(claims.map((c) => [c.signature, c.status])).toEqual([[[...signatures][0], 'CONFIRMED']]);
    await expectConfirmed([...signatures][0]!);
    expect(await chain.balance(user.account)).toBe(1_004_250_000n);
    expect(await chain.balance(pool.vault)).toBe(5_750_000n);
    // One payout sent: the relayer's and custody's signatures.
    expect(relayerBefore - (await relayerLamports())).toBe(2 * SIGNATURE_FEE);
    const [claimed] = await db().select().from(tables.rewards).where(eq(tables.rewards.id, reward!.id));
    expect(claimed!.isClaimed).toBe(true);
    const notes = await db()
      .select()
      .from(tables.notifications)
      .where(and(eq(tables.notifications.userId, user.userId), eq(tables.notifications.type, 'REWARD_CLAIMED')));
    expect(notes).toHaveLength(1);
    expect(notes[0]!.data).toMatchObject({ rewardId: reward!.id, amount: 7.25 });
    expect(await rowCount(tables.notifications)).toBe(before.notifications + 1);

    expect((await t.gql(CLAIM_REWARD, { id: reward!.id }, user.headers)).errors?.[0]?.extensions?.code).toBe('ALREADY_CLAIMED');
    // Another predictor's unclaimed reward in the same pool is not the stranger's to claim.
    const stranger = await fundedUser(0n);
    const [theirs] = await db()
      .insert(tables.rewards)
      .values({ predictionId: pool.others[0]!.predictions[0]!.id, decimals: 6, amount: UNIT, precisionScore: 0.5, type: 'REWARD' })
      .returning();
    expect((await t.gql(CLAIM_REWARD, { id: theirs!.id }, stranger.headers)).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(
      (await t.gql(CLAIM_REWARD, { id: '00000000-0000-4000-8000-000000000000' }, stranger.headers)).errors?.[0]?.extensions?.code,
    ).toBe('NOT_FOUND');
    expect((await db().select().from(tables.rewards).where(eq(tables.rewards.id, theirs!.id)))[0]!.isClaimed).toBe(false);
    expect(await chain.balance(pool.vault)).toBe(5_750_000n);
  });

  it('claims a streak reward from the streak’s accumulator, honouring notification preferences', async () => {
    // A streak of the test's own, its accumulator made on the chain holding the 10 tokens the records say.
    const written = await t.seed.streak({ onchainBalance: 10n * UNIT });
    await syncCustody({ pools: 0, streaks: 1 });
    const [streak] = await db().select().from(tables.streaks).where(eq(tables.streaks.id, written.id));
    const accumulator = new PublicKey(streak!.streakAccumulatorAccount);
    expect(await chain.balance(accumulator)).toBe(10n * UNIT);
    const user = await fundedUser(0n);
    const relayerBefore = await relayerLamports();
    const [first, second] = await db()
      .insert(tables.streakRewards)
      .values([
        { streakId: streak!.id, userWalletAddress: user.wallet.address, amount: 1_500_000n },
        { streakId: streak!.id, userWalletAddress: user.wallet.address, amount: 500_000n },
      ])
      .returning();
    // Without a token account to receive it, the payout is refused: the relayer funds no account the user could close.
    const unopened = await t.gql(CLAIM_STREAK, { id: first!.id }, user.headers);
    expect(unopened.errors?.[0]?.extensions).toMatchObject({ code: 'INSUFFICIENT_FUNDS', reason: 'TOKEN_ACCOUNT_MISSING' });
    expect(await connection().getAccountInfo(user.account)).toBeNull();
    expect(await connection().getBalance(chain.runtime.keys.relayer.publicKey)).toBe(relayerBefore);
    await chain.devchain.mintTokens(user.wallet.publicKey, 1n);
    const before = {
      user: await chain.balance(user.account),
      accumulator: await chain.balance(accumulator),
      onchain: streak!.onchainBalance,
    };
    expect(before).toEqual({ user: 1n, accumulator: 10n * UNIT, onchain: 10n * UNIT });
    const relayerBeforeClaim = await relayerLamports();

    const { data, errors } = await t.gql(CLAIM_STREAK, { id: first!.id }, user.headers);
    expect(errors, JSON.stringify(errors)).toBeUndefined();
    expect(data.claimStreakReward.streakReward).toMatchObject({ id: first!.id, isClaimed: true, amount: 1.5 });
    await expectConfirmed(data.claimStreakReward.signature);
    expect(await chain.balance(user.account)).toBe(1_500_001n);
    expect(await chain.balance(accumulator)).toBe(8_500_000n);
    expect(relayerBeforeClaim - (await relayerLamports())).toBe(2 * SIGNATURE_FEE);
    const [streakAfter] = await db().select().from(tables.streaks).where(eq(tables.streaks.id, streak!.id));
    expect(streakAfter!.onchainBalance).toBe(8_500_000n);
    const received = () =>
      db()
        .select()
        .from(tables.notifications)
        .where(and(eq(tables.notifications.userId, user.userId), eq(tables.notifications.type, 'STREAK_REWARD_RECEIVED')));
    expect(await received()).toHaveLength(1);
    expect((await t.gql(CLAIM_STREAK, { id: first!.id }, user.headers)).errors?.[0]?.extensions?.code).toBe('ALREADY_CLAIMED');

    // With the type's preference off, the payout happens and no notification is written.
    const [settings] = await db().select().from(tables.settings).where(eq(tables.settings.userId, user.userId));
    await db()
      .update(tables.settings)
      .set({ notificationPreferences: { ...settings!.notificationPreferences, STREAK_REWARD_RECEIVED: false } })
      .where(eq(tables.settings.userId, user.userId));
    const quiet = await t.gql(CLAIM_STREAK, { id: second!.id }, user.headers);
    expect(quiet.errors, JSON.stringify(quiet.errors)).toBeUndefined();
    expect(await chain.balance(user.account)).toBe(2_000_001n);
    expect(await chain.balance(accumulator)).toBe(8_000_000n);
    expect((await db().select().from(tables.streaks).where(eq(tables.streaks.id, streak!.id)))[0]!.onchainBalance).toBe(8_000_000n);
    expect(await received()).toHaveLength(1);

    const stranger = await fundedUser(0n);
    const [third] = await db()
      .insert(tables.streakRewards)
      .values({ streakId: streak!.id, userWalletAddress: user.wallet.address, amount: 1n })
      .returning();
    expect((await t.gql(CLAIM_STREAK, { id: third!.id }, stranger.headers)).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(await chain.balance(accumulator)).toBe(8_000_000n);
  });

  it('counts each transaction it sends in /metrics by operation and outcome; waiting repeats and refusals send none', async () => {
    const scrape = async () => (await t.app.inject({ url: '/metrics' })).body;
    const sent = (text: string, labels: Record<string, string> = {}) => metricSample(text, 'poolgraph_chain_submissions_total', labels);
    const before = await scrape();

    // One proof submitted 5 times at once and once more later: one transaction, confirmed.
    const pool = await openPool();
    const user = await fundedUser(1000n);
    const input = { poolId: pool.id, stake: stakeOf(pool), value: valueOf(pool) };
    const { data } = await t.gql(BUILD_PREDICTION, { i: input }, user.headers);
    const signed = {
      ...input,
      signedTransaction: await user.wallet.signTransaction(data.buildPredictionTransaction.transaction),
      proof: data.buildPredictionTransaction.proof,
    };
    const submits = await Promise.all(Array.from({ length: 5 }, () => t.gql(SUBMIT_PREDICTION, { i: signed }, user.headers)));
    for (const submit of submits) expect(submit.errors, JSON.stringify(submit.errors)).toBeUndefined();
    expect((await t.gql(SUBMIT_PREDICTION, { i: signed }, user.headers)).errors).toBeUndefined();
    // Refused before sending: nothing reaches the chain.
    const refused = await t.gql(SUBMIT_PREDICTION, { i: { ...signed, proof: `${signed.proof.slice(0, -3)}abc` } }, user.headers);
    expect(refused.errors?.[0]?.extensions?.code).toBe('PROOF_INVALID');

    // A transaction the chain refuses when it is sent (its vault holds no token account).
    const other = await openPool();
    const otherUser = await fundedUser(1000n);
    const otherInput = { poolId: other.id, stake: stakeOf(other), value: valueOf(other) };
    await db().update(tables.pools).set({ poolAccount: Keypair.generate().publicKey.toBase58() }).where(eq(tables.pools.id, other.id));
    try {
      const built = (await t.gql(BUILD_PREDICTION, { i: otherInput }, otherUser.headers)).data.buildPredictionTransaction;
      const signedTransaction = await otherUser.wallet.signTransaction(built.transaction);
      const rejected = await t.gql(SUBMIT_PREDICTION, { i: { ...otherInput, signedTransaction, proof: built.proof } }, otherUser.headers);
      expect(rejected.errors?.[0]?.extensions?.code).toBe('TRANSACTION_FAILED');
    } finally {
      await db().update(tables.pools).set({ poolAccount: other.poolAccount }).where(eq(tables.pools.id, other.id));
    }

    // A reward claimed 3 times at once: one payout.
    const predictionId = submits[0]!.data.submitPredictionTransaction.prediction.id as string;
    const [reward] = await db()
      .insert(tables.rewards)
      .values({ predictionId, decimals: 6, amount: 1_000_000n, precisionScore: 0.5, type: 'REWARD' })
      .returning();
    await Promise.all(Array.from({ length: 3 }, () => t.gql(CLAIM_REWARD, { id: reward!.id }, user.headers)));

    const after = await scrape();
    const delta = (labels: Record<string, string>) => sent(after, labels) - sent(before, labels);
    expect(delta({ operation: 'placePrediction', outcome: 'confirmed' })).toBe(1);
    expect(delta({ operation: 'placePrediction', outcome: 'rejected' })).toBe(1);
    expect(delta({ operation: 'claimReward', outcome: 'confirmed' })).toBe(1);
    expect(sent(after) - sent(before)).toBe(3);
  });

  it('mints test tokens on the embedded chain with requestDevTokens', async () => {
    const user = await fundedUser(0n);
    const { data, errors } = await t.gql(`mutation { requestDevTokens(amount: 25.5) { signature balance } }`, {}, user.headers);
    expect(errors, JSON.stringify(errors)).toBeUndefined();
    expect(data.requestDevTokens.balance).toBe(25.5);
    expect(await chain.balance(user.account)).toBe(25_500_000n);
    const tooMuch = await t.gql(`mutation { requestDevTokens(amount: 1000000) { balance } }`, {}, user.headers);
    expect(tooMuch.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: 'amount' });
  });

  it('settles at start-up a submission a crash left pending: effects applied once', async () => {
    const pool = await openPool();
    const user = await fundedUser(1000n);
    const input = { poolId: pool.id, stake: stakeOf(pool), value: valueOf(pool) };
    const { data } = await t.gql(BUILD_PREDICTION, { i: input }, user.headers);
    const signed = Buffer.from(await user.wallet.signTransaction(data.buildPredictionTransaction.transaction), 'base64');
    // What a gateway that crashed right after sending leaves behind: a PENDING row, the transaction on-chain.
    const wire = parseWireTransaction(signed)!;
    const { bytes, signature } = coSign(chain.runtime, wire, { expectedMessage: wire.message, custodyTransfer: null });
    const [predictor, recent] = [user.account, await chain.runtime.client.latestBlockhash()];
    const [address, bump] = PublicKey.findProgramAddressSync(
      [Buffer.from('prediction'), pool.vault.toBuffer(), predictor.toBuffer()],
      MEMO_PROGRAM_ID,
    );
    await db()
      .insert(tables.chainSubmissions)
      .values({
        idempotencyKey: sha256Hex(data.buildPredictionTransaction.proof),
        operation: 'placePrediction',
        userId: user.userId,
        params: {
          poolId: pool.id,
          stake: String(BigInt(input.stake) * TOKEN),
          value: String(input.value),
          predictorAccount: predictor.toBase58(),
          predictionAccount: address.toBase58(),
          bump: String(bump),
        },
        signature,
        transaction: Buffer.from(bytes).toString('base64'),
        lastValidBlockHeight: recent.lastValidBlockHeight,
      });
    await chain.runtime.client.send(bytes);
    expect((await poolRow(pool.id)).totalVolume).toBe(0n);

    expect((await reconcilePendingSubmissions(t.database, chain.runtime)).confirmed).toBe(1);
    expect((await reconcilePendingSubmissions(t.database, chain.runtime)).confirmed).toBe(0);
    const rows = await db().select().from(tables.predictions).where(eq(tables.predictions.userId, user.userId));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.predictionAccount).toBe(address.toBase58());
    expect(await poolRow(pool.id)).toMatchObject({ totalVolume: 3n * UNIT, indexedPredictionUpdateCount: 1 });
    expect(await chain.balance(pool.vault)).toBe(3n * UNIT);
    expect(await chain.balance(user.account)).toBe(997n * UNIT);
    const [submission] = await db().select().from(tables.chainSubmissions).where(eq(tables.chainSubmissions.userId, user.userId));
    expect(submission).toMatchObject({ signature, status: 'CONFIRMED' });
    // The client's own submit of that proof now answers with the same signature.
    const resubmitted = await t.gql(
      SUBMIT_PREDICTION,
      { i: { ...input, signedTransaction: signed.toString('base64'), proof: data.buildPredictionTransaction.proof } },
      user.headers,
    );
    expect(resubmitted.data?.submitPredictionTransaction.signature).toBe(signature);
  });
});
