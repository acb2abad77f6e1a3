import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { readOutbox } from '../../src/db/event-outbox.js';
import * as tables from '../../schema/index.js';
import { EventHub } from '../../src/modules/events/event-hub.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { signInAs, type SignedIn } from '../support/sessions.js';
import { listen } from '../support/sockets.js';
import { subscriptionsOpen, until } from '../support/wait.js';

/**
 * The fan-out of one event to many subscribers: one execution and one serialization per
 * group of subscribers who would get the same result, written to each socket under the
 * subscription's own id (src/server/websocket/subscription.ts).
 */

const POOL_STATUS = `subscription($p: ID!) { poolUpdated(poolId: $p) { id status } }`;
const POOL_CREATOR_EMAIL = `subscription($p: ID!) { poolUpdated(poolId: $p) { id user { id email } } }`;

interface Received {
  id: string;
  type: string;
  payload?: { data?: any; errors?: Array<{ extensions: { code: string } }> };
}

/** A socket speaking graphql-transport-ws by hand: its raw frames, and the messages by subscription id. */
async function openSocket(url: string, connectionParams: Record<string, unknown> = {}) {
  const ws = new WebSocket(url, 'graphql-transport-ws');
  const frames: string[] = [];
  const byId = new Map<string, Received[]>();
  let acknowledged = false;
  ws.on('message', (data) => {
    const text = data.toString();
    frames.push(text);
    const message = JSON.parse(text) as Received;
    if (message.type === 'connection_ack') acknowledged = true;
    else if (message.id !== undefined) byId.set(message.id, [...(byId.get(message.id) ?? []), message]);
  });
  const closed = new Promise<number>((resolve) => ws.once('close', resolve));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  ws.send(JSON.stringify({ type: 'connection_init', payload: connectionParams }));
  await until(() => acknowledged, 5000, 'connection_ack');
  return {
    ws,
    frames,
    closed,
    received: (id: string) => byId.get(id) ?? [],
    subscribe: (id: string, query: string, variables: Record<string, unknown>) =>
      ws.send(JSON.stringify({ id, type: 'subscribe', payload: { query, variables } })),
  };
}

