// Over 300 lines: the viewer's notifications, preferences, devices and their loaders, against one app per backend with the same seeded bystanders whose rows must stay untouched.
import { randomBytes, randomUUID } from 'node:crypto';
import { and, count, desc, eq, inArray, isNotNull, isNull, ne } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { NOTIFICATION_PREFERENCE_KEYS } from '../../schema/index.js';
import { outboxTail, readOutbox } from '../../src/db/event-outbox.js';
import { parseNewestFirstPage } from '../../src/modules/common/loaders.js';
import { createLoaders } from '../../src/modules/loaders.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { kitWallet } from '../support/wallets.js';
import { walletSignIn } from '../support/sessions.js';

const { notifications, settings, deviceTokens, users } = tables;

const NOTIFICATIONS = `query($filter: NotificationFilter, $first: Int, $after: String) {
  viewer { notifications(filter: $filter, first: $first, after: $after) {
    totalCount pageInfo { hasNextPage endCursor } nodes { id readAt }
  } }
}`;

const PREFERENCES = `mutation($i: NotificationPreferencesInput!) { updateNotificationPreferences(input: $i) {
  userId notificationPreferences { isNotificationsEnabled isEmailNotificationsEnabled isPushNotificationsEnabled
    isEmailSubscribePopupDismissed rewardClaimed refundClaimed streakRewardReceived }
} }`;

const MARK = `mutation($ids: [ID!]!) { markNotificationsRead(ids: $ids) }`;
const REGISTER = `mutation($t: String!, $p: DevicePlatform!) { registerDeviceToken(token: $t, platform: $p) { id userId platform token } }`;
const REMOVE = `mutation($t: String!) { removeDeviceToken(token: $t) }`;

