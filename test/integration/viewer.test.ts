import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import type { StreakRewardRow, StreakRow, UserStreakRow } from '../../schema/index.js';
import type { UserChain, UserStreakAttrs } from '../support/fixtures/builders.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { kitWallet, type TestWallet } from '../support/wallets.js';
import { walletSignIn } from '../support/sessions.js';

const DETAILS = `query($s: ID!, $c: Boolean) { streakUserDetails(streakId: $s, isClaimed: $c) {
  streak { id title } currentStreakCount lastStreakEvent lastPoolParticipatedAt currentStreakScores lastProcessedPoolId
  streakRewards { id amount isClaimed userWalletAddress streak { id } }
} }`;

const STATES = ['NONE', 'QUALIFIED', 'RESET', 'REWARDED'] as const;
const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 12, minutes));

describe.each(backends)('the viewer: streak details, profile and referrals on %s', (kind) => {
  let t: TestApp;
  /** The streak every test reads; `other` holds rewards that must never show in it. */
  let streak: StreakRow;
  let other: StreakRow;
  beforeAll(async () => {
    t = await startEmptyTestApp(kind, { config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000' }) });
    streak = await t.seed.streak({ decimals: 4 });
    other = await t.seed.streak();
  });
  afterAll(() => t.close());

  /** Signs in as `wallet`; the wallet address must belong to the user to act as. */
  async function signIn(wallet: TestWallet): Promise<Record<string, string>> {
    return (await walletSignIn(t.gql, wallet)).headers;
  }

  /** A user of a wallet the test holds, signed in, with the rows `build` gives them. */
  async function signedInUser(build: (chain: UserChain) => UserChain = (chain) => chain) {
    const wallet = await kitWallet();
    const fixture = await build(t.seed.user({ walletAddress: wallet.address }));
    return { ...fixture, wallet, headers: await signIn(wallet) };
  }

  /** What a user in each state has: the processor's row, and rewards in the streak (claimed and not) and in another. */
  async function userIn(state: (typeof STATES)[number]) {
    const { pool } = await t.seed.user().withPool({ phase: 'ended', streakId: streak.id });
    const attrs: Record<(typeof STATES)[number], UserStreakAttrs> = {
      NONE: {},
      QUALIFIED: {
        lastStreakEvent: 'QUALIFIED',
        currentStreakScores: [0.75, 0.5],
        lastPoolParticipatedAt: at(5),
        lastProcessedPoolId: pool!.id,
      },
      RESET: { lastStreakEvent: 'RESET', lastPoolParticipatedAt: at(6), lastProcessedPoolId: pool!.id },
      REWARDED: { lastStreakEvent: 'REWARDED', currentStreakScores: [1], lastPoolParticipatedAt: at(7), lastProcessedPoolId: pool!.id },
    };
    return signedInUser((chain) => {
      chain.withUserStreak(streak, attrs[state]).withStreakReward(other, { amount: 99n });
      if (state === 'REWARDED')
        chain.withStreakReward(streak, { amount: 12_345n, isClaimed: true }).withStreakReward(streak, { amount: 50_000n });
      return chain;
    });
  }

  function expectDetails(details: any, row: UserStreakRow, rewards: StreakRewardRow[], wallet: string) {
    expect(details).toMatchObject({
      streak: { id: streak.id, title: streak.title },
      currentStreakCount: row.currentStreakCount,
      lastStreakEvent: row.lastStreakEvent,
      lastPoolParticipatedAt: row.lastPoolParticipatedAt?.toISOString() ?? null,
      currentStreakScores: row.currentStreakScores,
      lastProcessedPoolId: row.lastProcessedPoolId,
    });
    expect(details.currentStreakScores).toHaveLength(details.currentStreakCount);
    expect(details.streakRewards.map((r: any) => r.id).sort()).toEqual(rewards.map((r) => r.id).sort());
    for (const reward of details.streakRewards) {
      const source = rewards.find((r) => r.id === reward.id)!;
      expect(reward).toEqual({
        id: source.id,
        amount: Number(source.amount) / 10 ** streak.decimals,
        isClaimed: source.isClaimed,
        userWalletAddress: wallet,
        streak: { id: streak.id },
      });
    }
  }

  it.each(STATES)('reports a user in state %s as the streak processor left it, rewards filtered by isClaimed', async (state) => {
    const user = await userIn(state);
    const [row] = user.userStreaks;
    const own = user.streakRewards.filter((r) => r.streakId === streak.id);
    expect(own).toHaveLength(state === 'REWARDED' ? 2 : 0);
    for (const isClaimed of [null, true, false]) {
      const response = await t.gql(DETAILS, { s: streak.id, c: isClaimed }, user.headers);
      expect(response.errors).toBeUndefined();
      expect(response.data.streakUserDetails.lastStreakEvent).toBe(state);
      expectDetails(
        response.data.streakUserDetails,
        row!,
        own.filter((r) => isClaimed === null || r.isClaimed === isClaimed),
        user.wallet.address,
      );
    }
  });

  it("splits one user's rewards in a streak by isClaimed into two non-empty, disjoint sets matching the rows, newest first", async () => {
    // Two claimed and two unclaimed, two of them at the same instant (ties broken by id, descending);
    // another user's reward in the streak and the user's own in another streak must not show.
    await t.seed.user().withStreakReward(streak, { createdAt: at(3) });
    const user = await signedInUser((chain) =>
      chain
        .withStreakReward(streak, { isClaimed: true, createdAt: at(1) })
        .withStreakReward(streak, { isClaimed: false, createdAt: at(2) })
        .withStreakReward(streak, { isClaimed: true, createdAt: at(2) })
        .withStreakReward(streak, { isClaimed: false, createdAt: at(4) })
        .withStreakReward(other, { isClaimed: false, createdAt: at(5) }),
    );
    const own = user.streakRewards.filter((r) => r.streakId === streak.id);
    const idsOf = async (isClaimed: boolean | null) => {
      const response = await t.gql(DETAILS, { s: streak.id, c: isClaimed }, user.headers);
      expect(response.errors).toBeUndefined();
      return (response.data.streakUserDetails.streakRewards as Array<{ id: string }>).map((r) => r.id);
    };
    const [claimed, unclaimed, all] = [await idsOf(true), await idsOf(false), await idsOf(null)];

    expect(claimed).toHaveLength(2);
    expect(unclaimed).toHaveLength(2);
    expect(claimed.filter((id) => unclaimed.includes(id))).toEqual([]);
    expect([...claimed, ...unclaimed].sort()).toEqual([...all].sort());
    expect([...claimed].sort()).toEqual(
      own
        .filter((r) => r.isClaimed)
        .map((r) => r.id)
        .sort(),
    );
    expect([...unclaimed].sort()).toEqual(
      own
        .filter((r) => !r.isClaimed)
        .map((r) => r.id)
        .sort(),
    );
    const newestFirst = [...own].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
    expect(all).toEqual(newestFirst.map((r) => r.id));
  });

  it('needs a signed-in viewer and a known streak', async () => {
    const anonymous = await t.gql(DETAILS, { s: streak.id });
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const headers = await signIn(await kitWallet());
    const fresh = await t.gql(DETAILS, { s: streak.id }, headers);
    expect(fresh.data.streakUserDetails).toMatchObject({
      currentStreakCount: 0,
      lastStreakEvent: 'NONE',
      streakRewards: [],
      currentStreakScores: [],
    });
    const unknown = await t.gql(DETAILS, { s: '00000000-0000-4000-8000-000000000000' }, headers);
    expect(unknown.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('updates the profile: username unique and valid, avatar only one of your own images', async () => {
    const owner = await signedInUser((chain) => chain.withImage());
    const other = await t.seed.user().withImage();
    const update = (input: Record<string, unknown>) =>
      t.gql(
        `mutation($i: UpdateProfileInput!) { updateProfile(input: $i) { id username avatarId hasSeenTour } }`,
        { i: input },
        owner.headers,
      );

    const ok = await update({ username: 'renamed_user', avatarId: owner.images[0]!.id, hasSeenTour: true });
    expect(ok.data.updateProfile).toEqual({
      id: owner.user.id,
      username: 'renamed_user',
      avatarId: owner.images[0]!.id,
      hasSeenTour: true,
    });
    for (const [input, argumentName] of [
      [{ username: other.user.username }, 'input.username'],
      [{ username: 'no spaces!' }, 'input.username'],
      [{ avatarId: other.images[0]!.id }, 'input.avatarId'],
      [{ avatarId: 'nope' }, 'input.avatarId'],
    ] as const) {
      const response = await update(input);
      expect(response.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName });
    }
    const [stored] = await t.database.db.select().from(tables.users).where(eq(tables.users.id, owner.user.id));
    expect(stored).toMatchObject({ username: 'renamed_user', avatarId: owner.images[0]!.id });
  });

  it('redeems a referral code once per user, never your own', async () => {
    const creator = await signedInUser((chain) => chain.withReferralCode());
    const code = creator.referralCodes[0]!;
    const redeem = (headers: Record<string, string>, value: string) =>
      t.gql(
        `mutation($c: String!) { redeemReferralCode(code: $c) { id referralCode { code creator { id } } user { id } } }`,
        { c: value },
        headers,
      );

    expect((await redeem(creator.headers, code.code)).errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      reason: 'OWN_CODE',
    });

    const newcomer = await signIn(await kitWallet());
    const first = await redeem(newcomer, code.code.toLowerCase());
    expect(first.errors).toBeUndefined();
    expect(first.data.redeemReferralCode.referralCode).toEqual({ code: code.code, creator: { id: creator.user.id } });
    expect((await redeem(newcomer, code.code)).errors?.[0]?.extensions?.code).toBe('ALREADY_REDEEMED');
    expect((await redeem(newcomer, 'NOSUCHCODE1')).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});
