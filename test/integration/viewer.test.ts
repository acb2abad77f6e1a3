import { and, eq, ne } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { backends, startTestApp, testConfig, type TestApp } from './harness.js';
import { kitWallet, type TestWallet } from './wallets.js';

const DETAILS = `query($s: ID!, $c: Boolean) { streakUserDetails(streakId: $s, isClaimed: $c) {
  streak { id title } currentStreakCount lastStreakEvent lastPoolParticipatedAt currentStreakScores lastProcessedPoolId
  streakRewards { id amount isClaimed userWalletAddress streak { id } }
} }`;

describe.each(backends)('the viewer: streak details, profile and referrals on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000' }) });
  });
  afterAll(() => t.close());

  /** Signs in as `wallet`; the wallet address must belong to the user to act as. */
  async function signIn(wallet: TestWallet): Promise<Record<string, string>> {
    const challenge = await t.gql(`mutation($a: String!) { requestSignInChallenge(walletAddress: $a) { message } }`, { a: wallet.address });
    const message = challenge.data.requestSignInChallenge.message as string;
    const session = await t.gql(
      `mutation($i: SignInWithWalletInput!) { signInWithWallet(input: $i) { accessToken } }`,
      { i: { walletAddress: wallet.address, message, signature: await wallet.signMessage(message) } },
    );
    return { authorization: `Bearer ${session.data.signInWithWallet.accessToken}` };
  }

  /** Gives a demo user a wallet we hold the key of (streak rewards follow by ON UPDATE CASCADE). */
  async function actAs(userId: string) {
    const wallet = await kitWallet();
    await t.database.db.update(tables.users).set({ walletAddress: wallet.address }).where(eq(tables.users.id, userId));
    return { wallet, headers: await signIn(wallet) };
  }

  it.each(['NONE', 'QUALIFIED', 'RESET', 'REWARDED'] as const)(
    'reports a demo user in state %s as the streak processor left it, rewards filtered by isClaimed',
    async (state) => {
      const [row] = await t.database.db
        .select()
        .from(tables.userStreaks)
        .where(eq(tables.userStreaks.lastStreakEvent, state))
        .orderBy(tables.userStreaks.id)
        .limit(1);
      expect(row, `the demo data has a user in ${state}`).toBeDefined();
      const { wallet, headers } = await actAs(row!.userId);
      const rewards = await t.database.db
        .select()
        .from(tables.streakRewards)
        .where(and(eq(tables.streakRewards.streakId, row!.streakId), eq(tables.streakRewards.userWalletAddress, wallet.address)));
      const [streak] = await t.database.db.select().from(tables.streaks).where(eq(tables.streaks.id, row!.streakId));
      if (state === 'REWARDED') expect(rewards.length).toBeGreaterThan(0);

      for (const isClaimed of [null, true, false]) {
        const response = await t.gql(DETAILS, { s: row!.streakId, c: isClaimed }, headers);
        expect(response.errors).toBeUndefined();
        const details = response.data.streakUserDetails;
        expect(details).toMatchObject({
          streak: { id: streak!.id, title: streak!.title },
          currentStreakCount: row!.currentStreakCount,
          lastStreakEvent: state,
          lastPoolParticipatedAt: row!.lastPoolParticipatedAt?.toISOString() ?? null,
          currentStreakScores: row!.currentStreakScores,
          lastProcessedPoolId: row!.lastProcessedPoolId,
        });
        expect(details.currentStreakScores).toHaveLength(details.currentStreakCount);
        const expected = rewards.filter((r) => isClaimed === null || r.isClaimed === isClaimed);
        expect(details.streakRewards.map((r: any) => r.id).sort()).toEqual(expected.map((r) => r.id).sort());
        for (const reward of details.streakRewards) {
          const source = expected.find((r) => r.id === reward.id)!;
          expect(reward).toEqual({
            id: source.id,
            amount: Number(source.amount) / 10 ** streak!.decimals,
            isClaimed: source.isClaimed,
            userWalletAddress: wallet.address,
            streak: { id: streak!.id },
          });
        }
      }
    },
  );

  it("splits one user's rewards in a streak by isClaimed into two non-empty, disjoint sets matching the rows", async () => {
    const rows = await t.database.db.select().from(tables.streakRewards);
    const owner = (r: (typeof rows)[number]) => `${r.streakId} ${r.userWalletAddress}`;
    const mixed = rows.find((r) => r.isClaimed && rows.some((o) => owner(o) === owner(r) && !o.isClaimed));
    expect(mixed, 'the demo data has a user with a claimed and an unclaimed reward in one streak').toBeDefined();
    const [user] = await t.database.db.select().from(tables.users).where(eq(tables.users.walletAddress, mixed!.userWalletAddress));
    const { wallet, headers } = await actAs(user!.id);
    const own = await t.database.db
      .select()
      .from(tables.streakRewards)
      .where(and(eq(tables.streakRewards.streakId, mixed!.streakId), eq(tables.streakRewards.userWalletAddress, wallet.address)));
    const idsOf = async (isClaimed: boolean | null) => {
      const response = await t.gql(DETAILS, { s: mixed!.streakId, c: isClaimed }, headers);
      expect(response.errors).toBeUndefined();
      return (response.data.streakUserDetails.streakRewards as Array<{ id: string }>).map((r) => r.id);
    };
    const [claimed, unclaimed, all] = [await idsOf(true), await idsOf(false), await idsOf(null)];

    expect(claimed.length).toBeGreaterThan(0);
    expect(unclaimed.length).toBeGreaterThan(0);
    expect(claimed.filter((id) => unclaimed.includes(id))).toEqual([]);
    expect([...claimed, ...unclaimed].sort()).toEqual([...all].sort());
    expect([...claimed].sort()).toEqual(own.filter((r) => r.isClaimed).map((r) => r.id).sort());
    expect([...unclaimed].sort()).toEqual(own.filter((r) => !r.isClaimed).map((r) => r.id).sort());
    const newestFirst = [...own].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
    expect(all).toEqual(newestFirst.map((r) => r.id));
  });

  it('needs a signed-in viewer and a known streak', async () => {
    const [streak] = await t.database.db.select().from(tables.streaks).limit(1);
    const anonymous = await t.gql(DETAILS, { s: streak!.id });
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const headers = await signIn(await kitWallet());
    const fresh = await t.gql(DETAILS, { s: streak!.id }, headers);
    expect(fresh.data.streakUserDetails).toMatchObject({ currentStreakCount: 0, lastStreakEvent: 'NONE', streakRewards: [], currentStreakScores: [] });
    const unknown = await t.gql(DETAILS, { s: '00000000-0000-4000-8000-000000000000' }, headers);
    expect(unknown.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('updates the profile: username unique and valid, avatar only one of your own images', async () => {
    const [owner] = await t.database.db.select().from(tables.images).limit(1);
    const { headers } = await actAs(owner!.userId);
    const [other] = await t.database.db.select().from(tables.users).where(ne(tables.users.id, owner!.userId)).limit(1);
    const [foreignImage] = await t.database.db.select().from(tables.images).where(ne(tables.images.userId, owner!.userId)).limit(1);
    const update = (input: Record<string, unknown>) =>
      t.gql(`mutation($i: UpdateProfileInput!) { updateProfile(input: $i) { id username avatarId hasSeenTour } }`, { i: input }, headers);

    const ok = await update({ username: 'renamed_user', avatarId: owner!.id, hasSeenTour: true });
    expect(ok.data.updateProfile).toEqual({ id: owner!.userId, username: 'renamed_user', avatarId: owner!.id, hasSeenTour: true });
    for (const [input, argumentName] of [
      [{ username: other!.username }, 'input.username'],
      [{ username: 'no spaces!' }, 'input.username'],
      [{ avatarId: foreignImage!.id }, 'input.avatarId'],
      [{ avatarId: 'nope' }, 'input.avatarId'],
    ] as const) {
      const response = await update(input);
      expect(response.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName });
    }
    const [stored] = await t.database.db.select().from(tables.users).where(eq(tables.users.id, owner!.userId));
    expect(stored).toMatchObject({ username: 'renamed_user', avatarId: owner!.id });
  });

  it('redeems a referral code once per user, never your own', async () => {
    const [code] = await t.database.db.select().from(tables.referralCodes).limit(1);
    const redeem = (headers: Record<string, string>, value: string) =>
      t.gql(`mutation($c: String!) { redeemReferralCode(code: $c) { id referralCode { code creator { id } } user { id } } }`, { c: value }, headers);

    const own = await actAs(code!.userId);
    await t.database.db.delete(tables.referralRedemptions).where(eq(tables.referralRedemptions.userId, code!.userId));
    expect((await redeem(own.headers, code!.code)).errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'OWN_CODE' });

    const newcomer = await signIn(await kitWallet());
    const first = await redeem(newcomer, code!.code.toLowerCase());
    expect(first.errors).toBeUndefined();
    expect(first.data.redeemReferralCode.referralCode).toEqual({ code: code!.code, creator: { id: code!.userId } });
    expect((await redeem(newcomer, code!.code)).errors?.[0]?.extensions?.code).toBe('ALREADY_REDEEMED');
    expect((await redeem(newcomer, 'NOSUCHCODE1')).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});
