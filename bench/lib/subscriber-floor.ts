/**
 * The floor of `npm run bench:subscribers` (BENCH_SERVER=floor): the least a server can do to
 * deliver a pool's change to every subscriber, on the same database, machine and clients.
 * Plain `node:http` and `ws`, graphql-transport-ws spoken only as far as the bench's clients
 * use it (init and ack, subscribe, ping and pong). `updatePoolStatus` is one statement that
 * updates the pool and notifies in its transaction (no session, no checks); one LISTEN
 * connection hears it, reads the pool once and writes the same `next` frame to every
 * subscribed socket. Nothing is parsed or executed per subscriber: what is left is what
 * any gateway pays to fan an event out, chiefly one socket write each.
 *
 * Run as a child process by bench/subscribers.ts, with DATABASE_URL and PORT; it answers the
 * bench's /readyz, /metrics (the names the bench reads) and POST /graphql.
 */
import { createServer, type IncomingMessage } from 'node:http';
import postgres from 'postgres';
import { WebSocket, WebSocketServer } from 'ws';

const CHANNEL = 'poolgraph_bench_floor';
const sql = postgres(process.env.DATABASE_URL!, { max: 2, onnotice: () => {} });
/** The subscribed sockets, with the id each subscribed under. */
const subscribed = new Map<WebSocket, string>();

async function bodyOf(request: IncomingMessage): Promise<{ query?: string; variables?: Record<string, string> }> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

const server = createServer((request, response) => {
  if (request.url === '/readyz') return void response.end('{"status":"ready"}');
  if (request.url === '/metrics') {
    const memory = process.memoryUsage();
    return void response.end(
      [
        `poolgraph_subscriptions_open ${subscribed.size}`,
        `nodejs_heap_size_used_bytes ${memory.heapUsed}`,
        `nodejs_heap_size_total_bytes ${memory.heapTotal}`,
        `nodejs_external_memory_bytes ${memory.external}`,
        '',
      ].join('\n'),
    );
  }
  if (request.method !== 'POST' || request.url !== '/graphql') return void response.writeHead(404).end();
  response.setHeader('content-type', 'application/json');
  bodyOf(request)
    .then(async ({ query, variables }) => {
      if (!query?.includes('updatePoolStatus')) throw new Error('the floor answers updatePoolStatus only');
      const { p, s } = variables!;
      await sql`WITH changed AS (UPDATE pools SET status = ${s!}::pool_status, updated_at = now() WHERE id = ${p!}::uuid RETURNING id)
        SELECT pg_notify(${CHANNEL}, id::text) FROM changed`;
      response.end(JSON.stringify({ data: { updatePoolStatus: { id: p } } }));
    })
    // The bench reads `errors` and stops: say what went wrong rather than leave the request hanging.
    .catch((error: unknown) => response.end(JSON.stringify({ errors: [{ message: String(error) }] })));
});

const sockets = new WebSocketServer({ server, path: '/graphql', perMessageDeflate: false });
sockets.on('connection', (ws) => {
  ws.on('message', (data) => {
    const message = JSON.parse(String(data)) as { type: string; id?: string };
    if (message.type === 'connection_init') ws.send('{"type":"connection_ack"}');
    else if (message.type === 'subscribe') subscribed.set(ws, message.id!);
    else if (message.type === 'complete') subscribed.delete(ws);
    else if (message.type === 'ping') ws.send('{"type":"pong"}');
  });
  ws.on('close', () => subscribed.delete(ws));
});

/** Writes the pool's change to every subscribed socket. */
async function fanOut(poolId: string): Promise<void> {
  const [pool] = await sql<Array<{ id: string; status: string; updated_at: Date }>>`
    SELECT id, status, updated_at FROM pools WHERE id = ${poolId}::uuid`;
  const payload = JSON.stringify({
    data: { poolUpdated: { id: pool!.id, status: pool!.status, updatedAt: pool!.updated_at.toISOString() } },
  });
  // One frame text per subscription id (the bench's clients all use one).
  const frames = new Map<string, string>();
  for (const [ws, id] of subscribed) {
    let frame = frames.get(id);
    if (frame === undefined) frames.set(id, (frame = `{"id":${JSON.stringify(id)},"type":"next","payload":${payload}}`));
    if (ws.readyState === WebSocket.OPEN) ws.send(frame);
  }
}

await sql.listen(CHANNEL, (poolId) => void fanOut(poolId));

server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  for (const ws of subscribed.keys()) ws.terminate();
  server.close();
  void sql.end({ timeout: 1 }).then(() => process.exit(0));
});
