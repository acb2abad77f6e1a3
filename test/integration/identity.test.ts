// Over 300 lines: sign-in, tokens, API keys and sessions against one app per backend, with the sign-in and nothing-was-written helpers they share.
import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { NOTIFICATION_PREFERENCE_KEYS } from '../../schema/index.js';
import { generateApiKey } from '../../src/modules/auth/api-keys.js';
import { backends, startEmptyTestApp, TEST_AUTH_DOMAIN, testConfig, type TestApp } from '../support/harness.js';
import { kitWallet, nobleWallet, type TestWallet, web3Wallet } from '../support/wallets.js';

const CHALLENGE = `mutation($a: String!) { requestSignInChallenge(walletAddress: $a) { message nonce expiresAt } }`;
const SIGN_IN = `mutation($i: SignInWithWalletInput!) { signInWithWallet(input: $i) {
  accessToken refreshToken accessTokenExpiresAt refreshTokenExpiresAt user { id walletAddress role username } } }`;
const VIEWER = `{ viewer { id walletAddress email settings { notificationPreferences {
  isNotificationsEnabled isEmailNotificationsEnabled isPushNotificationsEnabled isEmailSubscribePopupDismissed
  rewardClaimed refundClaimed streakRewardReceived } } } }`;
const REFRESH = `mutation($t: String) { refreshSession(refreshToken: $t) { accessToken refreshToken } }`;
const API_KEY_SIGN_IN = `mutation($k: String!) { signInWithApiKey(apiKey: $k) { accessToken user { id } } }`;

