// Over 300 lines: one protocol suite (graphql-ws subscribe, complete, errors, limits, origins, fan-out across replicas) on one shared app and chain per backend; split, each part would start them again.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import * as tables from '../../schema/index.js';
import { changeUserRole } from '../../src/modules/auth/session.service.js';
import { EventHub } from '../../src/modules/events/event-hub.js';
import { notifyIfAllowed } from '../../src/modules/notifications/notification.service.js';
import type { UserFixture } from '../support/fixtures/builders.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { signInAs, type SignedIn } from '../support/sessions.js';
import { listen, publishMarker, socketClient, Subscription } from '../support/sockets.js';
import { openSubscriptions, subscriptionsOpen, until } from '../support/wait.js';

const SUITE_CONFIG = {
  SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000',
  MAX_QUERY_DEPTH: '6',
  MAX_QUERY_ALIASES: '3',
  MAX_QUERY_DIRECTIVES: '3',
  MAX_QUERY_TOKENS: '200',
  MAX_QUERY_COST: '50',
};

/** Opens a raw socket speaking graphql-transport-ws and records what the server sends and how it closes. */
function rawSocket(url: string) {
  const ws = new WebSocket(url, 'graphql-transport-ws');
  const messages: Array<Record<string, unknown>> = [];
  ws.on('message', (data) => messages.push(JSON.parse(data.toString()) as Record<string, unknown>));
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  opened.catch(() => {});
  return {
    ws,
    messages,
    opened,
    closed,
    send: (message: unknown) => ws.send(typeof message === 'string' ? message : JSON.stringify(message)),
  };
}

