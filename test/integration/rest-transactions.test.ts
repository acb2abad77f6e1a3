import { PublicKey } from '@solana/web3.js';
import { eq } from 'drizzle-orm';
import createClient, { type Client } from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import type { StreakRow } from '../../schema/index.js';
import { userTokenAccount } from '../../src/chain/addresses.js';
import { syncCustodyAccounts } from '../../src/modules/transactions/custody-sync.js';
import { UNIT } from '../support/fixtures/builders.js';
import { type ChainFixture, startChainFixture, TestKeypairWallet } from '../support/chain-fixture.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import type { paths } from '../support/rest-api.gen.js';

const TOKEN = 1_000_000n;

/** GraphQL's answer in the interface's names: keys to snake_case, `{ nodes }` connections to arrays (written apart from the code under test). */
function snakeCase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeCase);
  if (value === null || typeof value !== 'object') return value;
  if ('nodes' in value && Object.keys(value).length === 1) return snakeCase((value as { nodes: unknown }).nodes);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snakeCase(v)]));
}

const PREDICTION_SELECTION = `id createdAt updatedAt poolId userId poolAccount predictorAccount predictionAccount prediction precision
  stakeTokenMint stake decimals lastAppliedValueRevision lastAppliedStakeRevision isFeePayer isClosed bump lastSyncAt`;