describe.each(backends)('identity and access on %s', (kind) => {
  let t: TestApp;
  let clockOffsetMs = 0;
  const clock = () => new Date(Date.now() + clockOffsetMs);

  beforeAll(async () => {
    // Every request of this suite comes from one client address; its own limit is tested apart.
    // It starts empty: every user signs in (or is written) by the test that asserts on it.
    t = await startEmptyTestApp(kind, { config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000' }), clock });
  });
  afterAll(() => t.close());

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  async function signIn(wallet: TestWallet) {
    const challenge = await t.gql(CHALLENGE, { a: wallet.address });
    expect(challenge.errors).toBeUndefined();
    const message = challenge.data.requestSignInChallenge.message as string;
    const response = await t.gql(SIGN_IN, { i: { walletAddress: wallet.address, message, signature: await wallet.signMessage(message) } });
    expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
    return { ...response.data.signInWithWallet, message, headers: response.headers };
  }

  /** Rows of the tables sign-in writes, to prove a rejected attempt wrote nothing. */
  async function writtenRows() {
    const db = t.database.db;
    const [[u], [s], [c], [k]] = await Promise.all([
      db.select({ n: count() }).from(tables.users),
      db.select({ n: count() }).from(tables.refreshTokens),
      db
        .select({ n: count() })
        .from(tables.signInChallenges)
        .where(eq(tables.signInChallenges.consumedAt, tables.signInChallenges.consumedAt)),
      db.select({ n: count() }).from(tables.apiKeys),
    ]);
    return { users: u!.n, sessions: s!.n, consumedChallenges: c!.n, apiKeys: k!.n };
  }

  async function expectUnauthenticated<R extends { errors?: any[]; status: number }>(reason: string, run: () => Promise<R>): Promise<R> {
    const before = await writtenRows();
    const response = await run();
    expect(response.errors?.[0]?.extensions, JSON.stringify(response.errors)).toMatchObject({ code: 'UNAUTHENTICATED', reason });
    expect(await writtenRows()).toEqual(before);
    return response;
  }

  it('signs in wallets of @solana/kit and of a plain ed25519 library, creating the user once', async () => {
    for (const wallet of [await kitWallet(), await nobleWallet()]) {
      const before = await writtenRows();
      const first = await signIn(wallet);
      expect(await writtenRows()).toEqual({
        ...before,
        users: before.users + 1,
        sessions: before.sessions + 1,
        consumedChallenges: before.consumedChallenges + 1,
      });
      expect(first.message).toContain(`${TEST_AUTH_DOMAIN} wants you to sign in with your Solana account:\n${wallet.address}`);
      expect(first.user).toMatchObject({ walletAddress: wallet.address, role: 'USER' });
      expect(first.user.username).toMatch(/^[A-Za-z0-9_]{3,32}$/);
      const [settings] = await t.database.db.select().from(tables.settings).where(eq(tables.settings.userId, first.user.id));
      expect(Object.keys(settings!.notificationPreferences).sort()).toEqual([...NOTIFICATION_PREFERENCE_KEYS].sort());
      expect(Object.values(settings!.notificationPreferences).every((v) => v === true)).toBe(true);

      const again = await signIn(wallet);
      expect(again.user.id).toBe(first.user.id);
      expect((await writtenRows()).users).toBe(before.users + 1);
      const [{ n }] = (await t.database.db
        .select({ n: count() })
        .from(tables.users)
        .where(eq(tables.users.walletAddress, wallet.address))) as [{ n: number }];
      expect(n).toBe(1);
    }
  });

  it('signs in a @solana/web3.js Keypair over a real socket, then reads the viewer with its bearer token', async () => {
    const wallet = web3Wallet();
    const url = `${await t.app.listen({ host: '127.0.0.1', port: 0 })}/graphql`;
    const post = async (query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query, variables }),
      });
      return { status: response.status, ...((await response.json()) as { data?: any; errors?: any[] }) };
    };

    const challenge = await post(CHALLENGE, { a: wallet.keypair.publicKey.toBase58() });
    const message = challenge.data.requestSignInChallenge.message as string;
    expect(message).toContain(`wants you to sign in with your Solana account:\n${wallet.keypair.publicKey.toBase58()}\n`);
    const signedIn = await post(SIGN_IN, { i: { walletAddress: wallet.address, message, signature: await wallet.signMessage(message) } });
    expect(signedIn.errors, JSON.stringify(signedIn.errors)).toBeUndefined();
    const { accessToken, user } = signedIn.data.signInWithWallet;
    expect(user.walletAddress).toBe(wallet.keypair.publicKey.toBase58());

    const viewer = await post(VIEWER, undefined, bearer(accessToken));
    expect(viewer.status).toBe(200);
    expect(viewer.errors).toBeUndefined();
    expect(viewer.data.viewer).toMatchObject({ id: user.id, walletAddress: wallet.address });
    const [{ n }] = (await t.database.db
      .select({ n: count() })
      .from(tables.refreshTokens)
      .where(eq(tables.refreshTokens.userId, user.id))) as [{ n: number }];
    expect(n).toBe(1);
  });

  it('reads the viewer with the bearer token, with the cookie, and with an API key', async () => {
    const wallet = await kitWallet();
    const session = await signIn(wallet);
    const expectedPreferences = {
      isNotificationsEnabled: true,
      isEmailNotificationsEnabled: true,
      isPushNotificationsEnabled: true,
      isEmailSubscribePopupDismissed: true,
      rewardClaimed: true,
      refundClaimed: true,
      streakRewardReceived: true,
    };

    const viaBearer = await t.gql(VIEWER, undefined, bearer(session.accessToken));
    expect(viaBearer.errors).toBeUndefined();
    expect(viaBearer.data.viewer).toMatchObject({ id: session.user.id, walletAddress: wallet.address, email: null });
    expect(viaBearer.data.viewer.settings.notificationPreferences).toEqual(expectedPreferences);

    const cookies = ([] as string[]).concat(session.headers['set-cookie'] as string[]);
    expect(cookies.find((c) => c.startsWith('poolgraph_access='))).toMatch(/HttpOnly/);
    expect(cookies.find((c) => c.startsWith('poolgraph_refresh='))).toMatch(/HttpOnly; SameSite=Strict/);
    const cookieHeader = cookies.map((c) => c.split(';')[0]).join('; ');
    const viaCookie = await t.gql(VIEWER, undefined, { cookie: cookieHeader });
    expect(viaCookie.data.viewer.id).toBe(session.user.id);

    const created = await t.gql(
      `mutation { createApiKey(name: "bot") { apiKey key { id name isActive keyHash } } }`,
      undefined,
      bearer(session.accessToken),
    );
    expect(created.errors).toBeUndefined();
    const apiKey = created.data.createApiKey.apiKey as string;
    expect(apiKey).toMatch(/^pgk_[1-9A-HJ-NP-Za-km-z]{40,}$/);
    const viaKey = await t.gql(VIEWER, undefined, { 'x-api-key': apiKey });
    expect(viaKey.data.viewer.id).toBe(session.user.id);
    const [stored] = await t.database.db.select().from(tables.apiKeys).where(eq(tables.apiKeys.id, created.data.createApiKey.key.id));
    expect(stored!.lastUsedAt).not.toBeNull();

    const exchanged = await t.gql(`mutation($k: String!) { signInWithApiKey(apiKey: $k) { accessToken user { id } } }`, { k: apiKey });
    expect(exchanged.data.signInWithApiKey.user.id).toBe(session.user.id);
    expect((await t.gql(VIEWER, undefined, bearer(exchanged.data.signInWithApiKey.accessToken))).data.viewer.id).toBe(session.user.id);
  });

  it('refuses bad sign-ins with a reason, writing nothing', async () => {
    const wallet = await nobleWallet();
    const other = await kitWallet();
    const { data } = await t.gql(CHALLENGE, { a: wallet.address });
    const message = data.requestSignInChallenge.message as string;
    const attempt = (input: Record<string, string>) => () => t.gql(SIGN_IN, { i: { walletAddress: wallet.address, message, ...input } });

    await expectUnauthenticated('SIGNATURE_INVALID', attempt({ signature: await other.signMessage(message) }));
    await expectUnauthenticated('SIGNATURE_INVALID', attempt({ signature: await wallet.signMessage(`${message} `) }));
    await expectUnauthenticated('SIGNATURE_INVALID', attempt({ signature: 'not-a-signature' }));
    const foreign = message.replace(TEST_AUTH_DOMAIN, 'evil.example');
    await expectUnauthenticated('DOMAIN_MISMATCH', attempt({ message: foreign, signature: await wallet.signMessage(foreign) }));
    await expectUnauthenticated('ADDRESS_MISMATCH', () => t.gql(SIGN_IN, { i: { walletAddress: other.address, message, signature: 'x' } }));
    await expectUnauthenticated('MESSAGE_INVALID', attempt({ message: 'hello', signature: await wallet.signMessage('hello') }));

    // The genuine signature still works once, and a replay of it fails.
    const signature = await wallet.signMessage(message);
    expect((await attempt({ signature })()).errors).toBeUndefined();
    await expectUnauthenticated('CHALLENGE_INVALID', attempt({ signature }));
  });

  it('refuses an expired challenge', async () => {
    const wallet = await kitWallet();
    const { data } = await t.gql(CHALLENGE, { a: wallet.address });
    const message = data.requestSignInChallenge.message as string;
    const signature = await wallet.signMessage(message);
    clockOffsetMs = 301_000;
    try {
      await expectUnauthenticated('CHALLENGE_EXPIRED', () => t.gql(SIGN_IN, { i: { walletAddress: wallet.address, message, signature } }));
    } finally {
      clockOffsetMs = 0;
    }
  });

  it('refuses tampered and expired access tokens, and revoked or malformed API keys', async () => {
    const session = await signIn(await kitWallet());
    const [header, payload, sig] = (session.accessToken as string).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, role: 'ADMIN' })).toString('base64url')}.${sig}`;
    const tampered = await expectUnauthenticated('TOKEN_INVALID', () => t.gql(VIEWER, undefined, bearer(forged)));
    expect(tampered.status).toBe(401);
    await expectUnauthenticated('TOKEN_INVALID', () => t.gql(VIEWER, undefined, bearer('abc.def.ghi')));
    clockOffsetMs = 901_000;
    try {
      await expectUnauthenticated('TOKEN_EXPIRED', () => t.gql(VIEWER, undefined, bearer(session.accessToken)));
    } finally {
      clockOffsetMs = 0;
    }

    const created = await t.gql(`mutation { createApiKey(name: "ci") { apiKey key { id } } }`, undefined, bearer(session.accessToken));
    const { apiKey, key } = created.data.createApiKey;
    const revoked = await t.gql(`mutation($id: ID!) { revokeApiKey(id: $id) { isActive } }`, { id: key.id }, bearer(session.accessToken));
    expect(revoked.data.revokeApiKey.isActive).toBe(false);
    await expectUnauthenticated('API_KEY_REVOKED', () => t.gql(VIEWER, undefined, { 'x-api-key': apiKey }));
    // One character of the checksum changed (to another: a key already ending in x once made this the revoked key itself).
    const mistyped = `${apiKey.slice(0, -1)}${apiKey.endsWith('x') ? 'y' : 'x'}`;
    await expectUnauthenticated('API_KEY_MALFORMED', () => t.gql(VIEWER, undefined, { 'x-api-key': mistyped }));
    await expectUnauthenticated('API_KEY_MALFORMED', () => t.gql(VIEWER, undefined, { 'x-api-key': 'hunter2' }));

    const signedOut = await t.gql(VIEWER);
    expect(signedOut.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'NOT_SIGNED_IN' });
    expect(signedOut.data.viewer).toBeNull();
  });

  it('refuses unknown, malformed and revoked API keys, as x-api-key and in signInWithApiKey, writing nothing', async () => {
    const unknown = generateApiKey(); // well-formed, never issued
    const header = await expectUnauthenticated('API_KEY_INVALID', () => t.gql(VIEWER, undefined, { 'x-api-key': unknown }));
    expect(header.status).toBe(401);
    await expectUnauthenticated('API_KEY_INVALID', () => t.gql(API_KEY_SIGN_IN, { k: unknown }));
    await expectUnauthenticated('API_KEY_MALFORMED', () => t.gql(API_KEY_SIGN_IN, { k: 'pgk_hunter2' }));

    const session = await signIn(await kitWallet());
    const created = await t.gql(`mutation { createApiKey(name: "retired") { apiKey key { id } } }`, undefined, bearer(session.accessToken));
    const { apiKey, key } = created.data.createApiKey;
    expect((await t.gql(API_KEY_SIGN_IN, { k: apiKey })).data.signInWithApiKey.user.id).toBe(session.user.id);
    await t.gql(`mutation($id: ID!) { revokeApiKey(id: $id) { id } }`, { id: key.id }, bearer(session.accessToken));
    const keyRow = async () => (await t.database.db.select().from(tables.apiKeys).where(eq(tables.apiKeys.id, key.id)))[0];
    const before = await keyRow();
    const revoked = await expectUnauthenticated('API_KEY_REVOKED', () => t.gql(API_KEY_SIGN_IN, { k: apiKey }));
    expect(revoked.data?.signInWithApiKey ?? null).toBeNull();
    expect(await keyRow()).toEqual(before);
  });

  it('refreshes with the refresh cookie alone, rotating the session it names', async () => {
    const session = await signIn(await nobleWallet());
    const refreshCookie = (headers: Record<string, unknown>) =>
      ([] as string[])
        .concat(headers['set-cookie'] as string[])
        .find((c) => c.startsWith('poolgraph_refresh='))!
        .split(';')[0]!;
    const cookie = refreshCookie(session.headers);
    expect(cookie).toBe(`poolgraph_refresh=${encodeURIComponent(session.refreshToken)}`);
    const sessionRow = async () =>
      (await t.database.db.select().from(tables.refreshTokens).where(eq(tables.refreshTokens.userId, session.user.id)))[0]!;
    const before = await sessionRow();

    // Nothing to refresh with: no argument, no cookie.
    const bare = await t.gql(`mutation { refreshSession { accessToken } }`);
    expect(bare.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'TOKEN_INVALID' });
    expect(await sessionRow()).toEqual(before);

    const refreshed = await t.gql(`mutation { refreshSession { accessToken refreshToken } }`, undefined, { cookie });
    expect(refreshed.errors).toBeUndefined();
    const { accessToken, refreshToken } = refreshed.data.refreshSession;
    expect(refreshToken).not.toBe(session.refreshToken);
    expect(refreshCookie(refreshed.headers)).toBe(`poolgraph_refresh=${encodeURIComponent(refreshToken)}`);
    const after = await sessionRow();
    expect(after).toMatchObject({ id: before.id, previousVersion: before.version, revokedAt: null });
    expect(after.version).not.toBe(before.version);
    expect((await t.gql(VIEWER, undefined, bearer(accessToken))).data.viewer.id).toBe(session.user.id);
  });

  it('allows at most 5 active API keys', async () => {
    const session = await signIn(await nobleWallet());
    const create = () => t.gql(`mutation { createApiKey(name: "k") { key { id } } }`, undefined, bearer(session.accessToken));
    const results = await Promise.all(Array.from({ length: 7 }, create));
    expect(results.filter((r) => !r.errors)).toHaveLength(5);
    expect(results.filter((r) => r.errors?.[0]?.extensions?.reason === 'API_KEY_LIMIT')).toHaveLength(2);
    const [{ n }] = (await t.database.db
      .select({ n: count() })
      .from(tables.apiKeys)
      .where(and(eq(tables.apiKeys.userId, session.user.id), eq(tables.apiKeys.isActive, true)))) as [{ n: number }];
    expect(n).toBe(5);
  });

  it('rotates sessions: of two concurrent refreshes one succeeds; replaying an old token revokes the session', async () => {
    const session = await signIn(await kitWallet());
    const [a, b] = await Promise.all([t.gql(REFRESH, { t: session.refreshToken }), t.gql(REFRESH, { t: session.refreshToken })]);
    const winners = [a, b].filter((r) => !r.errors);
    const losers = [a, b].filter((r) => r.errors);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(1);
    expect(losers[0]!.errors![0]!.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'REFRESH_RACE_LOST' });
    const rotated = winners[0]!.data.refreshSession;
    expect((await t.gql(VIEWER, undefined, bearer(rotated.accessToken))).data.viewer.id).toBe(session.user.id);

    // Later, the spent token comes back: someone else holds it. The whole session ends.
    clockOffsetMs = 11_000;
    try {
      const replay = await t.gql(REFRESH, { t: session.refreshToken });
      expect(replay.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'REFRESH_TOKEN_REUSED' });
      const afterReplay = await t.gql(VIEWER, undefined, bearer(rotated.accessToken));
      expect(afterReplay.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'SESSION_REVOKED' });
      const newer = await t.gql(REFRESH, { t: rotated.refreshToken });
      expect(newer.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'SESSION_REVOKED' });
    } finally {
      clockOffsetMs = 0;
    }
    const [row] = await t.database.db.select().from(tables.refreshTokens).where(eq(tables.refreshTokens.userId, session.user.id));
    expect(row!.revokedReason).toBe('REFRESH_TOKEN_REUSED');
  });

  it('signs out: the session and its cookies end', async () => {
    const session = await signIn(await nobleWallet());
    const out = await t.gql(`mutation { signOut }`, undefined, bearer(session.accessToken));
    expect(out.data.signOut).toBe(true);
    expect(String(out.headers['set-cookie'])).toContain('poolgraph_access=;');
    const after = await t.gql(VIEWER, undefined, bearer(session.accessToken));
    expect(after.errors?.[0]?.extensions?.reason).toBe('SESSION_REVOKED');
    const refresh = await t.gql(REFRESH, { t: session.refreshToken });
    expect(refresh.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'SESSION_REVOKED' });
    const sessions = await t.database.db.select().from(tables.refreshTokens).where(eq(tables.refreshTokens.userId, session.user.id));
    expect(sessions.map((row) => row.revokedAt !== null)).toEqual([true]);
  });

  it("answers another user's private fields with null and FORBIDDEN at their path; admins may read them", async () => {
    // Alice has one row of every private kind but API keys, and her pool is the public path
    // to them; Bob created the code she redeemed. Both sign in with wallets the test holds.
    const [aliceWallet, bobWallet] = [await kitWallet(), await nobleWallet()];
    const bobRows = await t.seed.user({ walletAddress: bobWallet.address }).withReferralCode();
    const aliceRows = await t.seed
      .user({ walletAddress: aliceWallet.address, email: 'alice@example.com' })
      .withSettings()
      .withNotifications([{}, { readAt: new Date() }])
      .withDeviceToken()
      .withReferralCode()
      .withPool();
    const alice = await signIn(aliceWallet);
    const bob = await signIn(bobWallet);
    expect([alice.user.id, bob.user.id]).toEqual([aliceRows.user.id, bobRows.user.id]);
    const redeemed = await t.gql(
      `mutation($c: String!) { redeemReferralCode(code: $c) { id } }`,
      { c: bobRows.referralCodes[0]!.code },
      bearer(alice.accessToken),
    );
    expect(redeemed.errors, JSON.stringify(redeemed.errors)).toBeUndefined();
    const [aliceSession] = await t.database.db
      .select()
      .from(tables.refreshTokens)
      .where(eq(tables.refreshTokens.userId, aliceRows.user.id));
    const fields = [
      'email',
      'settings',
      'notifications',
      'deviceTokens',
      'refreshTokens',
      'apiKeys',
      'referralRedemption',
      'createdReferralCodes',
    ];
    const selection =
      'email settings { id } notifications { totalCount } deviceTokens { id } refreshTokens { id } apiKeys { id } referralRedemption { id } createdReferralCodes { id }';
    const read = (headers: Record<string, string>) =>
      t.gql(`query($id: ID!) { pool(id: $id) { user { id ${selection} } } }`, { id: aliceRows.pool!.id }, headers);

    for (const headers of [bearer(bob.accessToken), {}]) {
      const response = await read(headers);
      expect(response.data.pool.user).toEqual({ id: aliceRows.user.id, ...Object.fromEntries(fields.map((field) => [field, null])) });
      expect(response.errors!.map((e: any) => e.extensions.code)).toEqual(fields.map(() => 'FORBIDDEN'));
      expect(response.errors!.map((e: any) => e.path.join('.')).sort()).toEqual(fields.map((f) => `pool.user.${f}`).sort());
    }

    const alicesFields = {
      id: aliceRows.user.id,
      email: 'alice@example.com',
      settings: { id: aliceRows.settings!.id },
      notifications: { totalCount: 2 },
      deviceTokens: [{ id: aliceRows.deviceTokens[0]!.id }],
      refreshTokens: [{ id: aliceSession!.id }],
      apiKeys: [],
      referralRedemption: { id: redeemed.data.redeemReferralCode.id },
      createdReferralCodes: [{ id: aliceRows.referralCodes[0]!.id }],
    };
    const asAlice = await read(bearer(alice.accessToken));
    expect(asAlice.errors).toBeUndefined();
    expect(asAlice.data.pool.user).toEqual(alicesFields);

    await t.database.db.update(tables.users).set({ role: 'ADMIN' }).where(eq(tables.users.id, bob.user.id));
    const asAdmin = await read(bearer((await signIn(bobWallet)).accessToken));
    expect(asAdmin.errors).toBeUndefined();
    expect(asAdmin.data.pool.user).toEqual(alicesFields);
  });

  it('keeps no secret in the database: keys are hashed, sessions keep only a version', async () => {
    const session = await signIn(await kitWallet());
    const created = await t.gql(
      `mutation { createApiKey(name: "secret-check") { apiKey key { id } } }`,
      undefined,
      bearer(session.accessToken),
    );
    const apiKey = created.data.createApiKey.apiKey as string;
    const rows = await Promise.all([
      t.database.db.select().from(tables.apiKeys),
      t.database.db.select().from(tables.refreshTokens),
      t.database.db.select().from(tables.signInChallenges),
      t.database.db.select().from(tables.users),
    ]);
    // The rows holding what the secrets name are in the dump: one key, one session, one consumed challenge.
    const [keys, sessions, challenges, users] = rows;
    expect(keys.filter((k) => k.userId === session.user.id).map((k) => k.id)).toEqual([created.data.createApiKey.key.id]);
    expect(sessions.filter((s) => s.userId === session.user.id)).toHaveLength(1);
    expect(challenges.filter((c) => c.walletAddress === session.user.walletAddress).map((c) => c.message)).toEqual([session.message]);
    expect(users.filter((u) => u.id === session.user.id)).toHaveLength(1);
    const dump = JSON.stringify(rows, (_key, value) => (typeof value === 'bigint' ? value.toString() : value));
    for (const secret of [apiKey, apiKey.slice(4, 30), session.accessToken, session.refreshToken, session.refreshToken.split('.')[2]]) {
      expect(dump).not.toContain(secret);
    }
  });

  it('rate limits sign-in attempts per wallet address', async () => {
    const wallet = await nobleWallet();
    const responses = [];
    for (let i = 0; i < 12; i++) responses.push(await t.gql(CHALLENGE, { a: wallet.address }));
    expect(responses.filter((r) => !r.errors)).toHaveLength(10);
    const limited = responses.filter((r) => r.errors);
    expect(limited).toHaveLength(2);
    for (const response of limited) {
      expect(response.errors![0]!.extensions).toMatchObject({ code: 'RATE_LIMITED' });
      // Seconds to the end of the minute's window: at least 1, at most 60.
      expect(response.errors![0]!.extensions!.retryAfter).toBeGreaterThanOrEqual(1);
      expect(response.errors![0]!.extensions!.retryAfter).toBeLessThanOrEqual(60);
    }
    // Refused challenges are not written: only the ten issued ones are.
    const issued = await t.database.db
      .select({ n: count() })
      .from(tables.signInChallenges)
      .where(eq(tables.signInChallenges.walletAddress, wallet.address));
    expect(issued).toEqual([{ n: 10 }]);
  });
});