describe.each(backends)('graphql-ws subscriptions on %s', (kind) => {
  let t: TestApp;
  let url: string;
  let hub: EventHub;
  let owner: SignedIn;
  let other: SignedIn;
  let ownerRows: UserFixture;
  let streak: tables.StreakRow;
  let pool: tables.PoolRow;

  beforeAll(async () => {
    t = await startEmptyTestApp(kind, { config: testConfig(SUITE_CONFIG) });
    url = await listen(t);
    // Publishes as a service would, from outside the app: through the database's channel.
    hub = new EventHub(t.database);
    // The owner has an avatar, a pool in a streak (so poolUpdated reaches every relation it
    // selects) and three notifications, two of them unread; the other user has nothing.
    streak = await t.seed.streak();
    ownerRows = await t.seed
      .user()
      .withImage({ avatar: true })
      .withPool({ streakId: streak.id })
      .withNotifications([{}, { readAt: new Date() }, {}]);
    owner = await signInAs(t, ownerRows.user.id);
    other = await signInAs(t, (await t.seed.user()).user.id);
    pool = ownerRows.pool!;
  });
  afterAll(() => t.close());

  describe('the protocol', () => {
    it('closes with 4401 on a subscribe before connection_init, and nothing runs', async () => {
      const socket = rawSocket(url);
      await socket.opened;
      const statements = await t.countStatements(async () => {
        socket.send({ id: '1', type: 'subscribe', payload: { query: `subscription { poolCreated { id } }` } });
        expect((await socket.closed).code).toBe(4401);
      });
      expect(statements).toBe(0);
    });

    it('closes with 4409 on a duplicate subscription id', async () => {
      const socket = rawSocket(url);
      await socket.opened;
      socket.send({ type: 'connection_init', payload: {} });
      await until(() => socket.messages.some((m) => m.type === 'connection_ack'));
      socket.send({ id: 'same', type: 'subscribe', payload: { query: `subscription { poolCreated { id } }` } });
      socket.send({ id: 'same', type: 'subscribe', payload: { query: `subscription { poolCreated { id } }` } });
      expect((await socket.closed).code).toBe(4409);
    });

    it('closes with 4400 on a malformed message', async () => {
      const subscribe = (payload: object) =>
        JSON.stringify({ id: 'a', type: 'subscribe', payload: { query: '{ __typename }', ...payload } });
      // graphql-ws reads the subscribe message's fields itself: a wrong type never reaches the server's code.
      const wrongTypes = [subscribe({ operationName: 5 }), subscribe({ variables: [] }), subscribe({ extensions: 'x' })];
      for (const message of [
        '{not json',
        JSON.stringify({ type: 'subscribe', payload: {} }),
        JSON.stringify({ type: 'no_such_type' }),
        ...wrongTypes,
      ]) {
        const socket = rawSocket(url);
        await socket.opened;
        socket.send({ type: 'connection_init', payload: {} });
        await until(() => socket.messages.some((m) => m.type === 'connection_ack'));
        socket.send(message);
        expect((await socket.closed).code, message).toBe(4400);
      }
    });

    it('closes with 4403 on invalid credentials in connection_init', async () => {
      for (const params of [{ authorization: 'Bearer not-a-token' }, { authorization: 'Basic abc' }, { 'x-api-key': 'pgk_malformed' }]) {
        const client = socketClient(url, params);
        await expect(client.connected, JSON.stringify(params)).rejects.toMatchObject({ code: 4403 });
      }
    });

    it('refuses upgrades on any other path', async () => {
      const socket = rawSocket(url.replace('/graphql', '/elsewhere'));
      // The server destroys the socket of the upgrade request: no handshake, no close frame.
      await expect(socket.opened).rejects.toMatchObject({ message: 'socket hang up', code: 'ECONNRESET' });
    });

    it('authenticates with a bearer token, and with an API key', async () => {
      const created = await t.gql(`mutation { createApiKey(name: "socket") { apiKey } }`, undefined, owner.headers);
      for (const params of [
        { authorization: `Bearer ${owner.accessToken}` },
        { 'x-api-key': created.data.createApiKey.apiKey as string },
      ]) {
        const client = socketClient(url, params);
        await client.connected;
        const sub = new Subscription(client.client, `subscription { notificationCount }`);
        const [first] = await sub.waitFor(1);
        expect(first!.errors).toBeUndefined();
        // The owner's two unread notifications (this test runs before any is added).
        expect(first!.data).toEqual({ notificationCount: 2 });
        await client.dispose();
      }
    });
  });

  it('counts open subscriptions in /metrics, down to none once every socket is gone', async () => {
    // Sockets close asynchronously: each step waits for the gauge to reach its count, and
    // fails (naming it) if it never does. The earlier tests' sockets are all disposed:
    // nothing may stay open (no leak).
    await subscriptionsOpen(t.app, 0);
    const client = socketClient(url);
    await client.connected;
    const subs = [
      new Subscription(client.client, `subscription { poolCreated { id } }`),
      new Subscription(client.client, `subscription { poolCreated { id } }`),
    ];
    await subscriptionsOpen(t.app, 2);
    subs[0]!.unsubscribe();
    await subscriptionsOpen(t.app, 1);
    await client.dispose();
    await subscriptionsOpen(t.app, 0);
    expect(await openSubscriptions(t.app)).toBe(0);
  });

  describe('limits over a subscribe message, checked before any resolver runs', () => {
    const cases: Array<[string, string]> = [
      ['depth', `subscription($p: ID!) { poolUpdated(poolId: $p) { user { pools { nodes { user { pools { nodes { id } } } } } } } }`],
      ['aliases', `subscription($p: ID!) { poolUpdated(poolId: $p) { a: id b: id c: id d: id } }`],
      [
        'directives',
        `subscription($p: ID!) { poolUpdated(poolId: $p) { id @include(if: true) title @include(if: true) description @include(if: true) unit @include(if: true) } }`,
      ],
      ['tokens', `subscription($p: ID!) { poolUpdated(poolId: $p) { ${'id '.repeat(250)} } }`],
      ['cost', `subscription($p: ID!) { poolUpdated(poolId: $p) { predictions(first: 100) { nodes { user { id } } } } }`],
    ];
    it.each(cases)('refuses an operation over the %s limit with QUERY_TOO_COMPLEX', async (limit, query) => {
      const client = socketClient(url);
      await client.connected;
      const statements = await t.countStatements(async () => {
        const sub = new Subscription(client.client, query, { p: pool.id });
        await sub.waitForEnd();
        expect(sub.results).toHaveLength(0);
        const errors = sub.error as Array<{ message: string; extensions: Record<string, unknown> }>;
        expect(errors[0]!.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit });
        // The message names the limit and numbers only, nothing of the schema.
        expect(errors[0]!.message).not.toMatch(/poolUpdated|predictions|Pool/);
      });
      // poolUpdated's resolver reads the pool first: no statement means it never ran.
      expect(statements).toBe(0);
      await client.dispose();
    });
  });

  describe('events', () => {
    it('resolves each event with loaders of its own: a change between events shows', async () => {
      const client = socketClient(url);
      await client.connected;
      const sub = new Subscription(client.client, `subscription($p: ID!) { poolUpdated(poolId: $p) { id title user { id } } }`, {
        p: pool.id,
      });
      await subscriptionsOpen(t.app, 1);
      await hub.publish([{ type: 'poolUpdated', poolId: pool.id }]);
      await sub.waitFor(1);
      await t.database.db.update(tables.pools).set({ title: 'Renamed between events' }).where(eq(tables.pools.id, pool.id));
      await hub.publish([{ type: 'poolUpdated', poolId: pool.id }]);
      const results = await sub.waitFor(2);
      expect(results.map((r) => (r.data as { poolUpdated: { id: string; user: { id: string } } }).poolUpdated)).toEqual([
        { id: pool.id, title: pool.title, user: { id: owner.userId } },
        { id: pool.id, title: 'Renamed between events', user: { id: owner.userId } },
      ]);
      await t.database.db.update(tables.pools).set({ title: pool.title }).where(eq(tables.pools.id, pool.id));
      await client.dispose();
    });

    it('reads the same number of statements for one event whether 1 or 30 sockets follow it', async () => {
      const query = `subscription($p: ID!) { poolUpdated(poolId: $p) { id title user { username avatar { url } } streak { title } } }`;
      const statementsFor = async (sockets: number) => {
        const clients = Array.from({ length: sockets }, () => socketClient(url));
        await Promise.all(clients.map((c) => c.connected));
        const subs = clients.map((c) => new Subscription(c.client, query, { p: pool.id }));
        // Counted once each subscribe step (with its reads) is done: only the event's reads are counted below.
        await subscriptionsOpen(t.app, sockets);
        const statements = await t.countStatements(async () => {
          await hub.publish([{ type: 'poolUpdated', poolId: pool.id }]);
          await Promise.all(subs.map((sub) => sub.waitFor(1)));
        });
        const expected = {
          id: pool.id,
          title: pool.title,
          user: { username: ownerRows.user.username, avatar: { url: ownerRows.images[0]!.url } },
          streak: { title: streak.title },
        };
        for (const sub of subs)
          expect(sub.results).toEqual([{ data: { poolUpdated: expected }, extensions: { eventSequence: expect.stringMatching(/^\d+$/) } }]);
        await Promise.all(clients.map((c) => c.dispose()));
        return statements;
      };
      const one = await statementsFor(1);
      // The outbox write that publishes (with the pool's committed row), and one read each of its
      // creator, the avatar and the streak (the hub's read of the outbox is not counted: it runs
      // when NOTIFY arrives). The pool itself is not read: the event carries it.
      expect(one).toBe(4);
      expect(await statementsFor(30)).toBe(one);
    });

    it('answers NOT_FOUND for an unknown pool and BAD_USER_INPUT for a malformed id', async () => {
      const client = socketClient(url);
      await client.connected;
      for (const [id, code] of [
        ['00000000-0000-4000-8000-000000000000', 'NOT_FOUND'],
        ['nope', 'BAD_USER_INPUT'],
      ] as const) {
        const sub = new Subscription(client.client, `subscription($p: ID!) { poolUpdated(poolId: $p) { id } }`, { p: id });
        await sub.waitForEnd();
        const errors = (sub.results[0]?.errors ?? sub.error) as Array<{ extensions: Record<string, unknown> }>;
        expect(errors[0]!.extensions.code).toBe(code);
      }
      await client.dispose();
    });

    it('needs a signed-in viewer for notifications: UNAUTHENTICATED otherwise', async () => {
      const client = socketClient(url);
      await client.connected;
      const sub = new Subscription(client.client, `subscription { notifications { id } }`);
      await sub.waitForEnd();
      const errors = (sub.results[0]?.errors ?? sub.error) as Array<{ extensions: Record<string, unknown> }>;
      expect(errors[0]!.extensions.code).toBe('UNAUTHENTICATED');
      await client.dispose();
    });

    it("delivers a user's notification to that user's sockets only, and replays missed ones on resume", async () => {
      const ownerClient = socketClient(url, { authorization: `Bearer ${owner.accessToken}` });
      const otherClient = socketClient(url, { authorization: `Bearer ${other.accessToken}` });
      await Promise.all([ownerClient.connected, otherClient.connected]);
      const ownerSub = new Subscription(ownerClient.client, `subscription { notifications { id title userId type } }`);
      const otherSub = new Subscription(otherClient.client, `subscription { notifications { title } }`);
      await subscriptionsOpen(t.app, 2);
      /**
       * Proves the other user was sent none of the owner's notifications so far: a marker
       * notification of theirs, published after them, arrives on their socket, and one
       * socket's results keep the order of the events, so any of the owner's would have come first.
       */
      let markers = 0;
      const otherReceivedOnlyMarkers = async () => {
        await publishMarker(t.database, other.userId, `marker ${++markers}`);
        const results = await otherSub.waitFor(markers);
        return results.map((r) => (r.data as { notifications: { title: string } }).notifications.title);
      };

      const notify = async (title: string) => {
        const events = await notifyIfAllowed(t.database.db, {
          userId: owner.userId,
          type: 'REWARD_CLAIMED',
          title,
          message: 'm',
          data: {},
          now: new Date(),
        });
        await hub.publish(events);
        return events;
      };
      const [first] = await notify('first');
      const delivered = await ownerSub.waitFor(1);
      expect(delivered[0]!.data).toMatchObject({ notifications: { title: 'first', userId: owner.userId, type: 'REWARD_CLAIMED' } });
      const firstId = (delivered[0]!.data as { notifications: { id: string } }).notifications.id;
      expect(first!.type === 'notificationsCreated' && first!.notifications[0]!.id).toBe(firstId);
      await ownerClient.dispose();

      // While the owner is away, two more are created; resuming after the first replays both.
      await notify('second');
      await notify('third');
      expect(await otherReceivedOnlyMarkers()).toEqual(['marker 1']);

      const resumed = socketClient(url, { authorization: `Bearer ${owner.accessToken}` });
      await resumed.connected;
      const resumedSub = new Subscription(resumed.client, `subscription($after: ID) { notifications(resumeAfter: $after) { title } }`, {
        after: firstId,
      });
      const replayed = await resumedSub.waitFor(2);
      expect(replayed.map((r) => (r.data as { notifications: { title: string } }).notifications.title)).toEqual(['second', 'third']);
      await notify('fourth');
      expect((await resumedSub.waitFor(3))[2]!.data).toEqual({ notifications: { title: 'fourth' } });
      expect(await otherReceivedOnlyMarkers()).toEqual(['marker 1', 'marker 2']);
      await Promise.all([resumed.dispose(), otherClient.dispose()]);
    });

    it("refuses to resume after another user's notification", async () => {
      const foreign = ownerRows.notifications[0]!;
      const client = socketClient(url, { authorization: `Bearer ${other.accessToken}` });
      await client.connected;
      const sub = new Subscription(client.client, `subscription($after: ID) { notifications(resumeAfter: $after) { id } }`, {
        after: foreign.id,
      });
      await sub.waitForEnd();
      const errors = (sub.results[0]?.errors ?? sub.error) as Array<{ extensions: Record<string, unknown> }>;
      expect(errors[0]!.extensions).toMatchObject({ code: 'NOT_FOUND', argumentName: 'resumeAfter' });
      await client.dispose();
    });
  });
});

