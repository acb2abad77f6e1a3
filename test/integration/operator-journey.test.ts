import { randomBytes } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { type ChainFixture, startChainFixture } from './chain-fixture.js';
import { backends } from './harness.js';
import { BUILD_PREDICTION, type EmptyApp, makePng, type SignedIn, startEmptyApp, SUBMIT_PREDICTION, twoStep } from './operator-fixture.js';

const BUILD_FUND = `mutation($i: FundStreakTransactionInput!) { buildFundStreakTransaction(input: $i) { transaction proof } }`;
const SUBMIT_FUND = `mutation($i: SubmitFundStreakTransactionInput!) { submitFundStreakTransaction(input: $i) { signature streak { id availableBalance totalAccumulated onchainBalance } } }`;
const MONEY = `{ viewer { balance { token tokenAccount }
  claimable { rewardTotal streakRewardTotal total rewards { id amount } streakRewards { id amount } }
  portfolio { activeCount activeStake resolvedStake totalPayout realizedPnl } } }`;

/**
 * Must-show 1 of issue 14: from an empty database, through GraphQL alone, an operator sets
 * up a streak with pools and a referral code, a user joins and predicts with real signed
 * transactions, the operator resolves, the streak rule rewards the user, who claims.
 */
describe.each(backends)('an operator runs a streak from an empty database, on %s', (kind) => {
  let t: EmptyApp;
  let chain: ChainFixture;
  let clockOffsetMs = 0;

  beforeAll(async () => {
    chain = await startChainFixture();
    t = await startEmptyApp(kind, { chain: chain.runtime, clock: () => new Date(Date.now() + clockOffsetMs) });
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

  it('creates, predicts, resolves, rewards and claims, every step through the API', async () => {
    for (const table of [tables.users, tables.pools, tables.streaks, tables.images, tables.referralCodes]) {
      expect(((await t.database.db.select({ n: count() }).from(table)) as [{ n: number }])[0].n).toBe(0);
    }
    const operator = await t.signIn({ admin: true });
    await ok(`mutation { requestDevTokens(amount: 500) { signature } }`, undefined, operator);

    // The operator's content: a funded streak, an image, two pools of the streak with it, a referral code.
    const { createStreak: streak } = await ok(
      `mutation($i: CreateStreakInput!) { createStreak(input: $i) { id streakAccumulatorAccount } }`,
      { i: { title: 'Two in a row', feePercentage: 0, payoutPercentage: 50, streakCountRequired: 2, minPrecisionScoreRequired: 0.5 } },
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
    const now = Date.now();
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
      const { createPool } = await ok(`mutation($i: CreatePoolInput!) { createPool(input: $i) { id image { url } streak { id } } }`, { i: poolInput(title) }, operator);
      pools.push(createPool);
    }
    expect(pools.every((p) => p.image.url === image.body.url && p.streak.id === streak.id)).toBe(true);
    expect((await t.app.inject({ method: 'GET', url: image.body.url })).statusCode).toBe(200);
    const { createReferralCode: code } = await ok(`mutation { createReferralCode(input: { code: "LAUNCH", maxUses: 10 }) { code } }`, undefined, operator);

    // A user joins, redeems the code, and predicts in both pools with signed transactions.
    const user = await t.signIn();
    await ok(`mutation($c: String!) { redeemReferralCode(code: $c) { referralCode { code redemptionCount } } }`, { c: code.code }, user);
    await ok(`mutation { requestDevTokens(amount: 100) { signature } }`, undefined, user);
    const account = user.wallet.tokenAccount(chain.runtime.accounts.mint);
    const predictionIds: string[] = [];
    for (const [i, pool] of pools.entries()) {
      const placed = await twoStep(t.gql, user, BUILD_PREDICTION, SUBMIT_PREDICTION, { poolId: pool.id, stake: 10 + i, value: 500.5 });
      predictionIds.push(placed.prediction.id);
      expect((await ok(MONEY, undefined, user)).viewer.balance.token).toBe(Number(await chain.balance(account)) / 1e6);
    }
    expect((await ok(MONEY, undefined, user)).viewer.portfolio).toEqual({ activeCount: 2, activeStake: 21, resolvedStake: 0, totalPayout: 0, realizedPnl: 0 });

    // The prediction window ends; the operator resolves both pools in order, paying the stake back plus 1 token each.
    clockOffsetMs = 120_000;
    for (const [i, pool] of pools.entries()) {
      await ok(
        `mutation($i: ResolvePoolInput!) { resolvePool(input: $i) { id resolution { result } } }`,
        { i: { poolId: pool.id, result: 501, rewards: [{ predictionId: predictionIds[i], amount: 10 + i, precisionScore: 0.9, type: 'REWARD' }] } },
        operator,
      );
    }
    const details = await ok(
      `query($s: ID!) { streakUserDetails(streakId: $s) { currentStreakCount lastStreakEvent streakRewards { id amount isClaimed } } }`,
      { s: streak.id },
      user,
    );
    // Two qualifying pools in a row: REWARDED with half the available 80 tokens, and a new run.
    expect(details.streakUserDetails).toMatchObject({ currentStreakCount: 0, lastStreakEvent: 'REWARDED', streakRewards: [{ amount: 40, isClaimed: false }] });
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
    expect(history.viewer.transactions.nodes.map((n: { operation: string }) => n.operation)).toEqual(['claimReward', 'claimReward', 'claimStreakReward', 'placePrediction', 'placePrediction']);
    expect(history.viewer.transactions.nodes.every((n: { status: string }) => n.status === 'CONFIRMED')).toBe(true);
    const stats = await ok(`query($p: ID!) { pool(id: $p) { statistics { predictionCount stakeWeightedMedian } viewerPrediction { id } } }`, { p: pools[0]!.id }, user);
    expect(stats.pool).toEqual({ statistics: { predictionCount: 1, stakeWeightedMedian: 500.5 }, viewerPrediction: { id: predictionIds[0] } });
  });
});