describe.each(backends)('subscription fan-out on %s', (kind) => {
  let t: TestApp;
  let url: string;
  let hub: EventHub;
  let pool: tables.PoolRow;
  let admin: SignedIn;
  let creator: SignedIn;
  let other: SignedIn;
  const creatorEmail = `creator-${Date.now()}@fanout.test`;
  const setStatus = async (status: string) => {
    const changed = await t.gql(
      `mutation($p: ID!, $s: PoolStatus!) { updatePoolStatus(poolId: $p, status: $s) { id } }`,
      { p: pool.id, s: status },
      admin.headers,
    );
    expect(changed.errors).toBeUndefined();
  };

  beforeAll(async () => {
    t = await startEmptyTestApp(kind, { config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000' }) });
    url = await listen(t);
    hub = new EventHub(t.database);
    // The rows needed: the pool, its creator (whose email only they may see), another user, an admin.
    ({ pool } = (await t.seed.user({ email: creatorEmail }).withPool()) as { pool: tables.PoolRow });
    const [otherUser, adminUser] = await t.seed.users(2);
    creator = await signInAs(t, pool.createdBy);
    other = await signInAs(t, otherUser!.user.id);
    admin = await signInAs(t, adminUser!.user.id, 'ADMIN');
  });
  afterAll(() => t.close());

  it('sends each event to every subscriber exactly once, under its own id, in order', async () => {
    const sockets = await Promise.all(Array.from({ length: 6 }, () => openSocket(url)));
    // Ids a client may choose, JSON escapes included: each must come back exactly as sent.
    // Sockets 0 and 3, 1 and 4, 2 and 5 choose the same ids (as clients numbering their
    // operations alike do): a message's bytes are made once per id and shared by those.
    const idsOf = (s: number) => Array.from({ length: 5 }, (_, i) => `s${s % 3}-${i}${i % 2 ? ` "quoted" \\ é ${'\u2028'}` : ''}`);
    sockets.forEach((socket, s) => idsOf(s).forEach((id) => socket.subscribe(id, POOL_STATUS, { p: pool.id })));
    await subscriptionsOpen(t.app, 30);

    const all = sockets.flatMap((socket, s) => idsOf(s).map((id) => ({ socket, id })));
    // A poolUpdated payload is the pool as read when its event is delivered (the outbox row
    // carries only the pool's id), so the second change waits until the first was delivered.
    const tail = Number(await t.app.events.newestSequence());
    await setStatus('PREDICTIONS_FROZEN');
    await until(() => all.every(({ socket, id }) => socket.received(id).length >= 1), 10_000, 'the first event on every subscription');
    await setStatus('ACTIVE');
    // Each socket receives in order, so once every id has its second message, no duplicate of the first can still come.
    await until(() => all.every(({ socket, id }) => socket.received(id).length >= 2), 10_000, 'both events on every subscription');
    // Each result carries its event's outbox sequence: where its subscriber would resume.
    const [first, second] = (await readOutbox(t.database.db, tail, 10)).map((row) => String(row.seq));
    let count = 0;
    for (const { socket, id } of all) {
      expect(socket.received(id)).toEqual([
        {
          id,
          type: 'next',
          payload: { data: { poolUpdated: { id: pool.id, status: 'PREDICTIONS_FROZEN' } }, extensions: { eventSequence: first } },
        },
        { id, type: 'next', payload: { data: { poolUpdated: { id: pool.id, status: 'ACTIVE' } }, extensions: { eventSequence: second } } },
      ]);
      count++;
    }
    expect(count).toBe(30);
    // No socket got another socket's subscriptions: 5 ids, 2 frames each, nothing else after the ack.
    for (const socket of sockets) expect(socket.frames).toHaveLength(1 + 10);
    for (const socket of sockets) socket.ws.close();
    await subscriptionsOpen(t.app, 0);
  });

  it("never shares one viewer's result with a viewer who may not see it", async () => {
    const creatorSocket = await openSocket(url, { authorization: `Bearer ${creator.accessToken}` });
    const otherSocket = await openSocket(url, { authorization: `Bearer ${other.accessToken}` });
    const anonymousSocket = await openSocket(url);
    // Twice each, so each viewer's group has members that share; the creator subscribes first and last.
    creatorSocket.subscribe('c1', POOL_CREATOR_EMAIL, { p: pool.id });
    otherSocket.subscribe('o1', POOL_CREATOR_EMAIL, { p: pool.id });
    otherSocket.subscribe('o2', POOL_CREATOR_EMAIL, { p: pool.id });
    anonymousSocket.subscribe('a1', POOL_CREATOR_EMAIL, { p: pool.id });
    creatorSocket.subscribe('c2', POOL_CREATOR_EMAIL, { p: pool.id });
    await subscriptionsOpen(t.app, 5);

    await hub.publish([{ type: 'poolUpdated', poolId: pool.id }]);
    const sockets = { c1: creatorSocket, c2: creatorSocket, o1: otherSocket, o2: otherSocket, a1: anonymousSocket };
    await until(
      () => Object.entries(sockets).every(([id, socket]) => socket.received(id).length === 1),
      10_000,
      'the event on every subscription',
    );

    for (const id of ['c1', 'c2']) {
      expect(creatorSocket.received(id)).toEqual([
        {
          id,
          type: 'next',
          payload: {
            data: { poolUpdated: { id: pool.id, user: { id: pool.createdBy, email: creatorEmail } } },
            extensions: { eventSequence: expect.stringMatching(/^\d+$/) },
          },
        },
      ]);
    }
    for (const [id, socket] of [
      ['o1', otherSocket],
      ['o2', otherSocket],
      ['a1', anonymousSocket],
    ] as const) {
      const [message] = socket.received(id);
      expect(message!.payload!.data).toEqual({ poolUpdated: { id: pool.id, user: { id: pool.createdBy, email: null } } });
      expect(message!.payload!.errors!.map((error) => error.extensions.code)).toEqual(['FORBIDDEN']);
    }
    // Not a byte of it anywhere else.
    for (const socket of [otherSocket, anonymousSocket]) expect(socket.frames.join('\n')).not.toContain(creatorEmail);
    for (const socket of [creatorSocket, otherSocket, anonymousSocket]) socket.ws.close();
    await subscriptionsOpen(t.app, 0);
  });

  it('delivers to the other subscribers when sockets close or fail in the middle of a fan-out', async () => {
    // The fan-out writes in the order of subscribing: the failing one first, the healthy
    // ones after it, and the closing ones once the healthy ones have started.
    const failing = await openSocket(url);
    failing.subscribe('failing', POOL_STATUS, { p: pool.id });
    await subscriptionsOpen(t.app, 1);
    const healthy = await Promise.all(Array.from({ length: 5 }, () => openSocket(url)));
    healthy.forEach((socket, i) => socket.subscribe(`healthy-${i}`, POOL_STATUS, { p: pool.id }));
    await subscriptionsOpen(t.app, 6);
    const closing = await Promise.all(Array.from({ length: 2 }, () => openSocket(url)));
    closing.forEach((socket, i) => socket.subscribe(`closing-${i}`, POOL_STATUS, { p: pool.id }));
    await subscriptionsOpen(t.app, 8);

    // The server's sockets live in this process: learn which is which from a first event,
    // then, during the second event's fan-out, cut the closing ones as the first frame is
    // written, and make the failing one's write throw.
    const serverSide = new Map<string, WebSocket>();
    let cutting = false;
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (this: WebSocket & { _isServer: boolean }, data: unknown, ...rest: unknown[]) {
      const frame = String(data);
      const id = /^\{"id":"([^"]+)","type":"next"/.exec(frame)?.[1];
      if (this._isServer && id) {
        serverSide.set(id, this);
        if (cutting) {
          cutting = false;
          for (let i = 0; i < closing.length; i++) serverSide.get(`closing-${i}`)!.terminate();
        }
        if (id === 'failing' && frame.includes('PREDICTIONS_FROZEN')) throw new Error('the write failed');
      }
      return (send as (...args: unknown[]) => void).call(this, data, ...rest);
    } as typeof WebSocket.prototype.send;
    try {
      await setStatus('ACTIVE');
      await until(() => serverSide.size === 8, 10_000, 'the first event on every subscription');
      cutting = true;
      await setStatus('PREDICTIONS_FROZEN');
      await until(
        () => healthy.every((socket, i) => socket.received(`healthy-${i}`).length === 2),
        10_000,
        'the second event on the healthy subscriptions',
      );
      expect(cutting).toBe(false);
      await Promise.all(closing.map((socket) => socket.closed));
      expect(closing.map((socket, i) => socket.received(`closing-${i}`).length)).toEqual([1, 1]);
      // The failing subscription ends with an error; its socket stays open.
      await until(() => failing.received('failing').length === 2, 10_000, 'the failing subscription to end');
      expect(failing.received('failing').map((message) => message.type)).toEqual(['next', 'error']);
      await subscriptionsOpen(t.app, 5);

      await setStatus('ACTIVE');
      await until(
        () => healthy.every((socket, i) => socket.received(`healthy-${i}`).length === 3),
        10_000,
        'the third event on the healthy subscriptions',
      );
      for (const [i, socket] of healthy.entries()) {
        expect(socket.received(`healthy-${i}`).map((message) => message.payload!.data!.poolUpdated.status)).toEqual([
          'ACTIVE',
          'PREDICTIONS_FROZEN',
          'ACTIVE',
        ]);
      }
      expect(failing.received('failing')).toHaveLength(2);
    } finally {
      WebSocket.prototype.send = send;
    }
    for (const socket of [...healthy, failing]) socket.ws.close();
    await subscriptionsOpen(t.app, 0);
  });

  it('drops with SUBSCRIBER_TOO_SLOW a subscriber whose socket holds too much unsent, and only that one', async () => {
    const sockets = await Promise.all(Array.from({ length: 3 }, () => openSocket(url)));
    sockets.forEach((socket, i) => socket.subscribe(`s${i}`, POOL_STATUS, { p: pool.id }));
    await subscriptionsOpen(t.app, 3);
    // Learn the server's socket of s1 from a first event, then make it report a full send buffer, as one whose client stopped reading does.
    let slow: WebSocket | null = null;
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (this: WebSocket & { _isServer: boolean }, data: unknown, ...rest: unknown[]) {
      if (this._isServer && String(data).startsWith('{"id":"s1","type":"next"')) slow = this;
      return (send as (...args: unknown[]) => void).call(this, data, ...rest);
    } as typeof WebSocket.prototype.send;
    try {
      await setStatus('PREDICTIONS_FROZEN');
      await until(() => sockets.every((socket, i) => socket.received(`s${i}`).length === 1), 10_000, 'the first event');
      Object.defineProperty(slow!, 'bufferedAmount', { get: () => 2 ** 21 });
    } finally {
      WebSocket.prototype.send = send;
    }
    await setStatus('ACTIVE');
    // s1 gets the event it was written, then its error; the others go on.
    await until(
      () => [0, 2].every((i) => sockets[i]!.received(`s${i}`).length === 2) && sockets[1]!.received('s1').length === 3,
      10_000,
      "the second event, and s1's error",
    );
    expect(sockets[1]!.received('s1').map((message) => message.type)).toEqual(['next', 'next', 'error']);
    expect((sockets[1]!.received('s1')[2]!.payload as unknown as Array<{ extensions: { code: string } }>)[0]!.extensions.code).toBe(
      'SUBSCRIBER_TOO_SLOW',
    );
    await subscriptionsOpen(t.app, 2);
    await setStatus('PREDICTIONS_FROZEN');
    await until(() => [0, 2].every((i) => sockets[i]!.received(`s${i}`).length === 3), 10_000, 'the third event on the others');
    expect(sockets[1]!.received('s1')).toHaveLength(3);
    for (const socket of sockets) socket.ws.close();
    await subscriptionsOpen(t.app, 0);
  });
});