describe.each(backends)('graceful shutdown on %s', (kind) => {
  it('closes open sockets with 1001 and stops accepting', async () => {
    const t = await startEmptyTestApp(kind);
    const url = await listen(t);
    const client = socketClient(url);
    await client.connected;
    const sub = new Subscription(client.client, `subscription { poolCreated { id } }`);
    await subscriptionsOpen(t.app, 1);
    await t.app.close();
    expect((await client.closed).code).toBe(1001);
    expect(sub.results).toHaveLength(0);
    const late = rawSocket(url);
    // Nothing listens any more: the connection itself is refused.
    await expect(late.opened).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await t.drop();
  });
});

describe.each(backends)('a socket does not outlive its credentials, on %s', (kind) => {
  let t: TestApp;
  let url: string;
  /** Added to the app's clock, to bring an access token near its expiry. */
  let clockOffsetMs = 0;
  beforeAll(async () => {
    t = await startEmptyTestApp(kind, {
      clock: () => new Date(Date.now() + clockOffsetMs),
      config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000', ACCESS_TOKEN_TTL_SECONDS: '60' }),
    });
    url = await listen(t);
    // Six users without notifications: one per test, and two whose sessions stay open.
    userIds = (await t.seed.users(6)).map((f) => f.user.id);
  });
  afterAll(() => t.close());

  let userIds: string[];
  const someUser = (index: number) => userIds[index]!;

  it('closes with 4403 when the session signs out, and keeps other sessions open', async () => {
    const leaving = await signInAs(t, someUser(0));
    const staying = await signInAs(t, someUser(1));
    const [a, b] = [
      socketClient(url, { authorization: `Bearer ${leaving.accessToken}` }),
      socketClient(url, { authorization: `Bearer ${staying.accessToken}` }),
    ];
    await Promise.all([a.connected, b.connected]);
    const signedOut = await t.gql(`mutation { signOut }`, undefined, leaving.headers);
    expect(signedOut.data).toEqual({ signOut: true });
    expect(await a.closed).toEqual({ code: 4403, reason: 'The session has ended; sign in again' });
    // One revocation event closed `a`; had it closed `b` too, that close was sent in the same
    // pass, before `b`'s subscribe below could be answered, and the subscription would fail.
    const still = new Subscription(b.client, `subscription { notificationCount }`);
    expect((await still.waitFor(1)).map((r) => r.data)).toEqual([{ notificationCount: 0 }]);
    await b.dispose();
  });

  it('closes with 4403 when its API key is revoked', async () => {
    const owner = await signInAs(t, someUser(2));
    const created = await t.gql(`mutation { createApiKey(name: "socket") { apiKey key { id } } }`, undefined, owner.headers);
    const socket = socketClient(url, { 'x-api-key': created.data.createApiKey.apiKey as string });
    await socket.connected;
    const revoked = await t.gql(
      `mutation($id: ID!) { revokeApiKey(id: $id) { isActive } }`,
      { id: created.data.createApiKey.key.id },
      owner.headers,
    );
    expect(revoked.data).toEqual({ revokeApiKey: { isActive: false } });
    expect(await socket.closed).toEqual({ code: 4403, reason: 'The API key has been revoked' });
  });

  it("closes with 4403 every socket of a user whose role changes (grant-role), and keeps others' open", async () => {
    const [first, second, bystander] = [await signInAs(t, someUser(4)), await signInAs(t, someUser(4)), await signInAs(t, someUser(5))];
    const sockets = [first, second, bystander].map((session) => socketClient(url, { authorization: `Bearer ${session.accessToken}` }));
    await Promise.all(sockets.map((socket) => socket.connected));
    const [user] = await t.database.db
      .select({ wallet: tables.users.walletAddress })
      .from(tables.users)
      .where(eq(tables.users.id, someUser(4)));
    // As the grant-role tool does: its own publisher, on the database's event channel.
    const changed = await changeUserRole(t.database, new EventHub(t.database), user!.wallet!, 'ADMIN', new Date());
    expect(changed).toMatchObject({ id: someUser(4), role: 'ADMIN', revokedSessions: 2 });
    for (const socket of sockets.slice(0, 2))
      expect(await socket.closed).toEqual({ code: 4403, reason: 'The session has ended; sign in again' });
    const still = new Subscription(sockets[2]!.client, `subscription { notificationCount }`);
    expect((await still.waitFor(1)).map((r) => r.data)).toEqual([{ notificationCount: 0 }]);
    await sockets[2]!.dispose();
  });

  it('closes with 4403 when its access token expires', async () => {
    clockOffsetMs = 0;
    const user = await signInAs(t, someUser(3));
    // The token lives 60 s (from a whole second); connect when the app's clock says 58 s have passed.
    clockOffsetMs = 58_000;
    const socket = socketClient(url, { authorization: `Bearer ${user.accessToken}` });
    await socket.connected;
    expect(await socket.closed).toEqual({ code: 4403, reason: 'The access token has expired; refresh it and reconnect' });
    clockOffsetMs = 0;
  });
});

