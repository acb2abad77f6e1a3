import { createCloseAccountInstruction, createTransferCheckedInstruction } from '@solana/spl-token';
import { Keypair, LAMPORTS_PER_SOL, PublicKey, Transaction, TransactionInstruction } from '@solana/web3.js';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { MEMO_PROGRAM_ID, userTokenAccount } from '../../src/chain/addresses.js';
import { signProof } from '../../src/chain/proof.js';
import { deriveProofSecret } from '../../src/chain/runtime.js';
import { hashMessage } from '../../src/chain/transactions.js';
import { syncCustodyAccounts } from '../../src/modules/transactions/custody-sync.js';
import { type ChainFixture, startChainFixture, TestKeypairWallet } from '../support/chain-fixture.js';
import { UNIT } from '../support/fixtures/builders.js';
import { backends, metricSample, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { walletSignIn } from '../support/sessions.js';

/**
 * The relayer's and custody's signing rules, tried as an attacker would: what can a signed-in user make the
 * relayer pay, or custody sign? Every figure is read from the chain (lamports, token
 * balances), never assumed.
 */
const BUILD_PREDICTION = `mutation($i: PredictionTransactionInput!) { buildPredictionTransaction(input: $i) { transaction proof } }`;
const SUBMIT_PREDICTION = `mutation($i: SubmitPredictionTransactionInput!) { submitPredictionTransaction(input: $i) { signature prediction { id stake } } }`;
const SUBMIT_STAKE = `mutation($i: SubmitStakeUpdateTransactionInput!) { submitStakeUpdateTransaction(input: $i) { signature } }`;
const BUILD_WITHDRAW = `mutation($i: WithdrawTransactionInput!) { buildWithdrawTransaction(input: $i) { transaction proof } }`;
const SUBMIT_WITHDRAW = `mutation($i: SubmitWithdrawTransactionInput!) { submitWithdrawTransaction(input: $i) { signature } }`;
const TOKEN = 1_000_000n;
/** The service secret of test mode: public, so an attacker derives the proof key from it. */
const config = testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000' });

describe.each(backends)('what a hostile user can make the relayer pay or custody sign, on %s', (kind) => {
  let t: TestApp;
  let chain: ChainFixture;

  beforeAll(async () => {
    chain = await startChainFixture();
    // As in production: the proof key is derived from the service secret.
    chain.runtime.proofSecret = deriveProofSecret(config.auth.secret);
    t = await startEmptyTestApp(kind, { chain: chain.runtime, config });
    // The rows the attacks need: an open pool whose vault (made on the chain as at start-up)
    // holds another user's 100 tokens, so a forged 50-token transfer out of it could succeed.
    await t.seed
      .user()
      .withPool({ maxStake: 1000n * UNIT })
      .withPrediction({ stake: 100n * UNIT });
    expect(await syncCustodyAccounts(t.database, chain.runtime)).toEqual({ pools: 1, streaks: 0 });
  });
  afterAll(async () => {
    await t?.close();
    await chain?.close();
  });

  const connection = () => chain.runtime.client.connection;
  const relayer = () => chain.runtime.keys.relayer.publicKey;
  const mint = () => chain.runtime.accounts.mint;
  const lamports = async (address: PublicKey) => BigInt(await connection().getBalance(address));
  const scrape = async () => (await t.app.inject({ url: '/metrics' })).body;

  async function signedIn(tokens: bigint, sol = 0n) {
    const wallet = new TestKeypairWallet();
    if (tokens > 0n) await chain.devchain.mintTokens(wallet.publicKey, tokens * TOKEN);
    if (sol > 0n) await chain.devchain.airdrop(wallet.publicKey, sol);
    const { headers, userId } = await walletSignIn(t.gql, wallet);
    return { wallet, headers, userId, account: wallet.tokenAccount(mint()) };
  }
  type User = Awaited<ReturnType<typeof signedIn>>;

  async function twoStep(user: User, build: string, submit: string, input: Record<string, unknown>) {
    const built = await t.gql(build, { i: input }, user.headers);
    expect(built.errors, JSON.stringify(built.errors)).toBeUndefined();
    const prepared = Object.values(built.data)[0] as { transaction: string; proof: string };
    const submitted = await t.gql(
      submit,
      { i: { ...input, signedTransaction: await user.wallet.signTransaction(prepared.transaction), proof: prepared.proof } },
      user.headers,
    );
    expect(submitted.errors, JSON.stringify(submitted.errors)).toBeUndefined();
    return (Object.values(submitted.data)[0] as { signature: string }).signature;
  }

  /** Sends a transaction of the user's own (not through the service), fee paid by `payer`. */
  async function sendOwn(payer: Keypair, signers: Keypair[], ...instructions: TransactionInstruction[]) {
    const recent = await chain.runtime.client.latestBlockhash();
    const transaction = new Transaction({ feePayer: payer.publicKey, ...recent }).add(...instructions);
    transaction.sign(payer, ...signers);
    const signature = await chain.runtime.client.send(transaction.serialize());
    expect((await chain.runtime.client.confirm(signature, recent.lastValidBlockHeight))?.err).toBeNull();
  }

  const fee = async (signature: string) =>
    BigInt((await connection().getTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }))!.meta!.fee);
  const submissions = async () =>
    Number(((await t.database.db.select({ n: count() }).from(tables.chainSubmissions)) as [{ n: number }])[0].n);

  it('a loop of withdraw to a fresh wallet, return and close costs the relayer only the signature fees it sponsored; the metrics show it', async () => {
    const user = await signedIn(100n, BigInt(LAMPORTS_PER_SOL) / 20n);
    const accomplice = Keypair.generate();
    const accompliceAccount = userTokenAccount(mint(), accomplice.publicKey);
    const start = { relayer: await lamports(relayer()), user: await lamports(user.wallet.publicKey), metrics: await scrape() };
    const fees: bigint[] = [];
    for (let cycle = 1; cycle <= 5; cycle++) {
      // A different amount each cycle, so no two builds are the same request.
      const signature = await twoStep(user, BUILD_WITHDRAW, SUBMIT_WITHDRAW, { toAddress: accomplice.publicKey.toBase58(), amount: cycle });
      fees.push(await fee(signature));
      const units = BigInt(cycle) * TOKEN;
      expect(await chain.balance(accompliceAccount)).toBe(units);
      // The tokens go back and the account is closed, its rent to the accomplice.
      await sendOwn(
        user.wallet.keypair,
        [accomplice],
        createTransferCheckedInstruction(
          accompliceAccount,
          mint(),
          user.account,
          accomplice.publicKey,
          units,
          chain.runtime.accounts.decimals,
        ),
        createCloseAccountInstruction(accompliceAccount, accomplice.publicKey, accomplice.publicKey),
      );
      expect(await connection().getAccountInfo(accompliceAccount)).toBeNull();
    }
    const sponsoredFees = fees.reduce((sum, f) => sum + f, 0n);
    // Two signatures each (relayer, user): the fees it chose to sponsor, and nothing else.
    expect(sponsoredFees).toBe(5n * 2n * 5000n);
    expect(start.relayer - (await lamports(relayer()))).toBe(sponsoredFees);
    // The rent the accomplice collected came out of the user's own SOL.
    const rent = BigInt(await connection().getMinimumBalanceForRentExemption(165));
    expect(await lamports(accomplice.publicKey)).toBe(5n * rent);
    expect(await chain.balance(user.account)).toBe(100n * TOKEN);

    const end = await scrape();
    const spent = (kind: string, text: string) =>
      metricSample(text, 'poolgraph_relayer_spent_lamports_total', { operation: 'withdraw', kind });
    expect(spent('fee', end) - spent('fee', start.metrics)).toBe(Number(sponsoredFees));
    expect(spent('sponsored', end) - spent('sponsored', start.metrics)).toBe(0);
    expect(metricSample(end, 'poolgraph_relayer_balance_lamports')).toBe(Number(await lamports(relayer())));
    const rows = await t.database.db.select().from(tables.chainSubmissions).where(eq(tables.chainSubmissions.userId, user.userId));
    expect(rows.map((r) => [r.relayerFeeLamports, r.relayerSponsoredLamports])).toEqual(fees.map((f) => [f, 0n]));
  });

  it('a withdrawal needing a new token account from a user without SOL is refused, and moves nothing', async () => {
    const user = await signedIn(10n);
    const before = { relayer: await lamports(relayer()), tokens: await chain.balance(user.account), submissions: await submissions() };
    const refused = await t.gql(BUILD_WITHDRAW, { i: { toAddress: Keypair.generate().publicKey.toBase58(), amount: 1 } }, user.headers);
    expect(refused.errors?.[0]?.extensions).toMatchObject({
      code: 'INSUFFICIENT_FUNDS',
      argumentName: 'input.toAddress',
      reason: 'RECIPIENT_ACCOUNT_RENT',
      balanceLamports: '0',
    });
    expect({ relayer: await lamports(relayer()), tokens: await chain.balance(user.account), submissions: await submissions() }).toEqual(
      before,
    );

    // To an account that exists, the same user needs no SOL: the relayer pays the fee alone.
    const holder = await signedIn(1n);
    const signature = await twoStep(user, BUILD_WITHDRAW, SUBMIT_WITHDRAW, { toAddress: holder.wallet.address, amount: 1 });
    expect(before.relayer - (await lamports(relayer()))).toBe(await fee(signature));
    expect(await chain.balance(holder.account)).toBe(2n * TOKEN);
  });

  describe('with the proof key known to the attacker', () => {
    let attacker: User;
    let pool: typeof tables.pools.$inferSelect;
    let predictionId: string;

    beforeAll(async () => {
      attacker = await signedIn(1000n);
      const pools = await t.database.db.select().from(tables.pools);
      expect(pools).toHaveLength(1);
      pool = pools[0]!;
      const stake = Number((pool.minStake * 3n) / TOKEN);
      const value = Number((pool.minOutcome + 2 * pool.step).toFixed(pool.precision));
      const built = (await t.gql(BUILD_PREDICTION, { i: { poolId: pool.id, stake, value } }, attacker.headers)).data
        .buildPredictionTransaction;
      const placed = await t.gql(
        SUBMIT_PREDICTION,
        {
          i: {
            poolId: pool.id,
            stake,
            value,
            signedTransaction: await attacker.wallet.signTransaction(built.transaction),
            proof: built.proof,
          },
        },
        attacker.headers,
      );
      expect(placed.errors, JSON.stringify(placed.errors)).toBeUndefined();
      predictionId = placed.data.submitPredictionTransaction.prediction.id;
    });

    /** A proof the attacker signs with the derived key, for a message of their choosing, which they sign too. */
    async function forge(
      operation: string,
      params: Record<string, string>,
      derived: Record<string, string>,
      ...instructions: TransactionInstruction[]
    ) {
      const recent = await chain.runtime.client.latestBlockhash();
      const transaction = new Transaction({ feePayer: relayer(), ...recent }).add(...instructions);
      const attackerKey = deriveProofSecret(config.auth.secret);
      const proof = await signProof(
        attackerKey,
        { operation, userId: attacker.userId, params, derived, messageHash: hashMessage(transaction.serializeMessage()), ...recent },
        new Date(Date.now() + 60_000),
      );
      transaction.partialSign(attacker.wallet.keypair);
      return {
        proof,
        signedTransaction: transaction.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64'),
      };
    }

    const vaultToAttacker = (amount: bigint) =>
      createTransferCheckedInstruction(
        new PublicKey(pool.poolAccount),
        mint(),
        attacker.account,
        chain.runtime.keys.custody.publicKey,
        amount,
        chain.runtime.accounts.decimals,
      );
    const memo = (record: object) =>
      new TransactionInstruction({
        programId: MEMO_PROGRAM_ID,
        keys: [{ pubkey: attacker.wallet.publicKey, isSigner: true, isWritable: false }],
        data: Buffer.from(JSON.stringify(record)),
      });

    const snapshot = async () => ({
      vault: await chain.balance(new PublicKey(pool.poolAccount)),
      attacker: await chain.balance(attacker.account),
      relayer: await lamports(relayer()),
      submissions: await submissions(),
    });

    it('a forged stake decrease moving 50 tokens from the vault to the attacker is refused: PROOF_INVALID, no token moves', async () => {
      const [prediction] = await t.database.db.select().from(tables.predictions).where(eq(tables.predictions.id, predictionId));
      const lowered = pool.minStake;
      const input = { predictionId, stake: Number(lowered) / 1e6 };
      // Everything the service checks besides the message: the right proof claims, the state's revision and delta.
      const forged = await forge(
        'updateStake',
        { predictionId, stake: String(input.stake) },
        { revision: '2', delta: String(lowered - prediction!.stake) },
        vaultToAttacker(50n * TOKEN),
        memo({ v: 1, op: 'stake', pool: pool.id, prediction: prediction!.predictionAccount, stake: lowered.toString(), rev: 2 }),
      );
      const before = await snapshot();
      const response = await t.gql(SUBMIT_STAKE, { i: { ...input, ...forged } }, attacker.headers);
      expect(response.errors?.[0]?.extensions?.code, JSON.stringify(response.errors)).toBe('PROOF_INVALID');
      expect(await snapshot()).toEqual(before);
    });

    it('a forged withdrawal carrying a vault-to-attacker transfer is refused: custody signs nothing, no token moves', async () => {
      const holder = await signedIn(1n);
      // What the service derives for this withdrawal, read from a genuine proof (its payload is not secret).
      const genuine = await t.gql(BUILD_WITHDRAW, { i: { toAddress: holder.wallet.address, amount: 1 } }, attacker.headers);
      const derived = JSON.parse(Buffer.from(genuine.data.buildWithdrawTransaction.proof.split('.')[1], 'base64url').toString())
        .drv as Record<string, string>;
      const forged = await forge(
        'withdraw',
        { amount: '1', toAddress: holder.wallet.address },
        derived,
        vaultToAttacker(50n * TOKEN),
        createTransferCheckedInstruction(
          attacker.account,
          mint(),
          holder.account,
          attacker.wallet.publicKey,
          TOKEN,
          chain.runtime.accounts.decimals,
        ),
        memo({ v: 1, op: 'withdraw', amount: TOKEN.toString(), to: holder.wallet.address }),
      );
      const before = await snapshot();
      const response = await t.gql(SUBMIT_WITHDRAW, { i: { toAddress: holder.wallet.address, amount: 1, ...forged } }, attacker.headers);
      expect(response.errors?.[0]?.extensions?.code, JSON.stringify(response.errors)).toBe('PROOF_INVALID');
      expect(await snapshot()).toEqual(before);
      expect(await chain.balance(holder.account)).toBe(TOKEN);
    });
  });

  it('a user whose transactions have cost the relayer the cap beyond fees gets nothing more signed', async () => {
    const user = await signedIn(10n);
    const holder = await signedIn(1n);
    // Fault injected: a past leak of the size of the cap, which the rules no longer let any transaction produce.
    await t.database.db.insert(tables.chainSubmissions).values({
      idempotencyKey: `injected-leak-${user.userId}`,
      operation: 'withdraw',
      userId: user.userId,
      params: {},
      signature: Keypair.generate().publicKey.toBase58(),
      transaction: '',
      lastValidBlockHeight: 0,
      status: 'CONFIRMED',
      confirmedAt: new Date(),
      relayerSponsoredLamports: chain.runtime.sponsorCapLamports,
    });
    const before = { relayer: await lamports(relayer()), tokens: await chain.balance(user.account), submissions: await submissions() };
    const built = (await t.gql(BUILD_WITHDRAW, { i: { toAddress: holder.wallet.address, amount: 1 } }, user.headers)).data
      .buildWithdrawTransaction;
    const response = await t.gql(
      SUBMIT_WITHDRAW,
      {
        i: {
          toAddress: holder.wallet.address,
          amount: 1,
          signedTransaction: await user.wallet.signTransaction(built.transaction),
          proof: built.proof,
        },
      },
      user.headers,
    );
    expect(response.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'RELAYER_SPONSOR_CAP' });
    expect({ relayer: await lamports(relayer()), tokens: await chain.balance(user.account), submissions: await submissions() }).toEqual(
      before,
    );
  });
});
