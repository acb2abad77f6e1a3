import { randomBytes } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import { count } from 'drizzle-orm';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { type ChainFixture, startChainFixture, TestKeypairWallet } from '../support/chain-fixture.js';
import { backends } from '../support/harness.js';
import {
  BUILD_PREDICTION,
  type EmptyApp,
  makePng,
  type SignedIn,
  startEmptyApp,
  SUBMIT_PREDICTION,
  twoStep,
} from '../support/operator-fixture.js';
import type { paths } from '../support/rest-api.gen.js';

const BUILD_FUND = `mutation($i: FundStreakTransactionInput!) { buildFundStreakTransaction(input: $i) { transaction proof } }`;
const SUBMIT_FUND = `mutation($i: SubmitFundStreakTransactionInput!) { submitFundStreakTransaction(input: $i) { signature streak { id availableBalance totalAccumulated onchainBalance } } }`;
const MONEY = `{ viewer { balance { token tokenAccount }
  claimable { rewardTotal streakRewardTotal total rewards { id amount } streakRewards { id amount } }
  portfolio { activeCount activeStake resolvedStake totalPayout realizedPnl } } }`;

/**
 * The operator's whole journey: from an empty database, through the API alone, an operator sets
 * up a streak with pools and a referral code, a user joins and predicts with real signed
 * transactions, the operator resolves, the streak rule rewards the user, who claims. Once
 * through GraphQL, once with the user on the REST routes wherever the REST form has one.
 */