describe.each([
  ['no proxy is trusted', {}, 2],
  ['loopback is a trusted proxy', { TRUST_PROXY: 'loopback' }, 0],
] as const)('rate limits over sockets when %s', (_name, env, refused) => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    // Subscribes to poolCreated only: no rows needed.
    t = await startEmptyTestApp('pglite', { config: testConfig({ RATE_LIMIT_QUERIES_PER_MINUTE: '3', ...env }) });
    url = await listen(t);
  });
  afterAll(() => t.close());

  it(`counts subscribe messages per client address: ${refused} of 5 refused for two sockets claiming two forwarded addresses`, async () => {
    const sockets = ['203.0.113.1', '203.0.113.2'].map((forwarded) => {
      const ws = new WebSocket(url, 'graphql-transport-ws', { headers: { 'x-forwarded-for': forwarded } });
      const messages: Array<Record<string, any>> = [];
      ws.on('message', (data) => messages.push(JSON.parse(data.toString()) as Record<string, any>));
      return { ws, messages, opened: new Promise((resolve) => ws.once('open', resolve)) };
    });
    await Promise.all(sockets.map((s) => s.opened));
    for (const s of sockets) s.ws.send(JSON.stringify({ type: 'connection_init', payload: {} }));
    await until(() => sockets.every((s) => s.messages.some((m) => m.type === 'connection_ack')));
    // Five subscribe messages of one root field each, alternating sockets, against a budget of 3:
    // one shared budget when the forwarded addresses are not believed, one each when they are.
    for (let i = 0; i < 5; i++) {
      sockets[i % 2]!.ws.send(
        JSON.stringify({ id: `s${i}`, type: 'subscribe', payload: { query: 'subscription { poolCreated { id } }' } }),
      );
    }
    // Every subscribe ends open (the gauge counts it) or refused (an error message): wait until all five have.
    const refusals = () => sockets.flatMap((s) => s.messages).filter((m) => m.type === 'error');
    await until(async () => (await openSubscriptions(t.app)) + refusals().length === 5);
    const errors = refusals();
    expect(errors).toHaveLength(refused);
    for (const error of errors) expect(error.payload[0].extensions).toMatchObject({ code: 'RATE_LIMITED' });
    for (const s of sockets) s.ws.close();
  });
});
