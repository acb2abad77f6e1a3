import { Keypair, PublicKey } from '@solana/web3.js';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { userTokenAccount } from '../../src/chain/addresses.js';
import { ChainClient } from '../../src/chain/rpc.js';
import { syncCustodyAccounts } from '../../src/modules/transactions/custody-sync.js';
import { type ChainFixture, startChainFixture, TestKeypairWallet } from '../support/chain-fixture.js';
import { backends, startEmptyTestApp, type TestApp } from '../support/harness.js';
import { RpcCounter } from '../support/rpc-counter.js';
import { walletSignIn } from '../support/sessions.js';

const PREVIEW = `preview {
  succeeds feePayer feeLamports
  failure { error reason logs }
  rent { account payer lamports }
  instructions { program programId name accounts { role address } amount mint lamports memo }
  balanceChanges { account owner mint before after change lamportsBefore lamportsAfter lamportsChange }
}`;
const build = (name: string, input: string) => `mutation($i: ${input}!) { ${name}(input: $i) { transaction proof ${PREVIEW} } }`;
const BUILD = {
  prediction: build('buildPredictionTransaction', 'PredictionTransactionInput'),
  stake: build('buildStakeUpdateTransaction', 'StakeUpdateTransactionInput'),
  value: build('buildPredictionUpdateTransaction', 'PredictionUpdateTransactionInput'),
  withdraw: build('buildWithdrawTransaction', 'WithdrawTransactionInput'),
  fund: build('buildFundStreakTransaction', 'FundStreakTransactionInput'),
};
const SUBMIT = {
  prediction: `mutation($i: SubmitPredictionTransactionInput!) { submitPredictionTransaction(input: $i) { signature prediction { id } } }`,
  stake: `mutation($i: SubmitStakeUpdateTransactionInput!) { submitStakeUpdateTransaction(input: $i) { signature } }`,
  value: `mutation($i: SubmitPredictionUpdateTransactionInput!) { submitPredictionUpdateTransaction(input: $i) { signature } }`,
  withdraw: `mutation($i: SubmitWithdrawTransactionInput!) { submitWithdrawTransaction(input: $i) { signature } }`,
  fund: `mutation($i: SubmitFundStreakTransactionInput!) { submitFundStreakTransaction(input: $i) { signature } }`,
};
const TOKEN = 1_000_000n;

interface BalanceChange {
  account: string;
  owner: string | null;
  mint: string | null;
  before: number | null;
  after: number | null;
  change: number | null;
  lamportsBefore: number;
  lamportsAfter: number;
  lamportsChange: number;
}

