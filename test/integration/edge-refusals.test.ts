import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createApp } from '../../src/server/app.js';
import { startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';

/** What came back on a raw connection: the response text, and when the server closed the connection (ms after sending). */
interface RawExchange {
  text: string;
  closedAfterMs: number;
}

/**
 * Sends `head` on a raw connection, then (if given) `trickle` one byte every 100 ms, as a
 * slow client does, until the server closes the connection or `giveUpMs` passes.
 */
function exchange(port: number, head: string, options: { trickle?: boolean; giveUpMs?: number } = {}): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let text = '';
    let trickling: NodeJS.Timeout | undefined;
    const sentAt = performance.now();
    const finish = () => {
      clearInterval(trickling);
      clearTimeout(giveUp);
      resolve({ text, closedAfterMs: performance.now() - sentAt });
    };
    const giveUp = setTimeout(() => {
      socket.destroy();
    }, options.giveUpMs ?? 15_000);
    socket.on('connect', () => {
      socket.write(head);
      if (options.trickle) trickling = setInterval(() => socket.writable && socket.write('a'), 100);
    });
    socket.on('data', (chunk) => (text += chunk));
    socket.on('error', () => {});
    socket.on('close', finish);
  });
}

/** The status and catalogue code of a raw HTTP response. */
function refusalOf(text: string): { status: number; code: string | undefined; connection: string | undefined } {
  const [head, body] = text.split('\r\n\r\n', 2) as [string, string];
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const connection = /\r\nconnection: ([^\r]*)/i.exec(head)?.[1]?.toLowerCase();
  return { status, code: JSON.parse(body).errors?.[0]?.extensions?.code, connection };
}

describe('refusals at the edge carry a catalogue code and free their socket', () => {
  let t: TestApp;
  let app: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    t = await startEmptyTestApp('pglite');
    app = await createApp({ config: testConfig({ REQUEST_BODY_TIMEOUT_MS: '20000', BODY_LIMIT_BYTES: '4096' }), database: t.database });
    port = Number(new URL(await app.listen({ host: '127.0.0.1', port: 0 })).port);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  const post = (headers: string) => `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${headers}\r\n`;

  it('answers a lying or doubled Content-Length with 400 BAD_REQUEST in JSON, and closes', async () => {
    for (const head of [
      post('Content-Length: 12abc\r\n') + '{"query":"{ __typename }"}',
      post('Content-Length: 26\r\nContent-Length: 5\r\n') + '{"query":"{ __typename }"}',
      post('Content-Length: 26\r\nTransfer-Encoding: chunked\r\n') + '{"query":"{ __typename }"}',
    ]) {
      const answer = await exchange(port, head);
      expect(refusalOf(answer.text), head).toEqual({ status: 400, code: 'BAD_REQUEST', connection: 'close' });
    }
  });

  it('answers headers over the size limit with 431 HEADERS_TOO_LARGE in JSON, and closes', async () => {
    const answer = await exchange(port, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(refusalOf(answer.text)).toEqual({ status: 431, code: 'HEADERS_TOO_LARGE', connection: 'close' });
  });

  it('closes the connection of a slow body once it is refused, not after the body timeout', async () => {
    for (const [head, status, code] of [
      [post('Content-Length: 10000000\r\n'), 413, 'REQUEST_TOO_LARGE'],
      [
        `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/xml\r\nContent-Length: 3000\r\n\r\n`,
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ],
      [
        `POST /graphql HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\nContent-Length: 3000\r\n\r\n`,
        403,
        'HOST_NOT_ALLOWED',
      ],
    ] as const) {
      const answer = await exchange(port, head, { trickle: true });
      expect(refusalOf(answer.text), head).toEqual({ status, code, connection: 'close' });
      expect(answer.closedAfterMs, head).toBeLessThan(2000);
    }
  });

  const connected = async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/graphql`, 'graphql-transport-ws');
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
    );
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(JSON.stringify({ type: 'connection_init' }));
    await new Promise((resolve) => ws.once('message', resolve));
    return { ws, closed };
  };

  it('closes a WebSocket whose peer floods pings (frames or graphql-ws messages) with 1008 and RATE_LIMITED; a few pings are fine', async () => {
    const calm = await connected();
    for (let i = 0; i < 10; i++) calm.ws.ping();
    for (let i = 0; i < 10; i++) calm.ws.send(JSON.stringify({ type: 'ping' }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(calm.ws.readyState).toBe(WebSocket.OPEN);

    const frames = await connected();
    for (let i = 0; i < 100; i++) frames.ws.ping();
    const messages = await connected();
    for (let i = 0; i < 100; i++) messages.ws.send(JSON.stringify({ type: 'ping' }));
    for (const flood of [frames, messages])
      expect(await flood.closed).toEqual({ code: 1008, reason: expect.stringMatching(/^RATE_LIMITED: /) });
    expect(calm.ws.readyState).toBe(WebSocket.OPEN);
    calm.ws.close();
  });
});
