/**
 * The closed loop of lib/load.ts over graphql-ws: N sockets (graphql-transport-ws over plain
 * `ws`), each sending its next `subscribe` of a query as soon as the previous one's
 * `complete` has arrived, for a fixed duration. Counts completed operations, their bytes,
 * the operations answered with an error, and latency percentiles.
 */
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { type LoadResult, loadResultOf } from './load.js';

export interface SocketLoadOptions {
  port: number;
  /** The operation's payload (`{ query, variables, operationName }`), as JSON. */
  payload: string;
  connections: number;
  durationMs: number;
}

function openSocket(port: number): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/graphql`, 'graphql-transport-ws', { perMessageDeflate: false });
    ws.on('open', () => ws.send('{"type":"connection_init"}'));
    ws.once('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string };
      if (message.type === 'connection_ack') resolve(ws);
      else reject(new Error(`the socket answered ${String(data).slice(0, 200)}`));
    });
    ws.on('error', reject);
  });
}

export async function runSocketLoad(options: SocketLoadOptions): Promise<LoadResult> {
  const sockets = await Promise.all(Array.from({ length: options.connections }, () => openSocket(options.port)));
  const latencies: number[] = [];
  let bytes = 0;
  let errors = 0;
  let next = 0;
  const startedAt = performance.now();
  const endsAt = startedAt + options.durationMs;
  const worker = (ws: WebSocket) =>
    new Promise<void>((done) => {
      let sentAt = 0;
      let id = '';
      const send = () => {
        if (performance.now() >= endsAt) return done();
        id = String(next++);
        sentAt = performance.now();
        ws.send(`{"id":"${id}","type":"subscribe","payload":${options.payload}}`);
      };
      ws.on('message', (data: Buffer) => {
        bytes += data.length;
        // Only the kind matters here: `complete` ends the operation (`next` carries the data, `error` a refusal).
        const text = data.toString('latin1', 0, 64);
        if (text.includes('"type":"error"')) errors++;
        if (text.includes('"type":"complete"') || text.includes('"type":"error"')) {
          latencies.push(performance.now() - sentAt);
          send();
        } else if (text.includes('"type":"ping"')) ws.send('{"type":"pong"}');
      });
      send();
    });
  await Promise.all(sockets.map(worker));
  const durationMs = performance.now() - startedAt;
  for (const ws of sockets) ws.close(1000);
  // A refused operation counts as a failed request, as a non-2xx answer does over HTTP.
  return loadResultOf({ latencies, durationMs, bytes, non2xx: errors, errors: 0, unexpectedBodies: 0 });
}

/** One operation over a fresh socket: the `next` message's payload (or the `error`'s), as text. */
export async function socketOnce(port: number, payload: string): Promise<string> {
  const ws = await openSocket(port);
  try {
    return await new Promise<string>((resolve) => {
      ws.on('message', (data: Buffer) => {
        const message = JSON.parse(data.toString()) as { type: string; payload?: unknown };
        if (message.type === 'next' || message.type === 'error') resolve(JSON.stringify(message.payload));
      });
      ws.send(`{"id":"1","type":"subscribe","payload":${payload}}`);
    });
  } finally {
    ws.close(1000);
  }
}