describe.each(backends)('REST transactions with the typed client generated from /openapi.json, on %s', (kind) => {
  let t: TestApp;
  let chain: ChainFixture;
  let baseUrl: string;
  let streak: StreakRow;

  /**
   * Four open pools (the tests take one each, the first test two) whose largest stake is
   * more than a user's 1000 tokens, and a streak holding 10 tokens for the streak rewards; their custody
   * accounts are made on the chain as at start-up.
   */
  beforeAll(async () => {
    chain = await startChainFixture();
    t = await startEmptyTestApp(kind, { chain: chain.runtime, config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000' }) });
    streak = await t.seed.streak({ onchainBalance: 10n * UNIT });
    const open = { maxStake: 5000n * UNIT };
    await t.seed.user().withPool(open).withPool(open).withPool(open).withPool(open);
    expect(await syncCustodyAccounts(t.database, chain.runtime)).toEqual({ pools: 4, streaks: 1 });
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t?.close();
    await chain?.close();
  });

  /** A wallet holding `tokens`, signed in through the REST wallet routes; its typed client sends the access token. */
  async function signedInClient(tokens: bigint) {
    const wallet = new TestKeypairWallet();
    if (tokens > 0n) await chain.devchain.mintTokens(wallet.publicKey, tokens * TOKEN);
    const anonymous = createClient<paths>({ baseUrl });
    const challenge = await anonymous.POST('/auth/wallet/challenge', { body: { wallet_address: wallet.address } });
    expect(challenge.response.status).toBe(200);
    const session = await anonymous.POST('/auth/wallet/sign-in', {
      body: {
        wallet_address: wallet.address,
        message: challenge.data!.message,
        signature: await wallet.signMessage(challenge.data!.message),
      },
    });
    expect(session.response.status).toBe(200);
    const client = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${session.data!.access_token}` } });
    return {
      wallet,
      client,
      token: session.data!.access_token,
      userId: session.data!.user.id,
      account: wallet.tokenAccount(chain.runtime.accounts.mint),
    };
  }

  /** An open pool (listed through the typed client) that `exclude` has not taken yet. */
  async function openPool(client: Client<paths>, taken: Set<string>) {
    const { data, response } = await client.GET('/pools', { params: { query: { filter_by: ['ACTIVE'], sort_by: 'END_DATE', limit: 50 } } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-total-count')).toBe('4');
    expect(data).toHaveLength(4);
    const pool = data!.find((p) => !taken.has(p.id))!;
    taken.add(pool.id);
    return pool;
  }
  const taken = new Set<string>();
  const valueOn = (pool: { min_outcome: number; step: number; precision: number }, k: number) =>
    Number((pool.min_outcome + k * pool.step).toFixed(pool.precision));

  it('places a prediction, changes its stake and value, withdraws: each build and submit pair, submits not repeating the parameters', async () => {
    const user = await signedInClient(1000n);
    const pool = await openPool(user.client, taken);
    const vault = new PublicKey(pool.pool_account);
    const stake = pool.min_stake * 3;
    const before = { user: await chain.balance(user.account), vault: await chain.balance(vault) };

    const built = await user.client.POST('/transactions/prediction', { body: { pool_id: pool.id, stake, value: valueOn(pool, 7) } });
    expect(built.response.status, JSON.stringify(built.error)).toBe(200);
    const submitted = await user.client.POST('/transactions/prediction/submit', {
      body: { pool_id: pool.id, signed_transaction: await user.wallet.signTransaction(built.data!.transaction), proof: built.data!.proof },
    });
    expect(submitted.response.status, JSON.stringify(submitted.error)).toBe(200);
    const stakeUnits = BigInt(Math.round(stake * 1e6));
    expect(await chain.balance(user.account)).toBe(before.user - stakeUnits);
    expect(await chain.balance(vault)).toBe(before.vault + stakeUnits);
    // The build's preview, in the REST names, foretold exactly these balances.
    const preview = built.data!.preview;
    expect(preview).toMatchObject({ succeeds: true, failure: null, fee_lamports: 10_000, rent: [] });
    expect(preview.instructions.map((i) => `${i.program}.${i.name}`)).toEqual(['spl-token.transferChecked', 'memo.memo']);
    const tokensOf = (account: PublicKey) => preview.balance_changes.find((c) => c.account === account.toBase58());
    expect(tokensOf(user.account)).toMatchObject({
      before: Number(before.user) / 1e6,
      after: Number(before.user - stakeUnits) / 1e6,
      owner: user.wallet.address,
    });
    expect(tokensOf(vault)).toMatchObject({
      before: Number(before.vault) / 1e6,
      after: Number(before.vault + stakeUnits) / 1e6,
      change: stake,
    });
    // The REST answer is GraphQL's record of the same prediction, in snake_case.
    const prediction = submitted.data!.prediction!;
    const graphql = await t.gql(`query($id: ID!) { pool(id: $id) { predictions(first: 100) { nodes { ${PREDICTION_SELECTION} } } } }`, {
      id: pool.id,
    });
    expect(prediction).toEqual(snakeCase(graphql.data.pool.predictions.nodes.find((p: { id: string }) => p.id === prediction.id)));
    expect(prediction).toMatchObject({ stake, prediction: valueOn(pool, 7), user_id: user.userId, pool_id: pool.id });

    // Stake update: a repeated parameter that differs from the proof's is refused, and nothing changes.
    const stakeBuilt = await user.client.POST('/transactions/stake/update', { body: { prediction_id: prediction.id, stake: stake * 2 } });
    expect(stakeBuilt.response.status, JSON.stringify(stakeBuilt.error)).toBe(200);
    const signedStake = await user.wallet.signTransaction(stakeBuilt.data!.transaction);
    const mismatch = await user.client.POST('/transactions/stake/update/submit', {
      body: { prediction_id: prediction.id, stake: stake * 4, signed_transaction: signedStake, proof: stakeBuilt.data!.proof },
    });
    expect(mismatch.response.status).toBe(400);
    expect(mismatch.error).toMatchObject({ error: { code: 'PROOF_INVALID', argumentName: 'proof' } });
    // Sent to the value update's submit, the stake update's proof is refused naming where it belongs.
    const elsewhere = await user.client.POST('/transactions/prediction/update/submit', {
      body: { prediction_id: prediction.id, signed_transaction: signedStake, proof: stakeBuilt.data!.proof },
    });
    expect([elsewhere.response.status, elsewhere.error]).toEqual([
      400,
      {
        error: {
          code: 'PROOF_INVALID',
          argumentName: 'proof',
          message:
            'The proof was built for updateStake, not updateValue: submit it with submitStakeUpdateTransaction ' +
            '(REST: POST /transactions/stake/update/submit)',
        },
      },
    ]);
    expect((await t.database.db.select().from(tables.predictions).where(eq(tables.predictions.id, prediction.id)))[0]!.stake).toBe(
      stakeUnits,
    );
    const stakeSubmitted = await user.client.POST('/transactions/stake/update/submit', {
      body: { prediction_id: prediction.id, stake: stake * 2, signed_transaction: signedStake, proof: stakeBuilt.data!.proof },
    });
    expect(stakeSubmitted.response.status, JSON.stringify(stakeSubmitted.error)).toBe(200);
    expect(stakeSubmitted.data!.prediction).toMatchObject({ id: prediction.id, stake: stake * 2, last_applied_stake_revision: 2 });

    const valueBuilt = await user.client.POST('/transactions/prediction/update', {
      body: { prediction_id: prediction.id, value: valueOn(pool, 9) },
    });
    expect(valueBuilt.response.status, JSON.stringify(valueBuilt.error)).toBe(200);
    const valueSubmitted = await user.client.POST('/transactions/prediction/update/submit', {
      body: {
        prediction_id: prediction.id,
        signed_transaction: await user.wallet.signTransaction(valueBuilt.data!.transaction),
        proof: valueBuilt.data!.proof,
      },
    });
    expect(valueSubmitted.response.status, JSON.stringify(valueSubmitted.error)).toBe(200);
    expect(valueSubmitted.data!.prediction).toMatchObject({
      id: prediction.id,
      prediction: valueOn(pool, 9),
      last_applied_value_revision: 2,
    });

    const recipient = new TestKeypairWallet();
    // The recipient has no token account: the user's own SOL pays its rent (docs/security.md), asked of the dev chain's faucet.
    const sol = await user.client.POST('/dev/sol', { body: { lamports: 10_000_000 } });
    expect([sol.response.status, sol.data?.lamports], JSON.stringify(sol.error)).toEqual([200, 10_000_000]);
    const tokens = await user.client.POST('/dev/tokens', { body: { amount: 5 } });
    expect(tokens.response.status, JSON.stringify(tokens.error)).toBe(200);
    expect(tokens.data!.balance).toBe(Number(await chain.balance(user.account)) / 1e6);
    const withdrawBuilt = await user.client.POST('/transactions/withdraw', { body: { to_address: recipient.address, amount: 2.5 } });
    expect(withdrawBuilt.response.status, JSON.stringify(withdrawBuilt.error)).toBe(200);
    const withdrawn = await user.client.POST('/transactions/withdraw/submit', {
      body: { signed_transaction: await user.wallet.signTransaction(withdrawBuilt.data!.transaction), proof: withdrawBuilt.data!.proof },
    });
    expect(withdrawn.response.status, JSON.stringify(withdrawn.error)).toBe(200);
    expect(withdrawn.data!.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    expect(await chain.balance(userTokenAccount(chain.runtime.accounts.mint, recipient.publicKey))).toBe(2_500_000n);

    // Errors keep the catalogue's status: a second prediction on the pool, too large a stake, a forged proof, no credentials.
    const again = await user.client.POST('/transactions/prediction', { body: { pool_id: pool.id, stake, value: valueOn(pool, 7) } });
    expect([again.response.status, again.error?.error.code]).toEqual([409, 'ALREADY_PREDICTED']);
    const other = await openPool(user.client, taken);
    const tooMuch = await user.client.POST('/transactions/prediction', {
      body: { pool_id: other.id, stake: other.max_stake, value: valueOn(other, 1) },
    });
    expect([tooMuch.response.status, tooMuch.error?.error.code]).toEqual([409, 'INSUFFICIENT_FUNDS']);
    const forged = await user.client.POST('/transactions/withdraw/submit', { body: { signed_transaction: 'AAAA', proof: 'not-a-proof' } });
    expect([forged.response.status, forged.error?.error.code]).toEqual([400, 'PROOF_INVALID']);
    const anonymous = await createClient<paths>({ baseUrl }).POST('/transactions/prediction', {
      body: { pool_id: other.id, stake, value: valueOn(other, 1) },
    });
    expect([anonymous.response.status, anonymous.error?.error.code]).toEqual([401, 'UNAUTHENTICATED']);
    const badBody = await user.client.POST('/transactions/prediction', { body: { pool_id: other.id, stake: -1, value: 1 } });
    expect(badBody.response.status).toBe(400);
    expect(badBody.error).toMatchObject({ error: { code: 'BAD_USER_INPUT', argumentName: 'stake' } });
    // A value outside the pool's range: named as the body names it, with both bounds and the value given.
    const outside = other.max_outcome + other.step;
    const outOfRange = await user.client.POST('/transactions/prediction', { body: { pool_id: other.id, stake, value: outside } });
    expect([outOfRange.response.status, outOfRange.error]).toEqual([
      400,
      {
        error: {
          code: 'BAD_USER_INPUT',
          argumentName: 'value',
          message: `value must be between ${other.min_outcome} and ${other.max_outcome} (the pool's minOutcome and maxOutcome); got ${outside}`,
        },
      },
    ]);
  });

  it('claims a reward and a streak reward in one step each', async () => {
    const user = await signedInClient(1000n);
    const pool = await openPool(user.client, taken);
    const built = await user.client.POST('/transactions/prediction', {
      body: { pool_id: pool.id, stake: pool.min_stake * 3, value: valueOn(pool, 3) },
    });
    const placed = await user.client.POST('/transactions/prediction/submit', {
      body: { signed_transaction: await user.wallet.signTransaction(built.data!.transaction), proof: built.data!.proof },
    });
    expect(placed.response.status, JSON.stringify(placed.error)).toBe(200);
    const [reward] = await t.database.db
      .insert(tables.rewards)
      .values({ predictionId: placed.data!.prediction!.id, decimals: 6, amount: 1_250_000n, precisionScore: 0.9, type: 'REWARD' })
      .returning();
    const before = await chain.balance(user.account);
    const claimed = await user.client.POST('/transactions/claim-reward', { body: { reward_id: reward!.id } });
    expect(claimed.response.status, JSON.stringify(claimed.error)).toBe(200);
    expect(claimed.data!.reward).toMatchObject({
      id: reward!.id,
      is_claimed: true,
      amount: 1.25,
      type: 'REWARD',
      prediction_id: placed.data!.prediction!.id,
    });
    expect(await chain.balance(user.account)).toBe(before + 1_250_000n);
    const twice = await user.client.POST('/transactions/claim-reward', { body: { reward_id: reward!.id } });
    expect([twice.response.status, twice.error?.error.code]).toEqual([409, 'ALREADY_CLAIMED']);
    const unknown = await user.client.POST('/transactions/claim-reward', { body: { reward_id: '00000000-0000-4000-8000-000000000000' } });
    expect([unknown.response.status, unknown.error?.error.code]).toEqual([404, 'NOT_FOUND']);

    const [streakReward] = await t.database.db
      .insert(tables.streakRewards)
      .values({ streakId: streak.id, userWalletAddress: user.wallet.address, amount: 500_000n })
      .returning();
    const streakClaimed = await user.client.POST('/transactions/claim-streak-reward', { body: { streak_reward_id: streakReward!.id } });
    expect(streakClaimed.response.status, JSON.stringify(streakClaimed.error)).toBe(200);
    expect(streakClaimed.data!.streak_reward).toMatchObject({ id: streakReward!.id, is_claimed: true, amount: 0.5, streak_id: streak.id });
    const stranger = await signedInClient(0n);
    const [otherReward] = await t.database.db
      .insert(tables.streakRewards)
      .values({ streakId: streak.id, userWalletAddress: user.wallet.address, amount: 1n })
      .returning();
    const forbidden = await stranger.client.POST('/transactions/claim-streak-reward', { body: { streak_reward_id: otherReward!.id } });
    expect([forbidden.response.status, forbidden.error?.error.code]).toEqual([403, 'FORBIDDEN']);
  });

  it('GraphQL submits take the build parameters as optional too; given ones must match the proof', async () => {
    const user = await signedInClient(1000n);
    const pool = await openPool(user.client, taken);
    const headers = { authorization: `Bearer ${user.token}` };
    const input = { poolId: pool.id, stake: pool.min_stake * 2, value: valueOn(pool, 4) };
    const built = await t.gql(
      `mutation($i: PredictionTransactionInput!) { buildPredictionTransaction(input: $i) { transaction proof } }`,
      { i: input },
      headers,
    );
    const { transaction, proof } = built.data.buildPredictionTransaction;
    const signedTransaction = await user.wallet.signTransaction(transaction);
    const SUBMIT = `mutation($i: SubmitPredictionTransactionInput!) { submitPredictionTransaction(input: $i) { signature prediction { stake prediction } } }`;
    const mismatch = await t.gql(SUBMIT, { i: { value: valueOn(pool, 5), signedTransaction, proof } }, headers);
    expect(mismatch.errors?.[0]?.extensions?.code).toBe('PROOF_INVALID');
    const ok = await t.gql(SUBMIT, { i: { signedTransaction, proof } }, headers);
    expect(ok.errors, JSON.stringify(ok.errors)).toBeUndefined();
    expect(ok.data.submitPredictionTransaction.prediction).toEqual({ stake: input.stake, prediction: input.value });
  });
});
