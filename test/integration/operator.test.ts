// Over 300 lines: the operator mutations against one chain, one app per backend and a listener standing in for another replica; split, each part would start all three again.
import { and, count, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { poolVaultAddress } from '../../src/chain/addresses.js';
import { type CommittedEvent, fromMessage } from '../../src/modules/events/events.js';
import { advanceStreak, streakRewardAmount } from '../../src/modules/streaks/streak-processor.js';
import { type ChainFixture, startChainFixture } from '../support/chain-fixture.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { kitWallet } from '../support/wallets.js';
import { walletSignIn } from '../support/sessions.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const TOKEN = 1_000_000n; // the devchain's stake mint has 6 decimals

const CREATE = `mutation($i: CreatePoolInput!) { createPool(input: $i) {
  id title poolAccount stakeTokenMint decimals minStake maxStake maxRoi minOutcome maxOutcome precision step
  predictionStartDate predictionEndDate referenceDate platformFeeRate status isClosed totalVolume unit createdBy streakId
} }`;
const RESOLVE = `mutation($i: ResolvePoolInput!) { resolvePool(input: $i) {
  id resolution { result protocolFee leftover median }
  predictions(first: 100) { nodes { id reward { amount precisionScore type isClaimed } } }
} }`;
const UPDATE_STATUS = `mutation($p: ID!, $s: PoolStatus!, $c: Boolean) { updatePoolStatus(poolId: $p, status: $s, isClosed: $c) { id status isClosed } }`;

describe('the streak rule, as a pure function', () => {
  const terms = { streakCountRequired: 2, minPrecisionScoreRequired: 0.5 };
  it('qualifies, completes a run, resets a run, and leaves a user without a run alone', () => {
    const none = { count: 0, scores: [], event: 'NONE' as const };
    const first = advanceStreak(none, 0.5, terms);
    expect(first).toEqual({ progress: { count: 1, scores: [0.5], event: 'QUALIFIED' }, completed: false });
    expect(advanceStreak(first.progress, 0.9, terms)).toEqual({ progress: { count: 0, scores: [], event: 'REWARDED' }, completed: true });
    expect(advanceStreak(first.progress, 0.49, terms)).toEqual({ progress: { count: 0, scores: [], event: 'RESET' }, completed: false });
    expect(advanceStreak(first.progress, null, terms)).toEqual({ progress: { count: 0, scores: [], event: 'RESET' }, completed: false });
    expect(advanceStreak(none, null, terms).progress).toBe(none);
    const reset = { count: 0, scores: [], event: 'RESET' as const };
    expect(advanceStreak(reset, 0.1, terms).progress).toBe(reset);
  });

  it('pays payout_percentage (in hundredths of a percent) of the available balance, rounded down', () => {
    expect(streakRewardAmount(1000n * TOKEN, 10)).toBe(100n * TOKEN);
    expect(streakRewardAmount(999n, 12.5)).toBe(124n); // 124.875 rounded down
    expect(streakRewardAmount(0n, 15)).toBe(0n);
  });
});

describe.each(backends)('operator mutations on %s', (kind) => {
  let t: TestApp;
  let chain: ChainFixture;
  let admin: Record<string, string>;
  let user: Record<string, string>;
  let adminId: string;
  let userId: string;
  /** The admin's pools: one whose prediction window has ended, one open. */
  let endedPool: tables.PoolRow;
  let openPool: tables.PoolRow;

  beforeAll(async () => {
    chain = await startChainFixture();
    t = await startEmptyTestApp(kind, { chain: chain.runtime, config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000' }) });
    const operator = await t.seed.user({ role: 'ADMIN' }).withSettings().withPool({ phase: 'ended' }).withPool({ phase: 'open' });
    [endedPool, openPool] = operator.pools as [tables.PoolRow, tables.PoolRow];
    adminId = operator.user.id;
    userId = (await t.seed.user().withSettings()).user.id;
    admin = await signInAs(adminId);
    user = await signInAs(userId);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await chain?.close();
  });

  /** Gives a user a wallet we hold the key of and signs in with it (the role is read at sign-in). */
  async function signInAs(userId: string): Promise<Record<string, string>> {
    const wallet = await kitWallet();
    await t.database.db.update(tables.users).set({ walletAddress: wallet.address }).where(eq(tables.users.id, userId));
    return (await walletSignIn(t.gql, wallet)).headers;
  }

  async function rows(table: PgTable, where?: SQL): Promise<number> {
    const [row] = await t.database.db.select({ n: count() }).from(table).where(where);
    return Number(row!.n);
  }

  /** Row counts of every table an operator mutation writes. */
  async function snapshot() {
    return {
      pools: await rows(tables.pools),
      notifications: await rows(tables.notifications),
      resolutions: await rows(tables.resolutions),
      rewards: await rows(tables.rewards),
      userStreaks: await rows(tables.userStreaks),
      streakRewards: await rows(tables.streakRewards),
      streaks: JSON.stringify(
        await t.database.db
          .select({ a: tables.streaks.availableBalance, p: tables.streaks.lastProcessedPoolId })
          .from(tables.streaks)
          .orderBy(tables.streaks.id),
        (_k, v) => (typeof v === 'bigint' ? v.toString() : v),
      ),
      userStreakState: JSON.stringify(await t.database.db.select().from(tables.userStreaks).orderBy(tables.userStreaks.id)),
      poolStates: JSON.stringify(
        await t.database.db
          .select({ s: tables.pools.status, c: tables.pools.isClosed, u: tables.pools.updatedAt })
          .from(tables.pools)
          .orderBy(tables.pools.id),
      ),
    };
  }

  /** The events written to the outbox (what every replica receives), waited for until `n` match. */
  async function waitForEvents(match: (e: CommittedEvent) => boolean, n: number): Promise<CommittedEvent[]> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const rows = await t.database.db.select().from(tables.eventOutbox).orderBy(tables.eventOutbox.seq);
      const found = rows.map((row) => fromMessage(row.payload)).filter((e): e is CommittedEvent => e !== null && match(e));
      if (found.length >= n || Date.now() > deadline) return found;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  function poolInput(overrides: Record<string, unknown> = {}) {
    const now = Date.now();
    return {
      title: 'ETH price at the end of the quarter',
      description: 'Where will ETH trade at 16:00 UTC on the reference date?',
      resolutionSource: 'Coinbase ETH-USD spot',
      minStake: 1.5,
      maxStake: 250,
      maxRoi: 3,
      minOutcome: 1000,
      maxOutcome: 6000.5,
      precision: 1,
      step: 0.5,
      predictionStartDate: new Date(now - HOUR).toISOString(),
      predictionEndDate: new Date(now + 2 * DAY).toISOString(),
      referenceDate: new Date(now + 3 * DAY).toISOString(),
      platformFeeRate: 0.025,
      ...overrides,
    };
  }

  describe('createPool', () => {
    it('writes one pool with its vault on the chain, and one POOL_CREATED notification per user whose master switch is on, in a fixed number of statements', async () => {
      // Three users with the master switch off; POOL_CREATED has no key of its own, so other keys
      // off do not stop it, and no settings row means the defaults. The admin and the user have defaults.
      const silenced = (await t.seed.users(3, (chain) => chain.withSettings({ is_notifications_enabled: false }))).map((f) => f.user.id);
      const otherKeysOff = await t.seed
        .user()
        .withSettings({ REWARD_CLAIMED: false, REFUND_CLAIMED: false, STREAK_REWARD_RECEIVED: false });
      const noSettings = await t.seed.user();
      const allowedIds = [adminId, userId, otherKeysOff.user.id, noSettings.user.id];
      expect(await rows(tables.users)).toBe(7);
      const before = await snapshot();

      let response!: Awaited<ReturnType<TestApp['gql']>> & { data?: any };
      const statements = await t.countStatements(async () => {
        response = await t.gql(CREATE, { i: poolInput({ streakId: null }) }, admin);
      });
      expect(response.errors).toBeUndefined();
      const pool = response.data.createPool;
      const vault = await poolVaultAddress(chain.runtime.keys.custody.publicKey, pool.id);
      expect(pool).toMatchObject({
        title: 'ETH price at the end of the quarter',
        poolAccount: vault.toBase58(),
        stakeTokenMint: chain.runtime.accounts.mint.toBase58(),
        decimals: 6,
        minStake: 1.5,
        maxStake: 250,
        step: 0.5,
        maxOutcome: 6000.5,
        platformFeeRate: 0.025,
        status: 'ACTIVE',
        isClosed: false,
        totalVolume: 0,
        unit: 'USD',
        streakId: null,
      });
      expect(await chain.runtime.client.connection.getAccountInfo(vault)).not.toBeNull();
      const [stored] = await t.database.db.select().from(tables.pools).where(eq(tables.pools.id, pool.id));
      expect([stored!.minStake, stored!.maxStake]).toEqual([1_500_000n, 250n * TOKEN]);

      const after = await snapshot();
      expect(after.pools - before.pools).toBe(1);
      expect(after.notifications - before.notifications).toBe(4);
      const mine = await t.database.db
        .select({ userId: tables.notifications.userId, data: tables.notifications.data })
        .from(tables.notifications)
        .where(and(eq(tables.notifications.type, 'POOL_CREATED'), sql`${tables.notifications.data}->>'poolId' = ${pool.id}`));
      expect(mine).toHaveLength(4);
      expect(mine.map((n) => n.userId).sort()).toEqual([...allowedIds].sort());
      expect(mine.filter((n) => silenced.includes(n.userId))).toEqual([]);
      expect(mine.every((n) => n.data.poolId === pool.id && n.data.title === pool.title)).toBe(true);

      const published = await waitForEvents((e) => 'poolId' in e && e.poolId === pool.id, 2);
      expect(published.map((e) => e.type).sort()).toEqual(['poolCreated', 'poolCreatedNotifications']);

      // Twenty-five more users (no settings rows: defaults) cost no extra statement.
      await t.seed.users(25);
      let second!: Awaited<ReturnType<TestApp['gql']>> & { data?: any };
      const statementsAgain = await t.countStatements(async () => {
        second = await t.gql(CREATE, { i: poolInput({ title: 'Second pool' }) }, admin);
      });
      expect(second.errors).toBeUndefined();
      expect(statementsAgain).toBe(statements);
      expect(statements).toBeLessThanOrEqual(8);
      expect(await rows(tables.notifications, sql`${tables.notifications.data}->>'poolId' = ${second.data.createPool.id}`)).toBe(4 + 25);
    });

    it.each([
      ['input.minStake', { minStake: 0 }, 'BAD_USER_INPUT'],
      ['input.minStake', { minStake: 1.0000001 }, 'BAD_USER_INPUT'],
      ['input.maxStake', { maxStake: 1 }, 'BAD_USER_INPUT'],
      ['input.maxRoi', { maxRoi: 0 }, 'BAD_USER_INPUT'],
      ['input.precision', { precision: 19 }, 'BAD_USER_INPUT'],
      ['input.minOutcome', { minOutcome: 1000.25 }, 'BAD_USER_INPUT'],
      ['input.maxOutcome', { maxOutcome: 1000 }, 'BAD_USER_INPUT'],
      ['input.step', { step: 0 }, 'BAD_USER_INPUT'],
      ['input.predictionEndDate', { predictionEndDate: new Date(Date.now() - 2 * HOUR).toISOString() }, 'BAD_USER_INPUT'],
      [
        'input.predictionEndDate',
        {
          predictionEndDate: new Date(Date.now() - 3 * HOUR).toISOString(),
          predictionStartDate: new Date(Date.now() - 2 * HOUR).toISOString(),
        },
        'BAD_USER_INPUT',
      ],
      ['input.referenceDate', { referenceDate: new Date(Date.now() + DAY).toISOString() }, 'BAD_USER_INPUT'],
      ['input.platformFeeRate', { platformFeeRate: 1 }, 'BAD_USER_INPUT'],
      ['input.title', { title: '   ' }, 'BAD_USER_INPUT'],
      ['input.streakId', { streakId: 'not-a-uuid' }, 'BAD_USER_INPUT'],
      ['input.streakId', { streakId: '00000000-0000-4000-8000-000000000000' }, 'NOT_FOUND'],
      ['input.imageId', { imageId: '00000000-0000-4000-8000-000000000000' }, 'NOT_FOUND'],
    ])('refuses a bad %s (%j) with %s and writes nothing', async (argumentName, overrides, code) => {
      const before = await snapshot();
      const response = await t.gql(CREATE, { i: poolInput(overrides) }, admin);
      expect(response.errors?.[0]?.extensions).toMatchObject({ code, argumentName });
      expect(await snapshot()).toEqual(before);
    });
  });

  describe('authorization', () => {
    it('refuses every operator mutation to a USER (FORBIDDEN) and to a signed-out caller (UNAUTHENTICATED), writing nothing', async () => {
      const pool = endedPool;
      const before = await snapshot();
      for (const [headers, code] of [
        [user, 'FORBIDDEN'],
        [{}, 'UNAUTHENTICATED'],
      ] as const) {
        const responses = [
          await t.gql(CREATE, { i: poolInput() }, headers),
          await t.gql(RESOLVE, { i: { poolId: pool.id, result: 1, rewards: [] } }, headers),
          await t.gql(UPDATE_STATUS, { p: pool.id, s: 'FROZEN', c: true }, headers),
        ];
        expect(responses.map((r) => r.errors?.[0]?.extensions?.code)).toEqual([code, code, code]);
        expect(responses.map((r) => r.data)).toEqual([null, null, null]);
      }
      expect(await snapshot()).toEqual(before);
    });
  });

  describe('updatePoolStatus', () => {
    it('changes the status, changes is_closed only when given, and announces poolUpdated', async () => {
      const pool = openPool;
      expect([pool.status, pool.isClosed]).toEqual(['ACTIVE', false]);
      const frozen = await t.gql(UPDATE_STATUS, { p: pool.id, s: 'PREDICTIONS_FROZEN' }, admin);
      expect(frozen.data.updatePoolStatus).toEqual({ id: pool.id, status: 'PREDICTIONS_FROZEN', isClosed: false });
      const closed = await t.gql(UPDATE_STATUS, { p: pool.id, s: 'FROZEN', c: true }, admin);
      expect(closed.data.updatePoolStatus).toEqual({ id: pool.id, status: 'FROZEN', isClosed: true });
      const [stored] = await t.database.db.select().from(tables.pools).where(eq(tables.pools.id, pool.id));
      expect([stored!.status, stored!.isClosed]).toEqual(['FROZEN', true]);
      expect(await waitForEvents((e) => e.type === 'poolUpdated' && e.poolId === pool.id, 2)).toHaveLength(2);

      const unknown = await t.gql(UPDATE_STATUS, { p: '00000000-0000-4000-8000-000000000000', s: 'ACTIVE' }, admin);
      expect(unknown.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND', argumentName: 'poolId' });
      const malformed = await t.gql(UPDATE_STATUS, { p: 'nope', s: 'ACTIVE' }, admin);
      expect(malformed.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: 'poolId' });
    });
  });

  describe('resolvePool and the streak rule', () => {
    /**
     * A fresh streak (2 qualifying pools in a row pay 10% of its 1000 tokens) with three pools of
     * A's (two ended, one open) and six users with settings rows: everyone hears of everything
     * but B of rewards, C of anything and A of streak rewards. E and G are old members of the
     * streak with a run of one, F one with none. A, B and C predict in both ended pools, G in the
     * second (stakes of 10, 10, 10 and 10, 20, 30, 40 tokens).
     */
    async function streakScenario() {
      const now = Date.now();
      const streak = await t.seed.streak({
        streakCountRequired: 2,
        minPrecisionScoreRequired: 0.5,
        payoutPercentage: 10,
        totalAccumulated: 1000n * TOKEN,
        availableBalance: 1000n * TOKEN,
        onchainBalance: 1000n * TOKEN,
      });
      const pool = (i: number, end: number) => ({
        streakId: streak.id,
        title: `Streak pool ${i}`,
        minStake: TOKEN,
        maxStake: 1000n * TOKEN,
        maxRoi: 5,
        stakeTokenMint: chain.runtime.accounts.mint.toBase58(),
        decimals: 6,
        minOutcome: 0,
        maxOutcome: 1000,
        precision: 0,
        step: 1,
        platformFeeRate: 0.1,
        predictionStartDate: new Date(end - 5 * DAY),
        predictionEndDate: new Date(end),
        referenceDate: new Date(end + HOUR),
      });
      // The i-th prediction in a pool is placed i seconds after its first.
      const placed = (prediction: number, tokens: bigint, i: number) => ({
        prediction,
        stake: tokens * TOKEN,
        createdAt: new Date(now - 4 * DAY + i * 1000),
      });
      const a = await t.seed
        .user()
        .withSettings({ STREAK_REWARD_RECEIVED: false })
        .withPool(pool(1, now - 2 * DAY))
        .withPrediction(placed(100, 10n, 0))
        .withPool(pool(2, now - DAY))
        .withPrediction(placed(200, 10n, 0))
        .withPool(pool(3, now + DAY));
      const [p1, p2, open] = a.pools as [tables.PoolRow, tables.PoolRow, tables.PoolRow];
      const b = await t.seed
        .user()
        .withSettings({ REWARD_CLAIMED: false })
        .withPrediction({ pool: p1, ...placed(110, 10n, 1) })
        .withPrediction({ pool: p2, ...placed(210, 20n, 1) });
      const c = await t.seed
        .user()
        .withSettings({ is_notifications_enabled: false })
        .withPrediction({ pool: p1, ...placed(120, 10n, 2) })
        .withPrediction({ pool: p2, ...placed(220, 30n, 2) });
      const joined = new Date(now - 30 * DAY);
      const e = await t.seed
        .user()
        .withSettings()
        .withUserStreak(streak, {
          currentStreakCount: 1,
          lastStreakEvent: 'QUALIFIED',
          currentStreakScores: [0.7],
          createdAt: new Date(joined.getTime() + 1000),
        });
      const f = await t.seed
        .user()
        .withSettings()
        .withUserStreak(streak, { createdAt: new Date(joined.getTime() + 2000) });
      const g = await t.seed
        .user()
        .withSettings()
        .withUserStreak(streak, { currentStreakCount: 1, lastStreakEvent: 'QUALIFIED', currentStreakScores: [0.6], createdAt: joined })
        .withPrediction({ pool: p2, ...placed(230, 40n, 3) });
      const [A, B, C, E, F, G] = [a, b, c, e, f, g].map((x) => x.user.id) as [string, string, string, string, string, string];
      const byUser = (poolId: string) =>
        new Map(
          [a, b, c, g]
            .flatMap((x) => x.predictions)
            .filter((p) => p.poolId === poolId)
            .map((p) => [p.userId, p.id]),
        );
      return { streak, users: { A, B, C, E, F, G }, p1, p2, open, p1Predictions: byUser(p1.id), p2Predictions: byUser(p2.id) };
    }

    it('resolves, pays, runs the streak rule (NONE, QUALIFIED, RESET, REWARDED), notifies as preferences allow, and refuses a second time', async () => {
      const s = await streakScenario();
      const { A, B, C, E, F, G } = s.users;
      const streakState = async () =>
        Object.fromEntries(
          (await t.database.db.select().from(tables.userStreaks).where(eq(tables.userStreaks.streakId, s.streak.id))).map((r) => [
            r.userId,
            { count: r.currentStreakCount, event: r.lastStreakEvent, scores: r.currentStreakScores, processed: r.lastProcessedPoolId },
          ]),
        );
      const notificationsOf = async (poolId: string) =>
        (
          await t.database.db
            .select()
            .from(tables.notifications)
            .where(sql`${tables.notifications.data}->>'poolId' = ${poolId}`)
        )
          .map((n) => `${n.type} ${n.userId}`)
          .sort();

      // Pool 1: A and B qualify, C misses; E (a run of one) did not take part; F stays as it was.
      let before = await snapshot();
      let response!: Awaited<ReturnType<TestApp['gql']>> & { data?: any };
      const statements = await t.countStatements(async () => {
        response = await t.gql(
          RESOLVE,
          {
            i: {
              poolId: s.p1.id,
              result: 104,
              rewards: [
                { predictionId: s.p1Predictions.get(A), amount: 20, precisionScore: 0.9, type: 'REWARD' },
                { predictionId: s.p1Predictions.get(B), amount: 7, precisionScore: 0.8, type: 'REWARD' },
                { predictionId: s.p1Predictions.get(C), amount: 0, precisionScore: 0.2, type: 'REWARD' },
              ],
            },
          },
          admin,
        );
      });
      expect(response.errors).toBeUndefined();
      // Volume 30, fee 10% = 3, paid 27, nothing left; median of 100, 110, 120.
      expect(response.data.resolvePool.resolution).toEqual({ result: 104, protocolFee: 3, leftover: 0, median: 110 });
      expect(response.data.resolvePool.predictions.nodes.map((n: any) => n.reward.amount).sort((a: number, b: number) => a - b)).toEqual([
        0, 7, 20,
      ]);
      expect(statements).toBeLessThanOrEqual(20);
      let after = await snapshot();
      expect([after.resolutions - before.resolutions, after.rewards - before.rewards, after.streakRewards - before.streakRewards]).toEqual([
        1, 3, 0,
      ]);
      expect(await streakState()).toEqual({
        [A]: { count: 1, event: 'QUALIFIED', scores: [0.9], processed: s.p1.id },
        [B]: { count: 1, event: 'QUALIFIED', scores: [0.8], processed: s.p1.id },
        [C]: { count: 0, event: 'NONE', scores: [], processed: s.p1.id },
        [E]: { count: 0, event: 'RESET', scores: [], processed: s.p1.id },
        [F]: { count: 0, event: 'NONE', scores: [], processed: s.p1.id },
        [G]: { count: 0, event: 'RESET', scores: [], processed: s.p1.id },
      });
      // Only A: B turned reward notices off, C's reward is 0.
      expect(await notificationsOf(s.p1.id)).toEqual([`REWARD_AVAILABLE ${A}`]);
      expect(after.notifications - before.notifications).toBe(1);
      let [streak] = await t.database.db.select().from(tables.streaks).where(eq(tables.streaks.id, s.streak.id));
      expect([streak!.availableBalance, streak!.lastProcessedPoolId]).toEqual([1000n * TOKEN, s.p1.id]);

      // Pool 2, refunded: A completes a run of two (REWARDED), B misses (RESET), C qualifies; G, given a run of one again, completes it.
      await t.database.db
        .update(tables.userStreaks)
        .set({ currentStreakCount: 1, currentStreakScores: [0.6], lastStreakEvent: 'QUALIFIED' })
        .where(and(eq(tables.userStreaks.userId, G), eq(tables.userStreaks.streakId, s.streak.id)));
      before = await snapshot();
      const resolveP2 = () =>
        t.gql(
          RESOLVE,
          {
            i: {
              poolId: s.p2.id,
              result: 205,
              rewards: [
                { predictionId: s.p2Predictions.get(A), amount: 10, precisionScore: 0.95, type: 'REFUND' },
                { predictionId: s.p2Predictions.get(B), amount: 20, precisionScore: 0.3, type: 'REFUND' },
                { predictionId: s.p2Predictions.get(C), amount: 30, precisionScore: 0.7, type: 'REFUND' },
                { predictionId: s.p2Predictions.get(G), amount: 40, precisionScore: 0.5, type: 'REFUND' },
              ],
            },
          },
          admin,
        );
      response = await resolveP2();
      expect(response.errors).toBeUndefined();
      expect(response.data.resolvePool.resolution).toEqual({ result: 205, protocolFee: 0, leftover: 0, median: 210 });
      after = await snapshot();
      expect([after.resolutions - before.resolutions, after.rewards - before.rewards, after.streakRewards - before.streakRewards]).toEqual([
        1, 4, 2,
      ]);
      expect(await streakState()).toEqual({
        [A]: { count: 0, event: 'REWARDED', scores: [], processed: s.p2.id },
        [B]: { count: 0, event: 'RESET', scores: [], processed: s.p2.id },
        [C]: { count: 1, event: 'QUALIFIED', scores: [0.7], processed: s.p2.id },
        [E]: { count: 0, event: 'RESET', scores: [], processed: s.p2.id },
        [F]: { count: 0, event: 'NONE', scores: [], processed: s.p2.id },
        [G]: { count: 0, event: 'REWARDED', scores: [], processed: s.p2.id },
      });
      // G joined the streak first, so it is paid first: 10% of 1000, then 10% of the 900 left.
      const wallets = new Map(
        (
          await t.database.db
            .select()
            .from(tables.users)
            .where(inArray(tables.users.id, [A, G]))
        ).map((u) => [u.walletAddress, u.id]),
      );
      const granted = await t.database.db.select().from(tables.streakRewards).where(eq(tables.streakRewards.streakId, s.streak.id));
      expect(Object.fromEntries(granted.map((r) => [wallets.get(r.userWalletAddress), [r.amount, r.isClaimed]]))).toEqual({
        [G]: [100n * TOKEN, false],
        [A]: [90n * TOKEN, false],
      });
      [streak] = await t.database.db.select().from(tables.streaks).where(eq(tables.streaks.id, s.streak.id));
      expect([streak!.availableBalance, streak!.totalAccumulated, streak!.lastProcessedPoolId]).toEqual([
        810n * TOKEN,
        1000n * TOKEN,
        s.p2.id,
      ]);
      // Refund notices for A, B and G (C is silenced); a streak notice for G only (A turned them off).
      expect(await notificationsOf(s.p2.id)).toEqual(
        [`REFUND_AVAILABLE ${A}`, `REFUND_AVAILABLE ${B}`, `REFUND_AVAILABLE ${G}`, `STREAK_REWARD_AVAILABLE ${G}`].sort(),
      );
      const [streakNotice] = await t.database.db
        .select()
        .from(tables.notifications)
        .where(eq(tables.notifications.type, 'STREAK_REWARD_AVAILABLE'))
        .orderBy(desc(tables.notifications.createdAt))
        .limit(1);
      expect(streakNotice!.data).toMatchObject({
        streakId: s.streak.id,
        poolId: s.p2.id,
        amount: 100,
        streakRewardId: granted.find((r) => wallets.get(r.userWalletAddress) === G)!.id,
      });
      expect(after.notifications - before.notifications).toBe(4);

      // The events name exactly the notifications written, and the pool.
      const written = await t.database.db
        .select({ id: tables.notifications.id, userId: tables.notifications.userId })
        .from(tables.notifications)
        .where(sql`${tables.notifications.data}->>'poolId' = ${s.p2.id}`);
      const [created] = await waitForEvents(
        (e) => e.type === 'notificationsCreated' && e.notifications.some((n) => n.id === written[0]!.id),
        1,
      );
      expect(created).toBeDefined();
      expect(
        (created as Extract<CommittedEvent, { type: 'notificationsCreated' }>).notifications.map((n) => `${n.userId} ${n.id}`).sort(),
      ).toEqual(written.map((n) => `${n.userId} ${n.id}`).sort());
      expect(await waitForEvents((e) => e.type === 'poolUpdated' && e.poolId === s.p2.id, 1)).toHaveLength(1);

      // Idempotent: resolving again is refused, and nothing moves.
      const again = await resolveP2();
      expect(again.errors?.[0]?.extensions?.code).toBe('ALREADY_RESOLVED');
      expect(await snapshot()).toEqual(after);

      // A pool still taking predictions cannot be resolved.
      const early = await t.gql(RESOLVE, { i: { poolId: s.open.id, result: 1, rewards: [] } }, admin);
      expect(early.errors?.[0]?.extensions?.code).toBe('POOL_NOT_ENDED');
      expect(await snapshot()).toEqual(after);
    });

    it('refuses payouts that do not fit the pool with BAD_USER_INPUT naming the argument, writing nothing', async () => {
      const s = await streakScenario();
      const { A, B, C } = s.users;
      const entry = (userId: string, amount: number, precisionScore = 0.5) => ({
        predictionId: s.p1Predictions.get(userId),
        amount,
        precisionScore,
        type: 'REWARD',
      });
      const all = [entry(A, 1), entry(B, 1), entry(C, 1)];
      const foreign = [...s.p2Predictions.values()][0];
      const cases: Array<[string, Record<string, unknown>]> = [
        ['input.poolId', { poolId: 'nope', result: 1, rewards: all }],
        ['input.rewards', { poolId: s.p1.id, result: 1, rewards: all.slice(0, 2) }],
        ['input.rewards', { poolId: s.p1.id, result: 1, rewards: [entry(A, 20), entry(B, 7), entry(C, 0.000001)] }],
        ['input.rewards[0].amount', { poolId: s.p1.id, result: 1, rewards: [entry(A, 1.0000001), entry(B, 1), entry(C, 1)] }],
        ['input.rewards[1].amount', { poolId: s.p1.id, result: 1, rewards: [entry(A, 1), entry(B, -1), entry(C, 1)] }],
        ['input.rewards[2].precisionScore', { poolId: s.p1.id, result: 1, rewards: [entry(A, 1), entry(B, 1), entry(C, 1, 1.5)] }],
        [
          'input.rewards[2].predictionId',
          { poolId: s.p1.id, result: 1, rewards: [entry(A, 1), entry(B, 1), { ...entry(C, 1), predictionId: foreign }] },
        ],
        ['input.rewards[1].predictionId', { poolId: s.p1.id, result: 1, rewards: [entry(A, 1), entry(A, 1), entry(C, 1)] }],
      ];
      const before = await snapshot();
      for (const [argumentName, input] of cases) {
        const response = await t.gql(RESOLVE, { i: input }, admin);
        expect(response.errors?.[0]?.extensions, argumentName).toMatchObject({ code: 'BAD_USER_INPUT', argumentName });
      }
      const unknown = await t.gql(RESOLVE, { i: { poolId: '00000000-0000-4000-8000-000000000000', result: 1, rewards: [] } }, admin);
      expect(unknown.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND', argumentName: 'input.poolId' });
      expect(await snapshot()).toEqual(before);
    });
  });
});
