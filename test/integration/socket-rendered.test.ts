import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { createApp } from '../../src/server/app.js';
import { RenderedData } from '../../src/server/pipeline/planned-read.js';
import { seedVariedPools, type VariedPools } from '../support/fixtures/varied-pools.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { listen } from '../support/sockets.js';

/** The frames a raw graphql-transport-ws client receives for one query, after the ack, up to its `complete`. */
async function framesOf(url: string, payload: unknown): Promise<string[]> {
  const ws = new WebSocket(url, 'graphql-transport-ws');
  const frames: string[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      ws.on('open', () => ws.send('{"type":"connection_init"}'));
      ws.on('message', (data, isBinary) => {
        const text = String(data);
        if (isBinary) return reject(new Error(`a binary frame: ${text.slice(0, 100)}`));
        if (text.includes('"connection_ack"')) return ws.send(JSON.stringify({ id: 'q1', type: 'subscribe', payload }));
        frames.push(text);
        if (text.includes('"type":"complete"') || text.includes('"type":"error"')) resolve();
      });
      ws.on('error', reject);
    });
  } finally {
    ws.close();
  }
  return frames;
}

/**
 * A rendered read's answer over graphql-ws is written into its `next` frame from the text SQL
 * wrote (websocket/transport.ts, renderedAnswer): the frames must be what graphql-ws writes
 * for the executed read, byte for byte, and in the same order (`next`, then `complete`).
 */
describe.each(backends)('a rendered read over graphql-ws, on %s', (kind) => {
  let t: TestApp;
  let executor: TestApp['app'];
  let world: VariedPools;
  let renderedUrl: string;
  let executedUrl: string;

  beforeAll(async () => {
    t = await startEmptyTestApp(kind);
    world = await seedVariedPools(t.seed, t.database);
    executor = await createApp({ config: testConfig({ RENDERED_READS: 'false' }), database: t.database });
    renderedUrl = await listen(t);
    executedUrl = await listen({ app: executor });
  });
  afterAll(async () => {
    await executor?.close();
    await t?.close();
  });

  it('sends the frames the executed read sends, byte for byte', async () => {
    const queries = [
      {
        query:
          '{ pools(first: 5, sort: VOLUME_HIGH) { totalCount nodes { id title totalVolume createdAt user { id username } ' +
          'predictions(first: 3) { nodes { id stake prediction } } } } }',
      },
      { query: 'query P($id: ID!) { pool(id: $id) { id title status streak { id title } } }', variables: { id: world.busiestPool.id } },
      { query: '{ streaks(first: 2) { nodes { id title pools(first: 2) { nodes { id } } } } }' },
    ];
    for (const payload of queries) {
      const executed = await framesOf(executedUrl, payload);
      // Written from a rendered read's text: its body was encoded once, for the frame.
      const written = vi.spyOn(RenderedData.prototype, 'body');
      const rendered = await framesOf(renderedUrl, payload);
      expect(written, payload.query).toHaveBeenCalledTimes(1);
      written.mockRestore();
      expect(rendered, payload.query).toEqual(executed);
      expect(rendered.map((frame) => JSON.parse(frame).type)).toEqual(['next', 'complete']);
    }
  });
});
