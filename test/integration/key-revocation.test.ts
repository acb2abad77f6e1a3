import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { signInAs } from '../support/sessions.js';
import { listen, socketClient, Subscription } from '../support/sockets.js';

const VIEWER = `{ viewer { id } }`;
const CREATE_KEY = `mutation($n: String!) { createApiKey(name: $n) { apiKey key { id } } }`;
const KEY_SIGN_IN = `mutation($k: String!) { signInWithApiKey(apiKey: $k) { accessToken refreshToken } }`;
const REFRESH = `mutation($r: String!) { refreshSession(refreshToken: $r) { accessToken } }`;
const REVOKE_KEY = `mutation($id: ID!) { revokeApiKey(id: $id) { isActive } }`;
const REVOKE_SESSION = `mutation($id: ID!) { revokeSession(id: $id) { id revokedAt } }`;
const SESSIONS = `{ viewer { refreshTokens { id revokedAt } } }`;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const key = (apiKey: string) => ({ 'x-api-key': apiKey });

describe.each(backends)('revoking a credential on %s', (kind) => {
  let t: TestApp;
  let url: string;
  let userIds: string[];

  beforeAll(async () => {
    t = await startEmptyTestApp(kind, { config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000' }) });
    url = await listen(t);
    userIds = (await t.seed.users(3)).map((f) => f.user.id);
  });
  afterAll(() => t.close());

  async function expectRefused(reason: string, headers: Record<string, string>, query = VIEWER, variables?: Record<string, unknown>) {
    const response = await t.gql(query, variables, headers);
    expect(response.errors?.[0]?.extensions, JSON.stringify(headers)).toMatchObject({ code: 'UNAUTHENTICATED', reason });
    expect(response.data?.viewer ?? null).toBeNull();
  }

  it('ends the sessions the key opened, their refresh tokens and sockets, and the keys minted under it', async () => {
    const owner = await signInAs(t, userIds[0]!);
    const k1 = (await t.gql(CREATE_KEY, { n: 'k1' }, owner.headers)).data.createApiKey;
    // The holder of k1 mints k2 with the key itself, and opens session S with it.
    const k2 = (await t.gql(CREATE_KEY, { n: 'k2' }, key(k1.apiKey))).data.createApiKey;
    const s = (await t.gql(KEY_SIGN_IN, { k: k1.apiKey })).data.signInWithApiKey;
    // ...then mints k3 through S, and opens S2 with k2: both descend from k1.
    const k3 = (await t.gql(CREATE_KEY, { n: 'k3' }, bearer(s.accessToken))).data.createApiKey;
    const s2 = (await t.gql(KEY_SIGN_IN, { k: k2.apiKey })).data.signInWithApiKey;
    // A key the owner minted from the wallet session, and the session it opened: unrelated to k1.
    const kept = (await t.gql(CREATE_KEY, { n: 'kept' }, owner.headers)).data.createApiKey;
    const keptSession = (await t.gql(KEY_SIGN_IN, { k: kept.apiKey })).data.signInWithApiKey;

    for (const headers of [key(k1.apiKey), key(k2.apiKey), key(k3.apiKey), bearer(s.accessToken), bearer(s2.accessToken)])
      expect((await t.gql(VIEWER, undefined, headers)).data.viewer).toEqual({ id: userIds[0] });
    const sockets = {
      k1: socketClient(url, key(k1.apiKey)),
      k2: socketClient(url, key(k2.apiKey)),
      s: socketClient(url, bearer(s.accessToken)),
      s2: socketClient(url, bearer(s2.accessToken)),
      kept: socketClient(url, bearer(keptSession.accessToken)),
    };
    await Promise.all(Object.values(sockets).map((socket) => socket.connected));
    const answering = new Subscription(sockets.s.client, `subscription { notificationCount }`);
    expect((await answering.waitFor(1)).map((r) => r.data)).toEqual([{ notificationCount: 0 }]);

    const revoked = await t.gql(REVOKE_KEY, { id: k1.key.id }, owner.headers);
    expect(revoked.data).toEqual({ revokeApiKey: { isActive: false } });

    await expectRefused('API_KEY_REVOKED', key(k1.apiKey));
    await expectRefused('API_KEY_REVOKED', key(k2.apiKey));
    await expectRefused('API_KEY_REVOKED', key(k3.apiKey));
    await expectRefused('SESSION_REVOKED', bearer(s.accessToken));
    await expectRefused('SESSION_REVOKED', bearer(s2.accessToken));
    for (const refreshToken of [s.refreshToken, s2.refreshToken]) {
      const refreshed = await t.gql(REFRESH, { r: refreshToken });
      expect(refreshed.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'SESSION_REVOKED' });
    }
    for (const apiKey of [k1.apiKey, k2.apiKey, k3.apiKey]) {
      const exchanged = await t.gql(KEY_SIGN_IN, { k: apiKey });
      expect(exchanged.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'API_KEY_REVOKED' });
    }
    expect(await sockets.k1.closed).toEqual({ code: 4403, reason: 'The API key has been revoked' });
    expect(await sockets.k2.closed).toEqual({ code: 4403, reason: 'The API key has been revoked' });
    expect(await sockets.s.closed).toEqual({ code: 4403, reason: 'The session has ended; sign in again' });
    expect(await sockets.s2.closed).toEqual({ code: 4403, reason: 'The session has ended; sign in again' });

    // What the owner opened apart from k1 lives on: the wallet session, the other key, its session and socket.
    expect((await t.gql(VIEWER, undefined, owner.headers)).data.viewer).toEqual({ id: userIds[0] });
    expect((await t.gql(VIEWER, undefined, key(kept.apiKey))).data.viewer).toEqual({ id: userIds[0] });
    expect((await t.gql(VIEWER, undefined, bearer(keptSession.accessToken))).data.viewer).toEqual({ id: userIds[0] });
    const still = new Subscription(sockets.kept.client, `subscription { notificationCount }`);
    expect((await still.waitFor(1)).map((r) => r.data)).toEqual([{ notificationCount: 0 }]);
    await sockets.kept.dispose();

    const keys = await t.database.db.select().from(tables.apiKeys).where(eq(tables.apiKeys.userId, userIds[0]!));
    expect(Object.fromEntries(keys.map((row) => [row.name, row.isActive]))).toEqual({ k1: false, k2: false, k3: false, kept: true });
    const sessions = await t.database.db.select().from(tables.refreshTokens).where(eq(tables.refreshTokens.userId, userIds[0]!));
    expect(sessions.map((row) => row.revokedReason).sort()).toEqual(['API_KEY_REVOKED', 'API_KEY_REVOKED', null, null]);
  });

  it('lets a user end any of their sessions by id, with its socket, and no one else', async () => {
    const owner = await signInAs(t, userIds[1]!);
    const created = (await t.gql(CREATE_KEY, { n: 'laptop' }, owner.headers)).data.createApiKey;
    const other = (await t.gql(KEY_SIGN_IN, { k: created.apiKey })).data.signInWithApiKey;
    const socket = socketClient(url, bearer(other.accessToken));
    await socket.connected;
    const listed = (await t.gql(SESSIONS, undefined, owner.headers)).data.viewer.refreshTokens as Array<{ id: string }>;
    expect(listed).toHaveLength(2);
    const [mine] = await t.database.db.select().from(tables.refreshTokens).where(eq(tables.refreshTokens.apiKeyId, created.key.id));

    const stranger = await signInAs(t, userIds[2]!);
    const refused = await t.gql(REVOKE_SESSION, { id: mine!.id }, stranger.headers);
    expect(refused.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect((await t.gql(VIEWER, undefined, bearer(other.accessToken))).data.viewer).toEqual({ id: userIds[1] });

    const ended = await t.gql(REVOKE_SESSION, { id: mine!.id }, owner.headers);
    expect(ended.data.revokeSession).toMatchObject({ id: mine!.id, revokedAt: expect.any(String) });
    await expectRefused('SESSION_REVOKED', bearer(other.accessToken));
    expect((await t.gql(REFRESH, { r: other.refreshToken })).errors?.[0]?.extensions).toMatchObject({ reason: 'SESSION_REVOKED' });
    expect(await socket.closed).toEqual({ code: 4403, reason: 'The session has ended; sign in again' });
    // The key itself is not the session: it still works, as does the session that ended the other.
    expect((await t.gql(VIEWER, undefined, key(created.apiKey))).data.viewer).toEqual({ id: userIds[1] });
    expect((await t.gql(VIEWER, undefined, owner.headers)).data.viewer).toEqual({ id: userIds[1] });
    const malformed = await t.gql(REVOKE_SESSION, { id: 'not-a-uuid' }, owner.headers);
    expect(malformed.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: 'id' });
  });
});