describe.each(backends)('the preview of every build, against what the submit does on the embedded chain, on %s', (kind) => {
  let t: TestApp;
  let chain: ChainFixture;
  let counter: RpcCounter;

  beforeAll(async () => {
    chain = await startChainFixture();
    // The gateway talks to the chain through a counting relay: a preview must send nothing.
    counter = new RpcCounter(chain.devchain.url);
    await counter.start();
    t = await startEmptyTestApp(kind, { chain: { ...chain.runtime, client: new ChainClient(counter.url) } });
  });
  afterAll(async () => {
    await t?.close();
    await counter?.close();
    await chain?.close();
  });

  const connection = () => chain.runtime.client.connection;

  async function signedIn(tokens: bigint) {
    const wallet = new TestKeypairWallet();
    if (tokens > 0n) await chain.devchain.mintTokens(wallet.publicKey, tokens * TOKEN);
    return { wallet, ...(await signedInAgain(wallet)) };
  }
  type User = Awaited<ReturnType<typeof signedIn>>;

  async function signedInAgain(wallet: TestKeypairWallet) {
    return { headers: (await walletSignIn(t.gql, wallet)).headers };
  }

  async function openPool() {
    const { pool } = await t.seed.user().withPool({});
    await syncCustodyAccounts(t.database, chain.runtime);
    return (await t.database.db.select().from(tables.pools).where(eq(tables.pools.id, pool!.id)))[0]!;
  }

  /** Each account's balances as the chain answers them now, read one by one (not through the preview's code). */
  async function measure(changes: BalanceChange[]) {
    return Promise.all(
      changes.map(async ({ account, mint }) => {
        const address = new PublicKey(account);
        const lamports = await connection().getBalance(address);
        const tokens = mint === null ? null : Number(await chain.balance(address)) / Number(TOKEN);
        return { account, tokens, lamports };
      }),
    );
  }

  /** Build, check the preview's "before" is now, sign, submit, check its "after" is what landed: exactly. */
  async function buildAndSubmit(user: User, kind: keyof typeof BUILD, input: Record<string, unknown>) {
    const built = await t.gql(BUILD[kind], { i: input }, user.headers);
    expect(built.errors, JSON.stringify(built.errors)).toBeUndefined();
    const prepared = Object.values(built.data)[0] as { transaction: string; proof: string; preview: any };
    const { preview } = prepared;
    expect(preview.succeeds).toBe(true);
    expect(preview.failure).toBeNull();
    expect(preview.feePayer).toBe(chain.runtime.keys.relayer.publicKey.toBase58());
    const changes = preview.balanceChanges as BalanceChange[];
    expect(await measure(changes)).toEqual(changes.map((c) => ({ account: c.account, tokens: c.before, lamports: c.lamportsBefore })));
    const signedTransaction = await user.wallet.signTransaction(prepared.transaction);
    const submitted = await t.gql(SUBMIT[kind], { i: { ...input, signedTransaction, proof: prepared.proof } }, user.headers);
    expect(submitted.errors, JSON.stringify(submitted.errors)).toBeUndefined();
    expect(await measure(changes)).toEqual(changes.map((c) => ({ account: c.account, tokens: c.after, lamports: c.lamportsAfter })));
    return { preview, submitted: Object.values(submitted.data)[0] as { signature: string; prediction?: { id: string } } };
  }

  const change = (preview: any, account: PublicKey) =>
    (preview.balanceChanges as BalanceChange[]).find((c) => c.account === account.toBase58());

  it('places, raises, lowers and re-values a prediction: each preview equals the balances the submit leaves', async () => {
    const pool = await openPool();
    const vault = new PublicKey(pool.poolAccount);
    const user = await signedIn(100n);
    const userAccount = user.wallet.tokenAccount(chain.runtime.accounts.mint);
    const relayer = chain.runtime.keys.relayer.publicKey;

    const placed = await buildAndSubmit(user, 'prediction', { poolId: pool.id, stake: 3, value: Number(pool.minOutcome + 7 * pool.step) });
    expect(change(placed.preview, userAccount)).toMatchObject({
      owner: user.wallet.address,
      mint: chain.runtime.accounts.mint.toBase58(),
      before: 100,
      after: 97,
      change: -3,
    });
    expect(change(placed.preview, vault)).toMatchObject({
      owner: chain.runtime.keys.custody.publicKey.toBase58(),
      before: 0,
      after: 3,
      change: 3,
    });
    // The relayer pays the fee of both signatures and nothing else; the user pays no SOL.
    expect(placed.preview.feeLamports).toBe(10_000);
    expect(change(placed.preview, relayer)).toMatchObject({ lamportsChange: -10_000, before: null, mint: null });
    expect(placed.preview.rent).toEqual([]);
    expect(placed.preview.instructions.map((i: any) => `${i.program}.${i.name}`)).toEqual(['spl-token.transferChecked', 'memo.memo']);
    expect(placed.preview.instructions[0]).toMatchObject({
      amount: 3,
      accounts: [
        { role: 'source', address: userAccount.toBase58() },
        { role: 'mint', address: chain.runtime.accounts.mint.toBase58() },
        { role: 'destination', address: vault.toBase58() },
        { role: 'authority', address: user.wallet.address },
      ],
    });
    expect(JSON.parse(placed.preview.instructions[1].memo)).toMatchObject({ op: 'predict', pool: pool.id, stake: '3000000' });

    const predictionId = placed.submitted.prediction!.id;
    const raised = await buildAndSubmit(user, 'stake', { predictionId, stake: 5.5 });
    expect(change(raised.preview, vault)).toMatchObject({ before: 3, after: 5.5, change: 2.5 });
    const lowered = await buildAndSubmit(user, 'stake', { predictionId, stake: 1.25 });
    expect(change(lowered.preview, userAccount)).toMatchObject({ before: 94.5, after: 98.75, change: 4.25 });
    // Custody co-signs a decrease: three signatures' fee.
    expect(lowered.preview.feeLamports).toBe(15_000);
    expect(lowered.preview.instructions[0].accounts[3]).toEqual({
      role: 'authority',
      address: chain.runtime.keys.custody.publicKey.toBase58(),
    });
    const revalued = await buildAndSubmit(user, 'value', { predictionId, value: Number(pool.minOutcome + 3 * pool.step) });
    expect(revalued.preview.instructions.map((i: any) => i.name)).toEqual(['memo']);
    expect(change(revalued.preview, userAccount)).toBeUndefined();
  });

  it('withdraws to a new wallet (the user pays the rent of its account, shown) and to an existing one', async () => {
    const user = await signedIn(50n);
    await chain.devchain.airdrop(user.wallet.publicKey, 10_000_000);
    const recipient = Keypair.generate().publicKey;
    const recipientAccount = userTokenAccount(chain.runtime.accounts.mint, recipient);
    const rent = await connection().getMinimumBalanceForRentExemption(165);

    const opened = await buildAndSubmit(user, 'withdraw', { toAddress: recipient.toBase58(), amount: 12.5 });
    expect(opened.preview.rent).toEqual([{ account: recipientAccount.toBase58(), payer: user.wallet.address, lamports: rent }]);
    expect(change(opened.preview, user.wallet.publicKey)).toMatchObject({
      lamportsBefore: 10_000_000,
      lamportsAfter: 10_000_000 - rent,
      before: null,
    });
    expect(change(opened.preview, recipientAccount)).toMatchObject({
      owner: recipient.toBase58(),
      before: 0,
      after: 12.5,
      lamportsBefore: 0,
      lamportsAfter: rent,
    });
    expect(opened.preview.instructions.map((i: any) => `${i.program}.${i.name}`)).toEqual([
      'associated-token.createIdempotent',
      'spl-token.transferChecked',
      'memo.memo',
    ]);

    const again = await buildAndSubmit(user, 'withdraw', { toAddress: recipient.toBase58(), amount: 0.000001 * 2_500_000 });
    expect(again.preview.rent).toEqual([]);
    expect(change(again.preview, recipientAccount)).toMatchObject({ before: 12.5, after: 15, change: 2.5 });
  });

  it('an operator funding a streak: the preview equals what lands in the accumulator', async () => {
    const operator = await signedIn(30n);
    // Made ADMIN, then signed in again: the new session carries the role.
    await t.database.db.update(tables.users).set({ role: 'ADMIN' }).where(eq(tables.users.walletAddress, operator.wallet.address));
    const admin = { ...operator, headers: (await signedInAgain(operator.wallet)).headers };
    const streak = await t.seed.streak();
    await syncCustodyAccounts(t.database, chain.runtime);
    const [row] = await t.database.db.select().from(tables.streaks).where(eq(tables.streaks.id, streak.id));
    const { preview } = await buildAndSubmit(admin, 'fund', { streakId: streak.id, amount: 7.25 });
    expect(change(preview, new PublicKey(row!.streakAccumulatorAccount))).toMatchObject({ before: 0, after: 7.25, change: 7.25 });
    expect(change(preview, operator.wallet.tokenAccount(chain.runtime.accounts.mint))).toMatchObject({ before: 30, after: 22.75 });
  });

  it('requestDevSol airdrops SOL for rent, up to 1 SOL a call: a user who had none withdraws to a new wallet', async () => {
    const user = await signedIn(10n);
    const recipient = Keypair.generate().publicKey;
    const refused = await t.gql(BUILD.withdraw, { i: { toAddress: recipient.toBase58(), amount: 1 } }, user.headers);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'INSUFFICIENT_FUNDS', reason: 'RECIPIENT_ACCOUNT_RENT' });
    const { data, errors } = await t.gql(`mutation { requestDevSol(lamports: 5000000) { signature lamports } }`, {}, user.headers);
    expect(errors, JSON.stringify(errors)).toBeUndefined();
    expect(data.requestDevSol.lamports).toBe(5_000_000);
    expect(await connection().getBalance(user.wallet.publicKey)).toBe(5_000_000);
    const { preview } = await buildAndSubmit(user, 'withdraw', { toAddress: recipient.toBase58(), amount: 1 });
    expect(preview.rent).toHaveLength(1);
    for (const lamports of [0, 1_000_000_001, 1.5]) {
      const tooMuch = await t.gql(`mutation($l: Int!) { requestDevSol(lamports: $l) { lamports } }`, { l: lamports }, user.headers);
      expect(tooMuch.errors?.[0]?.extensions?.code, String(lamports)).toBe('BAD_USER_INPUT');
    }
    const anonymous = await t.gql(`mutation { requestDevSol(lamports: 1) { lamports } }`);
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('a transaction that would fail: the preview says so with the program’s reason; nothing is sent; submit refuses it', async () => {
    const pool = await openPool();
    const user = await signedIn(20n);
    const userAccount = user.wallet.tokenAccount(chain.runtime.accounts.mint);
    // A vault address holding no token account: every check of the service passes, the Token program refuses.
    const nowhere = Keypair.generate().publicKey.toBase58();
    await t.database.db.update(tables.pools).set({ poolAccount: nowhere }).where(eq(tables.pools.id, pool.id));
    const sentBefore = counter.calls.filter((call) => call.method === 'sendTransaction').length;
    const input = { poolId: pool.id, stake: 2, value: Number(pool.minOutcome) };
    const built = await t.gql(BUILD.prediction, { i: input }, user.headers);
    expect(built.errors).toBeUndefined();
    const { preview, transaction, proof } = built.data.buildPredictionTransaction;
    expect(preview.succeeds).toBe(false);
    expect(JSON.parse(preview.failure.error)).toEqual({ InstructionError: [0, expect.anything()] });
    expect(preview.failure.reason).toMatch(/invalid account data|uninitialized|not initialized|IncorrectProgramId|InvalidAccountData/i);
    expect(preview.failure.logs.length).toBeGreaterThan(0);
    // Nothing would change: every "after" is its "before".
    for (const c of preview.balanceChanges as BalanceChange[]) expect([c.after, c.lamportsAfter]).toEqual([c.before, c.lamportsBefore]);
    expect(counter.calls.filter((call) => call.method === 'sendTransaction').length).toBe(sentBefore);
    const signedTransaction = await user.wallet.signTransaction(transaction);
    const submitted = await t.gql(SUBMIT.prediction, { i: { ...input, signedTransaction, proof } }, user.headers);
    expect(submitted.errors?.[0]?.extensions?.code).toBe('TRANSACTION_FAILED');
    expect(await chain.balance(userAccount)).toBe(20n * TOKEN);
  });
  it('a withdrawal to the service’s own relayer or custody wallet is refused at build, as at submit: no preview promises it', async () => {
    const user = await signedIn(10n);
    const sentBefore = counter.calls.filter((call) => call.method === 'sendTransaction').length;
    for (const [wallet, name] of [
      [chain.runtime.keys.relayer.publicKey, 'relayer'],
      [chain.runtime.keys.custody.publicKey, 'custody'],
    ] as const) {
      const input = { toAddress: wallet.toBase58(), amount: 1 };
      const built = await t.gql(BUILD.withdraw, { i: input }, user.headers);
      expect(built.data).toBeNull();
      expect(built.errors?.[0]?.extensions, name).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: 'input.toAddress' });
      expect(built.errors?.[0]?.message).toContain(name);
      // Submit, given a transaction the service never built for it, refuses it the same way.
      const submitted = await t.gql(SUBMIT.withdraw, { i: { ...input, signedTransaction: 'AA==', proof: 'x' } }, user.headers);
      expect(submitted.errors?.[0]?.extensions?.code, name).toMatch(/BAD_USER_INPUT|PROOF_INVALID/);
    }
    expect(counter.calls.filter((call) => call.method === 'sendTransaction').length).toBe(sentBefore);
    expect(await chain.balance(user.wallet.tokenAccount(chain.runtime.accounts.mint))).toBe(10n * TOKEN);
  });
});
