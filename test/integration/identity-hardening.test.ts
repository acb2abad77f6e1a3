import { count, eq, lte } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { encodeCursor } from '../../src/modules/common/pagination.js';
import { signAccessToken } from '../../src/modules/auth/tokens.js';
import { changeUserRole } from '../../src/modules/auth/session.service.js';
import { EventHub } from '../../src/modules/events/event-hub.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { signInAs } from '../support/sessions.js';
import { kitWallet } from '../support/wallets.js';

const CHALLENGE = `mutation($a: String!) { requestSignInChallenge(walletAddress: $a) { message } }`;
const SIGN_IN = `mutation($i: SignInWithWalletInput!) { signInWithWallet(input: $i) { accessToken user { id } } }`;
const VIEWER_ROLE = `{ viewer { id role } }`;

describe.each(backends)('identity hardening on %s', (kind) => {
  const config = testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000', SIGN_IN_ATTEMPTS_PER_MINUTE: '3' });
  let t: TestApp;
  let clockOffsetMs = 0;
  const clock = () => new Date(Date.now() + clockOffsetMs);

  beforeAll(async () => {
    t = await startEmptyTestApp(kind, { config, clock });
  });
  afterAll(() => t.close());

  const from =
    (remoteAddress: string) =>
    async (query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}) => {
      const response = await t.app.inject({ method: 'POST', url: '/graphql', remoteAddress, headers, payload: { query, variables } });
      return response.json() as { data?: any; errors?: Array<{ message: string; path?: unknown[]; extensions?: Record<string, any> }> };
    };

  async function sessionOf(userId: string) {
    const [session] = await t.database.db.select().from(tables.refreshTokens).where(eq(tables.refreshTokens.userId, userId));
    return session!;
  }

  describe('access tokens are bound to their session', () => {
    it('refuses a validly signed token naming another user or another role than its session', async () => {
      const [alice, bob] = (await t.seed.users(2)).map((f) => f.user) as [tables.UserRow, tables.UserRow];
      const signedIn = await signInAs(t, alice.id);
      const session = await sessionOf(alice.id);
      const expiresAt = new Date(Date.now() + 60_000);
      const forgeries = [
        { userId: bob.id, role: 'ADMIN' as const, sessionId: session.id },
        { userId: bob.id, role: 'USER' as const, sessionId: session.id },
        { userId: alice.id, role: 'ADMIN' as const, sessionId: session.id },
      ];
      for (const claims of forgeries) {
        const token = await signAccessToken(config.auth.secret, claims, expiresAt);
        const response = await t.gql(VIEWER_ROLE, undefined, { authorization: `Bearer ${token}` });
        expect(response.data?.viewer ?? null, JSON.stringify(claims)).toBeNull();
        expect(response.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'SESSION_MISMATCH' });
      }
      const genuine = await t.gql(VIEWER_ROLE, undefined, signedIn.headers);
      expect(genuine.data.viewer).toEqual({ id: alice.id, role: 'USER' });
    });

    it('refuses, as 401 TOKEN_INVALID, a validly signed token whose user or session id is not a UUID', async () => {
      const [alice] = (await t.seed.users(1)).map((f) => f.user) as [tables.UserRow];
      await signInAs(t, alice.id);
      const session = await sessionOf(alice.id);
      const expiresAt = new Date(Date.now() + 60_000);
      for (const claims of [
        { userId: alice.id, role: 'USER' as const, sessionId: 'not-a-uuid' },
        { userId: alice.id, role: 'USER' as const, sessionId: `${session.id}'--` },
        { userId: 'admin', role: 'USER' as const, sessionId: session.id },
      ]) {
        const token = await signAccessToken(config.auth.secret, claims, expiresAt);
        const response = await t.app.inject({
          method: 'POST',
          url: '/graphql',
          headers: { authorization: `Bearer ${token}` },
          payload: { query: VIEWER_ROLE },
        });
        expect(response.statusCode, JSON.stringify(claims)).toBe(401);
        expect(response.json().errors[0].extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'TOKEN_INVALID' });
      }
    });

    it('revokes every session of a user whose role changes', async () => {
      // Carol has two sessions (signInAs moves her to a new wallet each time); Dave, one that stays.
      const [carol, dave] = (await t.seed.users(2)).map((f) => f.user) as [tables.UserRow, tables.UserRow];
      const sessions = [await signInAs(t, carol.id), await signInAs(t, carol.id)];
      const bystander = await signInAs(t, dave.id);
      const [wallet] = await t.database.db
        .select({ address: tables.users.walletAddress })
        .from(tables.users)
        .where(eq(tables.users.id, carol.id));
      for (const session of sessions)
        expect((await t.gql(VIEWER_ROLE, undefined, session.headers)).data.viewer).toEqual({ id: carol.id, role: 'USER' });

      expect(await changeUserRole(t.database, new EventHub(t.database), wallet!.address!, 'ADMIN', new Date())).toMatchObject({
        id: carol.id,
        role: 'ADMIN',
        revokedSessions: 2,
      });
      for (const session of sessions) {
        const stale = await t.gql(VIEWER_ROLE, undefined, session.headers);
        expect(stale.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'SESSION_REVOKED' });
      }
      const rows = await t.database.db.select().from(tables.refreshTokens).where(eq(tables.refreshTokens.userId, carol.id));
      expect(rows.map((row) => row.revokedReason)).toEqual(['ROLE_CHANGED', 'ROLE_CHANGED']);
      expect((await t.gql(VIEWER_ROLE, undefined, bystander.headers)).data.viewer).toEqual({ id: dave.id, role: 'USER' });
    });
  });

  describe('sign-in budget', () => {
    it("lets a wallet's owner sign in while a stranger spends that wallet's budget from elsewhere", async () => {
      const owner = await kitWallet();
      const stranger = from('203.0.113.66');
      const tries = [];
      for (let i = 0; i < 5; i++) tries.push(await stranger(CHALLENGE, { a: owner.address }));
      expect(tries.filter((r) => r.errors?.[0]?.extensions?.code === 'RATE_LIMITED')).toHaveLength(2);

      const home = from('198.51.100.44');
      const challenge = await home(CHALLENGE, { a: owner.address });
      expect(challenge.errors).toBeUndefined();
      const message = challenge.data.requestSignInChallenge.message as string;
      const signedIn = await home(SIGN_IN, { i: { walletAddress: owner.address, message, signature: await owner.signMessage(message) } });
      expect(signedIn.errors).toBeUndefined();
      expect(typeof signedIn.data.signInWithWallet.accessToken).toBe('string');
    });

    it('purges expired challenges when it issues new ones', async () => {
      const early = await kitWallet();
      expect((await from('198.51.100.45')(CHALLENGE, { a: early.address })).errors).toBeUndefined();
      const rowsOf = async (address: string) =>
        (
          await t.database.db.select({ n: count() }).from(tables.signInChallenges).where(eq(tables.signInChallenges.walletAddress, address))
        )[0]!.n;
      expect(await rowsOf(early.address)).toBe(1);
      clockOffsetMs += (config.auth.challengeTtlSeconds + 1) * 1000;
      try {
        const late = await kitWallet();
        expect((await from('198.51.100.45')(CHALLENGE, { a: late.address })).errors).toBeUndefined();
        expect(await rowsOf(early.address)).toBe(0);
        expect(await rowsOf(late.address)).toBe(1);
        const [{ expired }] = (await t.database.db
          .select({ expired: count() })
          .from(tables.signInChallenges)
          .where(lte(tables.signInChallenges.expiresAt, clock()))) as [{ expired: number }];
        expect(expired).toBe(0);
      } finally {
        clockOffsetMs -= (config.auth.challengeTtlSeconds + 1) * 1000;
      }
    });
  });

  describe("a referral code's redemptions", () => {
    const VIA_REDEMPTION = `{ viewer { referralRedemption { referralCode { id redemptions { user { id } } } } } }`;
    const VIA_CREATED = `{ viewer { createdReferralCodes { id redemptions { user { id } } } } }`;

    it('are visible to the code creator and admins only', async () => {
      // The creator's first code is redeemed by two users, their second by none; a third
      // user redeems another creator's code, a redemption no list below may show.
      const creatorRows = await t.seed.user().withReferralCode().withReferralCode();
      const [code, unused] = creatorRows.referralCodes as [tables.ReferralCodeRow, tables.ReferralCodeRow];
      const {
        referralCodes: [elsewhere],
      } = await t.seed.user().withReferralCode();
      const redeem = async (codeText: string) => {
        const signedIn = await signInAs(t, (await t.seed.user()).user.id);
        const redeemed = await t.gql(`mutation($c: String!) { redeemReferralCode(code: $c) { id } }`, { c: codeText }, signedIn.headers);
        expect(redeemed.errors, JSON.stringify(redeemed.errors)).toBeUndefined();
        return signedIn;
      };
      const redeemers = [await redeem(code.code), await redeem(code.code)];
      await redeem(elsewhere!.code);
      const redeemerIds = redeemers.map((r) => r.userId).sort();
      const userIds = (redemptions: Array<{ user: { id: string } }>) => redemptions.map((r) => r.user.id).sort();

      const refused = await t.gql(VIA_REDEMPTION, undefined, redeemers[0]!.headers);
      expect(refused.data.viewer.referralRedemption.referralCode).toEqual({ id: code.id, redemptions: null });
      expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      expect(refused.errors?.[0]?.path).toEqual(['viewer', 'referralRedemption', 'referralCode', 'redemptions']);

      const creator = await signInAs(t, creatorRows.user.id);
      const own = await t.gql(VIA_CREATED, undefined, creator.headers);
      expect(own.errors).toBeUndefined();
      const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
      const seen = [...own.data.viewer.createdReferralCodes]
        .sort(byId)
        .map((c: { id: string; redemptions: Array<{ user: { id: string } }> }) => ({ id: c.id, users: userIds(c.redemptions) }));
      expect(seen).toEqual(
        [
          { id: code.id, users: redeemerIds },
          { id: unused.id, users: [] },
        ].sort(byId),
      );

      const admin = await signInAs(t, redeemers[1]!.userId, 'ADMIN');
      const asAdmin = await t.gql(VIA_REDEMPTION, undefined, admin.headers);
      expect(asAdmin.errors).toBeUndefined();
      expect(asAdmin.data.viewer.referralRedemption.referralCode.id).toBe(code.id);
      expect(userIds(asAdmin.data.viewer.referralRedemption.referralCode.redemptions)).toEqual(redeemerIds);
    });
  });

  describe('input refused at the boundary, not by the database', () => {
    // Two pools for the accepted inputs to find exactly one of: by search, by reference day
    // (the other's is the next day's first instant), and in a streak for streakPools.
    let bitcoin: tables.PoolRow;
    let streak: tables.StreakRow;
    beforeAll(async () => {
      streak = await t.seed.streak();
      const { pools } = await t.seed
        .user()
        .withPool({ title: 'Bitcoin price at the end of the month', referenceDate: new Date('2030-06-01T15:00:00Z'), streakId: streak.id })
        .withPool({ title: 'Ether price at the end of the month', referenceDate: new Date('2030-06-02T00:00:00Z') });
      bitcoin = pools[0]!;
    });

    async function expectBadInput(
      query: string,
      argumentName: string,
      variables?: Record<string, unknown>,
      headers?: Record<string, string>,
    ) {
      let response!: Awaited<ReturnType<TestApp['gql']>>;
      const statements = await t.countStatements(async () => {
        response = await t.gql(query, variables, headers);
      });
      expect(response.errors, JSON.stringify(response.errors)).toHaveLength(1);
      expect(response.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName });
      return { message: response.errors![0]!.message, statements };
    }

    it('caps search by length and by terms, naming the limit, before any statement', async () => {
      const huge = await expectBadInput('query($s: String) { pools(search: $s) { totalCount } }', 'search', { s: 'a '.repeat(20_000) });
      expect(huge.statements).toBe(0);
      expect(huge.message).toMatch(/at most 200 characters/);
      const many = await expectBadInput('query($s: String) { pools(search: $s) { totalCount } }', 'search', { s: 'ab '.repeat(20).trim() });
      expect(many.statements).toBe(0);
      expect(many.message).toMatch(/at most 8 words/);
      const fine = await t.gql('query($s: String) { pools(search: $s) { totalCount nodes { id } } }', { s: 'bitcoin price end of month' });
      expect(fine.errors).toBeUndefined();
      expect(fine.data.pools).toEqual({ totalCount: 1, nodes: [{ id: bitcoin.id }] });
    });

    it('refuses forged cursors whose keys JavaScript parses and Postgres cannot cast', async () => {
      const id = '00000000-0000-4000-8000-000000000000';
      for (const [sort, key] of [
        ['END_DATE', '1'],
        ['END_DATE', '2024-02-30'],
        ['CREATION_DATE', '+275760-09-13T00:00:00.000Z'],
        ['OLD_CREATION_DATE', '12/31/99999'],
        ['VOLUME_HIGH', '99999999999999999999'],
        ['VOLUME_LOW', '-9223372036854775809'],
      ] as const) {
        const cursor = encodeCursor(sort, key, id);
        const refused = await expectBadInput(`{ pools(sort: ${sort}, after: "${cursor}") { totalCount } }`, 'after');
        expect(refused.statements, key).toBe(0);
      }
      const cursor = encodeCursor('NEWEST_FIRST', '0', id);
      const refused = await expectBadInput(
        `{ streakPools(streakId: "${streak.id}", after: "${cursor}") { pools { totalCount } } }`,
        'after',
      );
      // No statement: page arguments and cursors are read before anything of the operation runs.
      expect(refused.statements).toBe(0);
      const fine = await t.gql(`{ streakPools(streakId: "${streak.id}") { pools { totalCount nodes { id } } } }`);
      expect(fine.errors).toBeUndefined();
      expect(fine.data.streakPools.pools).toEqual({ totalCount: 1, nodes: [{ id: bitcoin.id }] });
    });

    it('refuses referenceDate values the database cannot hold', async () => {
      for (const date of ['0000-01-01T00:00:00Z', '9999-12-31T12:00:00Z']) {
        const refused = await expectBadInput(
          'query($d: DateTime) { pools(filter: { referenceDate: $d }) { totalCount } }',
          'filter.referenceDate',
          { d: date },
        );
        expect(refused.statements).toBe(0);
      }
      const fine = await t.gql('query($d: DateTime) { pools(filter: { referenceDate: $d }) { totalCount nodes { id } } }', {
        d: '2030-06-01T00:00:00Z',
      });
      expect(fine.errors).toBeUndefined();
      expect(fine.data.pools).toEqual({ totalCount: 1, nodes: [{ id: bitcoin.id }] });
    });

    it('refuses a NUL byte in stored text, writing nothing', async () => {
      const signedIn = await signInAs(t, (await t.seed.user()).user.id);
      const keys = () => t.database.db.select({ n: count() }).from(tables.apiKeys);
      // No test of this suite creates API keys: the table is empty before and after.
      expect(await keys()).toEqual([{ n: 0 }]);
      const refused = await expectBadInput(
        'mutation($n: String!) { createApiKey(name: $n) { apiKey } }',
        'name',
        { n: 'laptop\u0000key' },
        signedIn.headers,
      );
      expect(refused.message).toMatch(/control characters/);
      expect(await keys()).toEqual([{ n: 0 }]);
    });
  });
});
