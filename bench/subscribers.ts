/**
 * `npm run bench:subscribers`: many concurrent graphql-ws subscribers on one gateway process.
 * For each subscriber count (BENCH_SUBSCRIBERS, default "1,1000,10000") it opens that many
 * sockets, each subscribed to `poolUpdated` of one pool, makes BENCH_EVENTS changes of the
 * pool through the admin mutation `updatePoolStatus` (one at a time), and reports:
 * - delivery latency, p50 and p99, from the change's commit (the pool's `updatedAt`, set
 *   inside the mutation's transaction) to each subscriber's receipt;
 * - the server process's resident memory with the sockets open, and per subscriber;
 * - both as ratios to the 1-subscriber baseline.
 * The server is `src/main.ts` in its own process on Postgres (BENCH_DATABASE_URL, default
 * the local server's `postgres` database to create a scratch database from), so the
 * clients' memory and CPU are not counted as the server's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { generateKeyPair, getAddressFromPublicKey, signBytes } from '@solana/kit';
import bs58 from 'bs58';
import { asc, eq } from 'drizzle-orm';
import { createClient, type Client } from 'graphql-ws';
import postgres from 'postgres';
import WebSocket from 'ws';
import * as tables from '../schema/index.js';
import { openDatabase } from '../src/db/client.js';
import { seedDemoData } from '../src/db/seed.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));
const counts = (process.env.BENCH_SUBSCRIBERS ?? '1,1000,10000').split(',').map((n) => Number(n.trim()));
const events = Number(process.env.BENCH_EVENTS ?? 20);
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/postgres';
const STATUSES = ['PREDICTIONS_FROZEN', 'ACTIVE'] as const;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function residentBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))!;
  return Number(/(\d+)/.exec(line)![1]) * 1024;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function startServer(databaseUrl: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      POOLGRAPH_MODE: 'test',
      AUTH_DOMAIN: 'bench.poolgraph',
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      SEED_DEMO_DATA: 'false',
      CHAIN_DATA_DIR: 'memory',
      // The bench opens thousands of sockets and signs in once; no limit should stand in for the gateway's own cost.
      RATE_LIMIT_QUERIES_PER_MINUTE: '0',
      RATE_LIMIT_MUTATIONS_PER_MINUTE: '0',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; i < 300; i++) {
    if (await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false)) return child;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the server did not become ready');
}

async function gql(port: number, query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: any; errors?: unknown[] };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

async function main(): Promise<void> {
  const name = `poolgraph_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  let server: ChildProcess | null = null;
  try {
    const database = await openDatabase({ kind: 'postgres', url: databaseUrl });
    await database.migrate();
    await seedDemoData(database, { users: 20, pools: 5, streaks: 1 });
    const keys = await generateKeyPair();
    const wallet = await getAddressFromPublicKey(keys.publicKey);
    const [user] = await database.db.select().from(tables.users).orderBy(asc(tables.users.id)).limit(1);
    await database.db.update(tables.users).set({ walletAddress: wallet, role: 'ADMIN' }).where(eq(tables.users.id, user!.id));
    const [pool] = await database.db.select().from(tables.pools).orderBy(asc(tables.pools.id)).limit(1);
    await database.close();

    const port = await freePort();
    server = await startServer(databaseUrl, port);
    const challenge = await gql(port, `mutation($a: String!) { requestSignInChallenge(walletAddress: $a) { message } }`, { a: wallet });
    const message = challenge.requestSignInChallenge.message as string;
    const signature = bs58.encode(await signBytes(keys.privateKey, new TextEncoder().encode(message)));
    const session = await gql(port, `mutation($i: SignInWithWalletInput!) { signInWithWallet(input: $i) { accessToken } }`, {
      i: { walletAddress: wallet, message, signature },
    });
    const headers = { authorization: `Bearer ${session.signInWithWallet.accessToken}` };

    const idleRss = residentBytes(server.pid!);
    const rows: Array<Record<string, number>> = [];
    for (const count of counts) {
      const received: number[] = [];
      const clients: Client[] = [];
      let expected = 0;
      let arrivals = 0;
      let wake: (() => void) | null = null;
      // Open in batches: a burst of 10,000 handshakes at once measures the kernel's accept queue, not the gateway.
      for (let i = 0; i < count; i += 250) {
        const batch = Array.from({ length: Math.min(250, count - i) }, () => {
          const client = createClient({ url: `ws://127.0.0.1:${port}/graphql`, webSocketImpl: WebSocket, lazy: false, retryAttempts: 0, onNonLazyError: () => {} });
          clients.push(client);
          return new Promise<void>((resolve, reject) => {
            client.subscribe<{ poolUpdated: { updatedAt: string } }>(
              { query: `subscription($p: ID!) { poolUpdated(poolId: $p) { id status updatedAt } }`, variables: { p: pool!.id } },
              {
                next: (result) => {
                  received.push(Date.now() - Date.parse(result.data!.poolUpdated.updatedAt));
                  if (++arrivals >= expected && wake) wake();
                },
                error: reject,
                complete: () => {},
              },
            );
            client.on('connected', () => resolve());
          });
        });
        await Promise.all(batch);
      }
      // Let every subscribe message reach its stream before the first change.
      await new Promise((resolve) => setTimeout(resolve, Math.max(500, count / 5)));
      global.gc?.();
      const rss = residentBytes(server.pid!);

      for (let e = 0; e < events; e++) {
        expected += count;
        const done = new Promise<void>((resolve) => (wake = resolve));
        await gql(port, `mutation($p: ID!, $s: PoolStatus!) { updatePoolStatus(poolId: $p, status: $s) { id } }`, { p: pool!.id, s: STATUSES[e % 2] }, headers);
        await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 30_000))]);
        wake = null;
      }
      const sorted = [...received].sort((a, b) => a - b);
      const row = {
        subscribers: count,
        events,
        deliveries: received.length,
        expectedDeliveries: count * events,
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
        maxMs: sorted.at(-1) ?? NaN,
        serverRssMiB: Math.round((rss / 2 ** 20) * 10) / 10,
        rssPerSubscriberKiB: count > 0 ? Math.round(((rss - idleRss) / count / 1024) * 10) / 10 : 0,
      };
      rows.push(row);
      console.log(JSON.stringify(row));
      await Promise.all(clients.map((c) => c.dispose()));
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const baseline = rows[0]!;
    const report = {
      date: new Date().toISOString(),
      machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
      idleServerRssMiB: Math.round((idleRss / 2 ** 20) * 10) / 10,
      rows: rows.map((row) => ({
        ...row,
        p50VsBaseline: Math.round((row.p50Ms! / Math.max(1, baseline.p50Ms!)) * 100) / 100,
        p99VsBaseline: Math.round((row.p99Ms! / Math.max(1, baseline.p99Ms!)) * 100) / 100,
      })),
    };
    console.table(report.rows);
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(`${RESULTS_DIR}subscribers.json`, `${JSON.stringify(report, null, 2)}\n`);
  } finally {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
