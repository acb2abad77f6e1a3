import type { IncomingMessage } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ApolloServerPlugin } from '@apollo/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type * as tables from '../../schema/index.js';
import { EventHub } from '../../src/modules/events/event-hub.js';
import { createApp } from '../../src/server/app.js';
import type { GraphQLContext } from '../../src/server/context.js';
import { startEmptyTestApp, type TestApp, testConfig } from '../support/harness.js';
import { listen } from '../support/sockets.js';
import { subscriptionsOpen, until } from '../support/wait.js';

/**
 * What an open subscriber's socket keeps on the server: a socket lives for hours, and ten
 * thousand of them share one process, so whatever one holds beyond its need is held ten
 * thousand times over (src/server/websocket/transport.ts).
 */

/** The collector itself: V8 gives `gc` to contexts created once --expose-gc is set. */
function exposedGc(): () => void {
  const { gc } = globalThis;
  if (typeof gc === 'function') return () => gc();
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

describe('an open subscriber socket', () => {
  const gc = exposedGc();
  let t: TestApp;
  let url: string;
  let pool: tables.PoolRow;
  beforeAll(async () => {
    t = await startEmptyTestApp('pglite');
    url = await listen(t);
    ({ pool } = (await t.seed.user().withPool()) as { pool: tables.PoolRow });
  });
  afterAll(() => t.close());

  type Message = { type: string; id?: string; payload?: any };

  /** A socket to `socketUrl`, open and acknowledged, subscribed as `id` to the pool's `fields`; its messages as they come. */
  async function subscribed(socketUrl: string, id: string, fields: string, headers: Record<string, string> = {}) {
    const ws = new WebSocket(socketUrl, 'graphql-transport-ws', { headers });
    const messages: Message[] = [];
    ws.on('message', (data) => messages.push(JSON.parse(String(data))));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    ws.send(JSON.stringify({ type: 'connection_init' }));
    await until(() => messages.some((message) => message.type === 'connection_ack'), 5000, 'connection_ack');
    const query = `subscription($p: ID!) { poolUpdated(poolId: $p) { ${fields} } }`;
    ws.send(JSON.stringify({ id, type: 'subscribe', payload: { query, variables: { p: pool.id } } }));
    return { ws, messages };
  }

  /** Whether what `ref` holds is collected, after a few full collections with turns of the event loop between (a promise's reactions may hold it for a turn). */
  async function collected(ref: WeakRef<object>): Promise<boolean> {
    for (let i = 0; i < 5 && ref.deref(); i++) {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
    }
    return ref.deref() === undefined;
  }

  /** The pool's next change, as the subscriber `id` receives it. */
  async function nextEvent(messages: Message[], id: string): Promise<Message> {
    await new EventHub(t.database).publish([{ type: 'poolUpdated', poolId: pool.id }]);
    await until(() => messages.some((message) => message.type === 'next' && message.id === id), 10_000, 'the event');
    return messages.find((message) => message.type === 'next' && message.id === id)!;
  }

  it('does not keep its upgrade request (headers, head) once it is subscribed, and still receives events', async () => {
    // The upgrade's request, seen as the server sees it, held weakly here.
    let request: WeakRef<IncomingMessage> | null = null;
    const onUpgrade = (upgrade: IncomingMessage) => {
      // Headers large enough that keeping them per socket would matter.
      if (upgrade.headers['x-padding']) request = new WeakRef(upgrade);
    };
    t.app.server.prependListener('upgrade', onUpgrade);
    let ws: WebSocket | undefined;
    try {
      const socket = await subscribed(url, 'm1', 'id', { 'x-padding': 'x'.repeat(4096) });
      ws = socket.ws;
      t.app.server.off('upgrade', onUpgrade);
      await subscriptionsOpen(t.app, 1);
      expect(request).not.toBeNull();
      expect(await collected(request!)).toBe(true);
      // The socket is as it was: an event reaches it.
      expect(await nextEvent(socket.messages, 'm1')).toMatchObject({ payload: { data: { poolUpdated: { id: pool.id } } } });
    } finally {
      t.app.server.off('upgrade', onUpgrade);
      ws?.close();
    }
    await subscriptionsOpen(t.app, 0);
  });

  it("does not keep the database handle its set-up read through (the pool's check): its events read with their own", async () => {
    // The handle the subscription's context reads through when Apollo starts its operation, held weakly here.
    let setUpHandle: WeakRef<object> | null = null;
    const recorder: ApolloServerPlugin<GraphQLContext> = {
      async requestDidStart({ contextValue }) {
        if (contextValue.transport.requestId.startsWith('ws-')) setUpHandle = new WeakRef(contextValue.database);
      },
    };
    const app = await createApp({ config: testConfig(), database: t.database, plugins: [recorder] });
    let ws: WebSocket | undefined;
    try {
      const socket = await subscribed(await listen({ app }), 'm2', 'id title');
      ws = socket.ws;
      await subscriptionsOpen(app, 1);
      expect(setUpHandle).not.toBeNull();
      expect(await collected(setUpHandle!)).toBe(true);
      // Its events still read (the pool's title, through the event's loaders) and reach it.
      expect(await nextEvent(socket.messages, 'm2')).toMatchObject({
        payload: { data: { poolUpdated: { id: pool.id, title: pool.title } } },
      });
    } finally {
      ws?.close();
      await app.close();
    }
  });
});