describe.each(backends)('the viewer’s notifications, preferences and devices on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startEmptyTestApp(kind, { config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000' }) });
    await seedBystanders();
  });
  afterAll(() => t.close());

  /** Signs in with a new wallet (a new user with default settings); returns its headers and id. */
  async function newUser(): Promise<{ headers: Record<string, string>; userId: string }> {
    const { headers, userId } = await walletSignIn(t.gql, await kitWallet());
    return { headers, userId };
  }

  /**
   * Gives `userId` nine notifications, newest first n0..n8: n1, n4 and n7 read, the rest
   * unread. n2/n3 and n5/n6 share a created_at, so ties are broken by id.
   */
  async function seedNotifications(userId: string) {
    const base = Date.parse('2030-01-01T00:00:00.000Z');
    const minutesAgo = [0, 1, 2, 2, 3, 4, 4, 5, 6];
    const rows = minutesAgo.map((m, i) => {
      const createdAt = new Date(base - m * 60_000);
      const read = i % 3 === 1;
      return {
        userId,
        type: 'REWARD_CLAIMED' as const,
        title: `n${i}`,
        message: `notification ${i}`,
        data: { i },
        createdAt,
        updatedAt: createdAt,
        readAt: read ? new Date(createdAt.getTime() + 1000) : null,
      };
    });
    await t.database.db.insert(notifications).values(rows);
  }

  /**
   * Twenty-four other users, so every query here must single the viewer out: each has an
   * unread and (every third) a read notification; two pools' POOL_CREATED notifications go
   * to every second and every third user; the first has a device token.
   */
  async function seedBystanders() {
    const {
      pools: [poolA, poolB],
    } = await t.seed.user({ role: 'ADMIN' }).withPool().withPool();
    await t.seed.users(24, (chain, i) => {
      const rows: Array<Partial<typeof notifications.$inferInsert>> = [{ type: 'REWARD_AVAILABLE' }];
      if (i % 3 === 0) rows.push({ type: 'REFUND_CLAIMED', readAt: new Date() });
      if (i % 2 === 0) rows.push({ type: 'POOL_CREATED', data: { poolId: poolA!.id } });
      if (i % 3 === 1) rows.push({ type: 'POOL_CREATED', data: { poolId: poolB!.id } });
      const built = chain.withNotifications(rows);
      return i === 0 ? built.withDeviceToken() : built;
    });
  }

  /** The user's notifications as the table holds them, newest first (ties: greater id first). */
  async function tableNotifications(userId: string, filter: 'READ' | 'UNREAD' | null = null) {
    const where = and(
      eq(notifications.userId, userId),
      filter === 'READ' ? isNotNull(notifications.readAt) : filter === 'UNREAD' ? isNull(notifications.readAt) : undefined,
    );
    return t.database.db.select().from(notifications).where(where).orderBy(desc(notifications.createdAt), desc(notifications.id));
  }

  async function unreadInTable(userId?: string): Promise<number> {
    const [row] = await t.database.db
      .select({ n: count() })
      .from(notifications)
      .where(and(isNull(notifications.readAt), userId ? eq(notifications.userId, userId) : undefined));
    return row!.n;
  }

  /** Everything these mutations could write, to compare before and after a refused call. */
  async function snapshot() {
    const [notificationRows, settingsRows, tokenRows] = await Promise.all([
      t.database.db.select({ id: notifications.id, readAt: notifications.readAt }).from(notifications).orderBy(notifications.id),
      t.database.db.select().from(settings).orderBy(settings.id),
      t.database.db.select().from(deviceTokens).orderBy(deviceTokens.id),
    ]);
    return { notificationRows, settingsRows, tokenRows };
  }

  it('lists all, read or unread notifications, newest first, with totals equal to the table', async () => {
    const { headers, userId } = await newUser();
    await seedNotifications(userId);
    for (const filter of [null, 'READ', 'UNREAD'] as const) {
      const expected = await tableNotifications(userId, filter);
      const response = await t.gql(NOTIFICATIONS, { filter, first: 100 }, headers);
      expect(response.errors).toBeUndefined();
      const list = response.data.viewer.notifications;
      expect(list.totalCount).toBe(expected.length);
      expect(list.nodes.map((n: any) => n.id)).toEqual(expected.map((n) => n.id));
      expect(list.pageInfo.hasNextPage).toBe(false);
    }
    expect((await tableNotifications(userId)).length).toBe(9);
    expect((await tableNotifications(userId, 'READ')).length).toBe(3);
    expect((await tableNotifications(userId, 'UNREAD')).length).toBe(6);
  });

  it('pages a filtered list with its cursors, and the pages join up to the filtered table rows', async () => {
    const { headers, userId } = await newUser();
    await seedNotifications(userId);
    for (const filter of ['UNREAD', 'READ'] as const) {
      const expected = (await tableNotifications(userId, filter)).map((n) => n.id);
      const seen: string[] = [];
      let after: string | null = null;
      for (let pages = 0; pages < 10; pages++) {
        const response = await t.gql(NOTIFICATIONS, { filter, first: 2, after }, headers);
        expect(response.errors).toBeUndefined();
        const list: any = response.data.viewer.notifications;
        expect(list.totalCount).toBe(expected.length);
        for (const node of list.nodes) expect(node.readAt === null).toBe(filter === 'UNREAD');
        seen.push(...list.nodes.map((n: any) => n.id));
        if (!list.pageInfo.hasNextPage) break;
        after = list.pageInfo.endCursor;
      }
      expect(seen).toEqual(expected);
    }
  });

  it('counts the viewer’s unread notifications as the table does', async () => {
    const { headers, userId } = await newUser();
    expect((await t.gql(`{ unreadNotificationCount }`, {}, headers)).data.unreadNotificationCount).toBe(0);
    await seedNotifications(userId);
    const response = await t.gql(`{ unreadNotificationCount viewer { notifications(filter: UNREAD) { totalCount } } }`, {}, headers);
    expect(response.data).toEqual({ unreadNotificationCount: 6, viewer: { notifications: { totalCount: 6 } } });
    expect(await unreadInTable(userId)).toBe(6);
  });

  it('marks exactly the viewer’s unread notifications among ids read, announcing it once after the change', async () => {
    const { headers, userId } = await newUser();
    await seedNotifications(userId);
    const mine = await tableNotifications(userId);
    const [foreign] = await t.database.db
      .select()
      .from(notifications)
      .where(and(ne(notifications.userId, userId), isNull(notifications.readAt)))
      .limit(1);
    expect(foreign).toBeDefined();
    const since = await outboxTail(t.database.db);
    {
      const unreadEverywhere = await unreadInTable();
      // n0 and n2 unread, n1 already read, another user's unread one, an unknown id; n0 twice, upper-cased once.
      const ids = [mine[0]!.id, mine[0]!.id.toUpperCase(), mine[1]!.id, mine[2]!.id, foreign!.id, randomUUID()];
      const first = await t.gql(MARK, { ids }, headers);
      expect(first.errors).toBeUndefined();
      expect(first.data.markNotificationsRead).toBe(2);
      expect(await unreadInTable()).toBe(unreadEverywhere - 2);
      expect(await unreadInTable(userId)).toBe(4);

      const after = await tableNotifications(userId);
      const byId = new Map(after.map((n) => [n.id, n]));
      expect(byId.get(mine[0]!.id)!.readAt).not.toBeNull();
      expect(byId.get(mine[2]!.id)!.readAt).not.toBeNull();
      expect(byId.get(mine[1]!.id)!.readAt).toEqual(mine[1]!.readAt);
      for (const n of mine.slice(3)) expect(byId.get(n.id)!.readAt).toEqual(n.readAt);
      const [foreignAfter] = await t.database.db.select().from(notifications).where(eq(notifications.id, foreign!.id));
      expect(foreignAfter!.readAt).toBeNull();

      // Nothing left to change among these ids: 0, and no event.
      const again = await t.gql(MARK, { ids }, headers);
      expect(again.data.markNotificationsRead).toBe(0);
      expect((await t.gql(MARK, { ids: [] }, headers)).data.markNotificationsRead).toBe(0);
      // A change after the no-ops: its event is the only one, then a sentinel (another user's change).
      expect((await t.gql(MARK, { ids: [mine[3]!.id] }, headers)).data.markNotificationsRead).toBe(1);
      const sentinel = await newUser();
      await seedNotifications(sentinel.userId);
      expect((await t.gql(`mutation { markAllNotificationsRead }`, {}, sentinel.headers)).data.markAllNotificationsRead).toBe(6);
      const written = await readOutbox(t.database.db, since, 100);
      expect(written.map((row) => JSON.parse(row.payload))).toEqual([
        { type: 'notificationsRead', userId },
        { type: 'notificationsRead', userId },
        { type: 'notificationsRead', userId: sentinel.userId },
      ]);
    }
  });

  it('marks all the viewer’s notifications read and no one else’s', async () => {
    const { headers, userId } = await newUser();
    await seedNotifications(userId);
    const othersUnread = (await unreadInTable()) - (await unreadInTable(userId));
    const readBefore = await tableNotifications(userId, 'READ');
    const response = await t.gql(`mutation { markAllNotificationsRead }`, {}, headers);
    expect(response.data.markAllNotificationsRead).toBe(6);
    expect(await unreadInTable(userId)).toBe(0);
    expect(await unreadInTable()).toBe(othersUnread);
    const readAfter = new Map((await tableNotifications(userId, 'READ')).map((n) => [n.id, n.readAt]));
    expect(readAfter.size).toBe(9);
    for (const n of readBefore) expect(readAfter.get(n.id)).toEqual(n.readAt);
    expect((await t.gql(`mutation { markAllNotificationsRead }`, {}, headers)).data.markAllNotificationsRead).toBe(0);
    expect((await t.gql(`{ unreadNotificationCount }`, {}, headers)).data.unreadNotificationCount).toBe(0);
  });

  it('changes only the given preferences, and creates a missing settings row with the defaults', async () => {
    const { headers, userId } = await newUser();
    const stored = async () => (await t.database.db.select().from(settings).where(eq(settings.userId, userId)))[0];
    const before = await stored();
    expect(before!.notificationPreferences).toEqual(Object.fromEntries(NOTIFICATION_PREFERENCE_KEYS.map((k) => [k, true])));

    const response = await t.gql(
      PREFERENCES,
      { i: { rewardClaimed: false, isPushNotificationsEnabled: false, refundClaimed: null } },
      headers,
    );
    expect(response.errors).toBeUndefined();
    expect(response.data.updateNotificationPreferences).toEqual({
      userId,
      notificationPreferences: {
        isNotificationsEnabled: true,
        isEmailNotificationsEnabled: true,
        isPushNotificationsEnabled: false,
        isEmailSubscribePopupDismissed: true,
        rewardClaimed: false,
        refundClaimed: true,
        streakRewardReceived: true,
      },
    });
    const after = await stored();
    expect(after!.id).toBe(before!.id);
    expect(after!.notificationPreferences).toEqual({
      ...before!.notificationPreferences,
      REWARD_CLAIMED: false,
      is_push_notifications_enabled: false,
    });

    // A second change keeps the first one.
    await t.gql(PREFERENCES, { i: { isEmailSubscribePopupDismissed: false, rewardClaimed: true } }, headers);
    expect((await stored())!.notificationPreferences).toEqual({
      ...before!.notificationPreferences,
      is_push_notifications_enabled: false,
      is_email_subscribe_popup_dismissed: false,
    });

    await t.database.db.delete(settings).where(eq(settings.userId, userId));
    const rowsBefore = (await t.database.db.select({ n: count() }).from(settings))[0]!.n;
    const created = await t.gql(PREFERENCES, { i: { streakRewardReceived: false } }, headers);
    expect(created.data.updateNotificationPreferences.notificationPreferences.streakRewardReceived).toBe(false);
    expect((await t.database.db.select({ n: count() }).from(settings))[0]!.n).toBe(rowsBefore + 1);
    const fresh = await stored();
    expect(fresh!.notificationPreferences).toEqual({
      ...Object.fromEntries(NOTIFICATION_PREFERENCE_KEYS.map((k) => [k, true])),
      STREAK_REWARD_RECEIVED: false,
    });
    expect(Object.keys(fresh!.notificationPreferences).sort()).toEqual([...NOTIFICATION_PREFERENCE_KEYS].sort());
  });

  it('registers a device token idempotently, moves it to a new registrant, and removes only your own', async () => {
    const alice = await newUser();
    const bob = await newUser();
    const token = randomBytes(48).toString('base64url');
    const rowsOf = () => t.database.db.select().from(deviceTokens).where(eq(deviceTokens.token, token));
    const total = async () => (await t.database.db.select({ n: count() }).from(deviceTokens))[0]!.n;
    const totalBefore = await total();

    const registered = await t.gql(REGISTER, { t: token, p: 'ANDROID' }, alice.headers);
    expect(registered.errors).toBeUndefined();
    expect(registered.data.registerDeviceToken).toMatchObject({ userId: alice.userId, platform: 'ANDROID', token: `…${token.slice(-6)}` });
    const [row] = await rowsOf();
    expect(row).toMatchObject({ id: registered.data.registerDeviceToken.id, userId: alice.userId, platform: 'ANDROID' });
    expect(await total()).toBe(totalBefore + 1);

    const again = await t.gql(REGISTER, { t: token, p: 'WEB' }, alice.headers);
    expect(again.data.registerDeviceToken).toMatchObject({ id: row!.id, platform: 'WEB' });
    expect(await rowsOf()).toEqual([expect.objectContaining({ id: row!.id, userId: alice.userId, platform: 'WEB' })]);
    expect(await total()).toBe(totalBefore + 1);
    const listed = await t.gql(`{ viewer { deviceTokens { id platform } } }`, {}, alice.headers);
    expect(listed.data.viewer.deviceTokens).toEqual([{ id: row!.id, platform: 'WEB' }]);

    const moved = await t.gql(REGISTER, { t: token, p: 'IOS' }, bob.headers);
    expect(moved.data.registerDeviceToken).toMatchObject({ userId: bob.userId, platform: 'IOS' });
    expect(await rowsOf()).toEqual([expect.objectContaining({ userId: bob.userId, platform: 'IOS' })]);
    expect(await total()).toBe(totalBefore + 1);

    expect((await t.gql(REMOVE, { t: token }, alice.headers)).data.removeDeviceToken).toBe(false);
    expect(await rowsOf()).toHaveLength(1);
    expect((await t.gql(REMOVE, { t: token }, bob.headers)).data.removeDeviceToken).toBe(true);
    expect(await rowsOf()).toHaveLength(0);
    expect(await total()).toBe(totalBefore);
    expect((await t.gql(REMOVE, { t: token }, bob.headers)).data.removeDeviceToken).toBe(false);
  });

  it('refuses every operation signed out with UNAUTHENTICATED and writes nothing', async () => {
    const [unread] = await t.database.db.select().from(notifications).where(isNull(notifications.readAt)).limit(1);
    const [device] = await t.database.db.select().from(deviceTokens).limit(1);
    expect(device).toBeDefined();
    const before = await snapshot();
    const operations: Array<[string, Record<string, unknown>]> = [
      [`{ unreadNotificationCount }`, {}],
      [MARK, { ids: [unread!.id] }],
      [`mutation { markAllNotificationsRead }`, {}],
      [PREFERENCES, { i: { isNotificationsEnabled: false } }],
      [REGISTER, { t: randomBytes(32).toString('hex'), p: 'IOS' }],
      [REMOVE, { t: device!.token }],
    ];
    for (const [query, variables] of operations) {
      const response = await t.gql(query, variables);
      expect(response.errors?.[0]?.extensions, query).toMatchObject({ code: 'UNAUTHENTICATED' });
      expect(response.data ?? null).toBeNull();
    }
    expect(await snapshot()).toEqual(before);
  });

  it('refuses malformed ids, too many ids and malformed tokens with BAD_USER_INPUT and writes nothing', async () => {
    const { headers, userId } = await newUser();
    await seedNotifications(userId);
    const [own] = await tableNotifications(userId, 'UNREAD');
    const before = await snapshot();
    const refusals: Array<[string, Record<string, unknown>, string]> = [
      [MARK, { ids: [own!.id, 'not-a-uuid'] }, 'ids'],
      [MARK, { ids: [own!.id, ...Array.from({ length: 100 }, () => randomUUID())] }, 'ids'],
      [REGISTER, { t: 'short', p: 'WEB' }, 'token'],
      [REGISTER, { t: `${'a'.repeat(20)} ${'b'.repeat(20)}`, p: 'WEB' }, 'token'],
      [REGISTER, { t: 'x'.repeat(1025), p: 'WEB' }, 'token'],
      [REGISTER, { t: randomBytes(32).toString('hex'), p: 'PALM' }, 'platform'],
      [REMOVE, { t: '"quoted";--' }, 'token'],
    ];
    for (const [query, variables, argumentName] of refusals) {
      const response = await t.gql(query, variables, headers);
      expect(response.errors?.[0]?.extensions, JSON.stringify(variables).slice(0, 80)).toMatchObject({ code: 'BAD_USER_INPUT' });
      if (argumentName !== 'platform') expect(response.errors?.[0]?.extensions?.argumentName).toBe(argumentName);
    }
    expect(await snapshot()).toEqual(before);
    // The same 100-id limit admits exactly 100.
    const hundred = await t.gql(MARK, { ids: [own!.id, ...Array.from({ length: 99 }, () => randomUUID())] }, headers);
    expect(hundred.data.markNotificationsRead).toBe(1);
  });

  describe('loaders for the subscription layer', () => {
    const allUsers = async () => (await t.database.db.select({ id: users.id }).from(users).orderBy(users.id)).map((u) => u.id);

    it('counts unread notifications of many users in one statement', async () => {
      const userIds = await allUsers();
      expect(userIds.length).toBeGreaterThan(20);
      const expected = new Map(
        (
          await t.database.db
            .select({ userId: notifications.userId, n: count() })
            .from(notifications)
            .where(isNull(notifications.readAt))
            .groupBy(notifications.userId)
        ).map((r) => [r.userId, r.n]),
      );
      expect([...expected.values()].some((n) => n > 0)).toBe(true);
      const loaders = createLoaders(t.database.db);
      let counts: number[] = [];
      const statements = await t.countStatements(async () => {
        counts = await Promise.all(userIds.map((id) => loaders.unreadNotificationCountByUser.load(id)));
      });
      expect(statements).toBe(1);
      expect(counts).toEqual(userIds.map((id) => expected.get(id) ?? 0));
      // The unread list's totalCount answers from the same cache.
      const pages = await Promise.all(
        userIds.map((id) => loaders.notificationsByUser(parseNewestFirstPage({ first: 5 }), 'UNREAD').load(id)),
      );
      expect(await t.countStatements(() => Promise.all(pages.map((p) => Promise.resolve(p.totalCount))))).toBe(0);
    });

    it('pages filtered notifications of many users in one statement each', async () => {
      const userIds = await allUsers();
      for (const filter of ['READ', 'UNREAD', null] as const) {
        const loaders = createLoaders(t.database.db);
        let pages: Array<{ nodes: Array<{ id: string }>; totalCount: number | Promise<number> }> = [];
        const statements = await t.countStatements(async () => {
          pages = await Promise.all(userIds.map((id) => loaders.notificationsByUser(parseNewestFirstPage({ first: 3 }), filter).load(id)));
        });
        expect(statements).toBe(1);
        let totals: number[] = [];
        expect(await t.countStatements(async () => (totals = await Promise.all(pages.map((p) => Promise.resolve(p.totalCount)))))).toBe(1);
        for (const [i, userId] of userIds.entries()) {
          const rows = await tableNotifications(userId, filter);
          expect(pages[i]!.nodes.map((n) => n.id)).toEqual(rows.slice(0, 3).map((n) => n.id));
          expect(totals[i]).toBe(rows.length);
        }
      }
    });

    it('finds notifications by id, and each user’s POOL_CREATED notification of a pool, one statement a batch', async () => {
      const poolCreated = await t.database.db.select().from(notifications).where(eq(notifications.type, 'POOL_CREATED'));
      const perPool = new Map<string, number>();
      for (const n of poolCreated) perPool.set(n.data.poolId as string, (perPool.get(n.data.poolId as string) ?? 0) + 1);
      const [poolId] = [...perPool.entries()].sort((a, b) => b[1] - a[1])[0]!;
      expect(perPool.get(poolId)).toBeGreaterThan(1);
      const userIds = await allUsers();
      const expected = new Map(poolCreated.filter((n) => n.data.poolId === poolId).map((n) => [n.userId, n.id]));
      // A notification of another type naming the pool is not a POOL_CREATED one.
      const bystander = userIds.find((id) => !expected.has(id))!;
      await t.database.db
        .insert(notifications)
        .values({ userId: bystander, type: 'REWARD_CLAIMED', title: 't', message: 'm', data: { poolId } });
      const loaders = createLoaders(t.database.db);

      let found: Array<{ id: string; userId: string; type: string } | null> = [];
      const statements = await t.countStatements(async () => {
        found = await Promise.all(userIds.map((id) => loaders.poolCreatedNotificationByUser(poolId).load(id)));
      });
      expect(statements).toBe(1);
      expect(found.filter(Boolean)).toHaveLength(expected.size);
      expect(found.map((n) => n?.id ?? null)).toEqual(userIds.map((id) => expected.get(id) ?? null));
      expect(found.every((n) => n === null || n.type === 'POOL_CREATED')).toBe(true);

      const ids = poolCreated.slice(0, 10).map((n) => n.id);
      let byId: Array<{ id: string } | null> = [];
      const unknown = randomUUID();
      expect(
        await t.countStatements(async () => (byId = await Promise.all([...ids, unknown].map((id) => loaders.notificationById.load(id))))),
      ).toBe(1);
      expect(byId.map((n) => n?.id ?? null)).toEqual([...ids, null]);
      const stored = await t.database.db.select({ id: notifications.id }).from(notifications).where(inArray(notifications.id, ids));
      expect(stored).toHaveLength(ids.length);
    });
  });
});

/**
 * Receives the event channel's messages as another process would: on Postgres through a
 * connection of its own (the app's hub holds the process's listener), on PGlite in process.
 */
