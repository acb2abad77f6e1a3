import type { IncomingMessage } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type * as tables from '../../schema/index.js';
import { EventHub } from '../../src/modules/events/event-hub.js';
import { startEmptyTestApp, type TestApp } from '../support/harness.js';
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

  it('does not keep its upgrade request (headers, head) once it is subscribed, and still receives events', async () => {
    // The upgrade's request, seen as the server sees it, held weakly here.
    let request: WeakRef<IncomingMessage> | null = null;
    const onUpgrade = (upgrade: IncomingMessage) => {
      // Headers large enough that keeping them per socket would matter.
      if (upgrade.headers['x-padding']) request = new WeakRef(upgrade);
    };
    t.app.server.prependListener('upgrade', onUpgrade);
    const ws = new WebSocket(url, 'graphql-transport-ws', { headers: { 'x-padding': 'x'.repeat(4096) } });
    const messages: Array<{ type: string; id?: string; payload?: any }> = [];
    ws.on('message', (data) => messages.push(JSON.parse(String(data))));
    try {
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      t.app.server.off('upgrade', onUpgrade);
      ws.send(JSON.stringify({ type: 'connection_init' }));
      await until(() => messages.some((message) => message.type === 'connection_ack'), 5000, 'connection_ack');
      ws.send(
        JSON.stringify({
          id: 'm1',
          type: 'subscribe',
          payload: { query: 'subscription($p: ID!) { poolUpdated(poolId: $p) { id } }', variables: { p: pool.id } },
        }),
      );
      await subscriptionsOpen(t.app, 1);
      expect(request).not.toBeNull();

      // A few full collections, with turns of the event loop between (a promise's reactions may hold it for a turn).
      for (let i = 0; i < 5 && request!.deref(); i++) {
        await new Promise((resolve) => setImmediate(resolve));
        gc();
      }
      expect(request!.deref()).toBeUndefined();

      // The socket is as it was: an event reaches it.
      await new EventHub(t.database).publish([{ type: 'poolUpdated', poolId: pool.id }]);
      await until(() => messages.some((message) => message.type === 'next'), 10_000, 'the event');
      expect(messages.find((message) => message.type === 'next')).toMatchObject({
        id: 'm1',
        payload: { data: { poolUpdated: { id: pool.id } } },
      });
    } finally {
      t.app.server.off('upgrade', onUpgrade);
      ws.close();
    }
    await subscriptionsOpen(t.app, 0);
  });
});