describe.each(backends)('an operator runs a streak from an empty database, on %s', (kind) => {
  let t: EmptyApp;
  let chain: ChainFixture;
  let clockOffsetMs = 0;
  let baseUrl: string;

  beforeAll(async () => {
    chain = await startChainFixture();
    t = await startEmptyApp(kind, { chain: chain.runtime, clock: () => new Date(Date.now() + clockOffsetMs) });
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t?.close();
    await chain?.close();
  });

  const ok = async (query: string, variables: Record<string, unknown> | undefined, who: SignedIn) => {
    const response = await t.gql(query, variables, who.headers);
    expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
    return response.data;
  };

  /** The operator's content, made through the API: a funded streak, an image, two pools of the streak with it, a referral code. */
  async function operatorSetsUp(operator: SignedIn, codeName: string) {
    const { createStreak: streak } = await ok(
      `mutation($i: CreateStreakInput!) { createStreak(input: $i) { id streakAccumulatorAccount } }`,
      {
        i: {
          title: `Two in a row (${codeName})`,
          feePercentage: 0,
          payoutPercentage: 50,
          streakCountRequired: 2,
          minPrecisionScoreRequired: 0.5,
        },
      },
      operator,
    );
    const funded = await twoStep(t.gql, operator, BUILD_FUND, SUBMIT_FUND, { streakId: streak.id, amount: 80 });
    expect(funded.streak).toEqual({ id: streak.id, availableBalance: 80, totalAccumulated: 80, onchainBalance: 80 });
    expect(await chain.balance(new PublicKey(streak.streakAccumulatorAccount))).toBe(80_000_000n);

    // 300 KB, past the GraphQL body limit (100 KB) but within the image limit (5 MB): uploads have their own.
    const picture = Buffer.concat([makePng(64, 32), randomBytes(300_000)]);
    const image = await t.upload(picture, operator.headers);
    expect(image.status).toBe(201);
    expect(image.body).toMatchObject({ contentType: 'image/png', width: 64, height: 32, byteSize: picture.length });
    // The pools' dates follow the server's clock, which the tests move past the prediction window.
    const now = Date.now() + clockOffsetMs;
    const poolInput = (title: string) => ({
      title,
      description: 'Where will it close?',
      resolutionSource: 'exchange close',
      streakId: streak.id,
      imageId: image.body.id,
      minStake: 1,
      maxStake: 50,
      maxRoi: 3,
      minOutcome: 0,
      maxOutcome: 1000,
      precision: 1,
      step: 0.5,
      predictionStartDate: new Date(now - 1000).toISOString(),
      predictionEndDate: new Date(now + 60_000).toISOString(),
      referenceDate: new Date(now + 60_000).toISOString(),
      platformFeeRate: 0,
    });
    const pools: Array<{ id: string; image: { url: string }; streak: { id: string } }> = [];
    for (const title of ['Day one', 'Day two']) {
      const { createPool } = await ok(
        `mutation($i: CreatePoolInput!) { createPool(input: $i) { id image { url } streak { id } } }`,
        { i: poolInput(title) },
        operator,
      );
      pools.push(createPool);
    }
    expect(pools.every((p) => p.image.url === image.body.url && p.streak.id === streak.id)).toBe(true);
    expect((await t.app.inject({ method: 'GET', url: image.body.url })).statusCode).toBe(200);
    const { createReferralCode: code } = await ok(
      `mutation($c: String!) { createReferralCode(input: { code: $c, maxUses: 10 }) { code } }`,
      { c: codeName },
      operator,
    );
    return { streak, pools, image: image.body as { id: string; url: string }, code: code.code as string };
  }

  /** The window ends; the operator resolves both pools in order, paying each stake back plus 1 token. */
  async function operatorResolves(operator: SignedIn, pools: Array<{ id: string }>, predictionIds: string[]) {
    clockOffsetMs += 120_000;
    for (const [i, pool] of pools.entries()) {
      await ok(
        `mutation($i: ResolvePoolInput!) { resolvePool(input: $i) { id resolution { result } } }`,
        {
          i: {
            poolId: pool.id,
            result: 501,
            rewards: [{ predictionId: predictionIds[i], amount: 10 + i, precisionScore: 0.9, type: 'REWARD' }],
          },
        },
        operator,
      );
    }
  }

  it('creates, predicts, resolves, rewards and claims, every step through GraphQL', async () => {
    for (const table of [tables.users, tables.pools, tables.streaks, tables.images, tables.referralCodes]) {
      expect(((await t.database.db.select({ n: count() }).from(table)) as [{ n: number }])[0].n).toBe(0);
    }
    const operator = await t.signIn({ admin: true });
    await ok(`mutation { requestDevTokens(amount: 500) { signature } }`, undefined, operator);
    const { streak, pools, code } = await operatorSetsUp(operator, 'LAUNCH');

    // A user joins, redeems the code, and predicts in both pools with signed transactions.
    const user = await t.signIn();
    await ok(`mutation($c: String!) { redeemReferralCode(code: $c) { referralCode { code redemptionCount } } }`, { c: code }, user);
    await ok(`mutation { requestDevTokens(amount: 100) { signature } }`, undefined, user);
    const account = user.wallet.tokenAccount(chain.runtime.accounts.mint);
    const predictionIds: string[] = [];
    for (const [i, pool] of pools.entries()) {
      const placed = await twoStep(t.gql, user, BUILD_PREDICTION, SUBMIT_PREDICTION, { poolId: pool.id, stake: 10 + i, value: 500.5 });
      predictionIds.push(placed.prediction.id);
      expect((await ok(MONEY, undefined, user)).viewer.balance.token).toBe(Number(await chain.balance(account)) / 1e6);
    }
    expect((await ok(MONEY, undefined, user)).viewer.portfolio).toEqual({
      activeCount: 2,
      activeStake: 21,
      resolvedStake: 0,
      totalPayout: 0,
      realizedPnl: 0,
    });

    await operatorResolves(operator, pools, predictionIds);
    const details = await ok(
      `query($s: ID!) { streakUserDetails(streakId: $s) { currentStreakCount lastStreakEvent streakRewards { id amount isClaimed } } }`,
      { s: streak.id },
      user,
    );
    // Two qualifying pools in a row: REWARDED with half the available 80 tokens, and a new run.
    expect(details.streakUserDetails).toMatchObject({
      currentStreakCount: 0,
      lastStreakEvent: 'REWARDED',
      streakRewards: [{ amount: 40, isClaimed: false }],
    });
    const money = (await ok(MONEY, undefined, user)).viewer;
    expect(money.claimable).toMatchObject({ rewardTotal: 21, streakRewardTotal: 40, total: 61 });
    expect(money.portfolio).toEqual({ activeCount: 0, activeStake: 0, resolvedStake: 21, totalPayout: 21, realizedPnl: 0 });

    // The user claims everything; the balance follows the chain at each step.
    const before = await chain.balance(account);
    const claimedStreak = await ok(
      `mutation($id: ID!) { claimStreakReward(streakRewardId: $id) { signature streakReward { isClaimed } } }`,
      { id: details.streakUserDetails.streakRewards[0].id },
      user,
    );
    expect(claimedStreak.claimStreakReward.streakReward.isClaimed).toBe(true);
    expect(await chain.balance(account)).toBe(before + 40_000_000n);
    expect((await ok(MONEY, undefined, user)).viewer.balance.token).toBe(Number(before + 40_000_000n) / 1e6);
    for (const reward of money.claimable.rewards) {
      await ok(`mutation($id: ID!) { claimReward(rewardId: $id) { signature } }`, { id: reward.id }, user);
    }
    expect(await chain.balance(account)).toBe(before + 61_000_000n);
    const after = (await ok(MONEY, undefined, user)).viewer;
    expect(after.balance.token).toBe(Number(before + 61_000_000n) / 1e6);
    expect(after.claimable).toMatchObject({ total: 0, rewards: [], streakRewards: [] });

    // The user's standing and history.
    const board = await ok(`{ leaderboard(period: DAY) { viewerEntry { rank payout predictionCount user { id } } } }`, undefined, user);
    expect(board.leaderboard.viewerEntry).toEqual({ rank: 1, payout: 21, predictionCount: 2, user: { id: user.userId } });
    const history = await ok(`{ viewer { transactions { totalCount nodes { operation status amount } } } }`, undefined, user);
    expect(history.viewer.transactions.nodes.map((n: { operation: string }) => n.operation)).toEqual([
      'claimReward',
      'claimReward',
      'claimStreakReward',
      'placePrediction',
      'placePrediction',
    ]);
    expect(history.viewer.transactions.nodes.every((n: { status: string }) => n.status === 'CONFIRMED')).toBe(true);
    const stats = await ok(
      `query($p: ID!) { pool(id: $p) { statistics { predictionCount stakeWeightedMedian } viewerPrediction { id } } }`,
      { p: pools[0]!.id },
      user,
    );
    expect(stats.pool).toEqual({
      statistics: { predictionCount: 1, stakeWeightedMedian: 500.5 },
      viewerPrediction: { id: predictionIds[0] },
    });
  });

  it('runs the same journey with the user on the REST routes wherever one exists', async () => {
    const operator = await t.signIn({ admin: true });
    await ok(`mutation { requestDevTokens(amount: 500) { signature } }`, undefined, operator);
    const { streak, pools, image, code } = await operatorSetsUp(operator, 'RESTLAUNCH');

    // The user signs in through the REST wallet routes; operations without a route (redeeming a code, dev tokens) stay on GraphQL.
    const wallet = new TestKeypairWallet();
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
    expect(session.response.status, JSON.stringify(session.error)).toBe(200);
    const user: SignedIn = { wallet, userId: session.data!.user.id, headers: { authorization: `Bearer ${session.data!.access_token}` } };
    const rest = createClient<paths>({ baseUrl, headers: user.headers });
    await ok(`mutation($c: String!) { redeemReferralCode(code: $c) { referralCode { code redemptionCount } } }`, { c: code }, user);
    await ok(`mutation { requestDevTokens(amount: 100) { signature } }`, undefined, user);
    const account = wallet.tokenAccount(chain.runtime.accounts.mint);

    // The streak's pools, with their image and streak embedded, as the REST form lists them.
    const listed = await rest.GET('/streak/pools', { params: { query: { streak_id: streak.id, includes: ['image', 'streak'] } } });
    expect(listed.response.status, JSON.stringify(listed.error)).toBe(200);
    expect(listed.data!.streak.id).toBe(streak.id);
    expect(listed.data!.pools.map((p) => p.id).sort()).toEqual(pools.map((p) => p.id).sort());
    expect(listed.data!.pools.every((p) => p.image?.url === image.url && p.streak?.id === streak.id)).toBe(true);

    const predictionIds: string[] = [];
    for (const [i, pool] of pools.entries()) {
      const before = await chain.balance(account);
      const built = await rest.POST('/transactions/prediction', { body: { pool_id: pool.id, stake: 10 + i, value: 500.5 } });
      expect(built.response.status, JSON.stringify(built.error)).toBe(200);
      const submitted = await rest.POST('/transactions/prediction/submit', {
        body: { pool_id: pool.id, signed_transaction: await wallet.signTransaction(built.data!.transaction), proof: built.data!.proof },
      });
      expect(submitted.response.status, JSON.stringify(submitted.error)).toBe(200);
      expect(submitted.data!.prediction).toMatchObject({ pool_id: pool.id, user_id: user.userId, stake: 10 + i, prediction: 500.5 });
      expect(await chain.balance(account)).toBe(before - BigInt(10 + i) * 1_000_000n);
      predictionIds.push(submitted.data!.prediction!.id);
    }

    await operatorResolves(operator, pools, predictionIds);
    const details = await rest.GET('/streak/user-details', { params: { query: { streak_id: streak.id, is_claimed: false } } });
    expect(details.response.status, JSON.stringify(details.error)).toBe(200);
    expect(details.data).toMatchObject({
      current_streak_count: 0,
      last_streak_event: 'REWARDED',
      streak_rewards: [{ amount: 40, is_claimed: false }],
    });
    const claimable = (await ok(MONEY, undefined, user)).viewer.claimable;
    expect(claimable).toMatchObject({ rewardTotal: 21, streakRewardTotal: 40, total: 61 });

    // Claims through the one-step REST routes; the chain pays exactly what is claimable.
    const before = await chain.balance(account);
    const streakClaim = await rest.POST('/transactions/claim-streak-reward', {
      body: { streak_reward_id: details.data!.streak_rewards[0]!.id },
    });
    expect(streakClaim.response.status, JSON.stringify(streakClaim.error)).toBe(200);
    expect(streakClaim.data!.streak_reward).toMatchObject({ id: details.data!.streak_rewards[0]!.id, is_claimed: true });
    for (const reward of claimable.rewards) {
      const claimed = await rest.POST('/transactions/claim-reward', { body: { reward_id: reward.id } });
      expect(claimed.response.status, JSON.stringify(claimed.error)).toBe(200);
      expect(claimed.data!.reward).toMatchObject({ id: reward.id, is_claimed: true });
    }
    expect(await chain.balance(account)).toBe(before + 61_000_000n);
    const claimedDetails = await rest.GET('/streak/user-details', { params: { query: { streak_id: streak.id, is_claimed: false } } });
    expect(claimedDetails.data!.streak_rewards).toEqual([]);
    expect((await ok(MONEY, undefined, user)).viewer.claimable).toMatchObject({ total: 0, rewards: [], streakRewards: [] });
  });
});
