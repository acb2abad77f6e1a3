/**
 * `npm run bench:subscribers`: many concurrent graphql-ws subscribers on one gateway process.
 * For each subscriber count (BENCH_SUBSCRIBERS, default "1,1000,10000") it opens that many
 * sockets, each subscribed to `poolUpdated` of one pool, makes BENCH_EVENTS changes of the
 * pool through the admin mutation `updatePoolStatus` (one at a time), and reports:
 * - delivery latency, p50 and p99, from the pool's `updatedAt` to each subscriber's receipt:
 *   the gateway's request clock, taken as the mutation arrives (so it counts the mutation
 *   too), or the floor's statement's `now()`;
 * - the server process's resident memory (and V8 heap in use) with the sockets open, and
 *   per subscriber; and again after the events and BENCH_SETTLE_S (10) quiet seconds
 *   (settledRssMiB, settledHeapMiB), when less of it is garbage waiting for the collector;
 * - the CPU the server and the bench's clients spent during the fan-out, per event;
 * - latency as ratios to the 1-subscriber baseline.
 * The server runs as production runs it (`npm run start:prod`: the compiled `dist/src/main.js`
 * of this checkout, or of BENCH_SRC's, built, for a before/after in one run; BENCH_APP=source
 * runs `src/main.ts` under tsx as `npm start` does, which holds about 90 MiB more) in its
 * own process on Postgres (BENCH_DATABASE_URL, default the local server's `postgres`
 * database to create a scratch database from), so the clients' memory and CPU are not
 * counted as the server's. BENCH_CLIENT: `raw` (default; the protocol over plain `ws`, what
 * a lean client does) or `graphql-ws` (the package's client, heavier per message);
 * BENCH_CLIENT_PROCESSES (default 1, the bench's own): more splits the subscribers between
 * child processes (bench/lib/subscriber-clients.ts). BENCH_SERVER=floor runs the floor
 * instead (bench/lib/subscriber-floor.ts: the least any server does to fan the change out, on
 * the same database and clients), for the gateway's figures as ratios to it. BENCH_NODE_FLAGS:
 * Node and V8 flags for the server's process, space-separated (a heap setting, say).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKeyPair, getAddressFromPublicKey, signBytes } from '@solana/kit';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { asc, eq } from 'drizzle-orm';
import postgres from 'postgres';
import * as tables from '../schema/index.js';
import { openDatabase } from '../src/db/client.js';
import { seedDemoData } from '../src/seed/index.js';
import { resultsFile, writeResults } from './lib/results.js';
import { childGroup, type ClientKind, localGroup } from './lib/subscriber-clients.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const counts = (process.env.BENCH_SUBSCRIBERS ?? '1,1000,10000').split(',').map((n) => Number(n.trim()));
const events = Number(process.env.BENCH_EVENTS ?? 20);
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/postgres';
const clientKind: ClientKind = process.env.BENCH_CLIENT === 'graphql-ws' ? 'graphql-ws' : 'raw';
const clientProcesses = Math.max(1, Number(process.env.BENCH_CLIENT_PROCESSES ?? 1));
const src = process.env.BENCH_SRC || null;
const runsSource = process.env.BENCH_APP === 'source';
if (!runsSource && process.env.BENCH_APP && process.env.BENCH_APP !== 'dist')
  throw new Error(`BENCH_APP must be dist or source, got "${process.env.BENCH_APP}"`);
const label = process.env.BENCH_LABEL || null;
const serverKind = process.env.BENCH_SERVER ?? 'app';
if (serverKind !== 'app' && serverKind !== 'floor') throw new Error(`BENCH_SERVER must be app or floor, got "${serverKind}"`);
const settleMs = Number(process.env.BENCH_SETTLE_S ?? 10) * 1000;
/** Bytes in MiB, to a tenth. */
const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
const heapSnapshotDir = process.env.BENCH_HEAP_SNAPSHOT ? resolve(process.env.BENCH_HEAP_SNAPSHOT) : null;
const STATUSES = ['PREDICTIONS_FROZEN', 'ACTIVE'] as const;
const CLOCK_TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

function residentBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Number(/(\d+)/.exec(line)![1]) * 1024;
}

/** CPU time (user + system) the process has used, in ms. */
function cpuMs(pid: number): number {
  // The fields after the command's closing parenthesis; utime and stime are the 14th and 15th of the line.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** One unlabelled sample of the server's /metrics (its open subscriptions, its heap). */
async function metric(port: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

async function waitForOpenSubscriptions(port: number, expected: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  while ((await metric(port, 'poolgraph_subscriptions_open')) !== expected) {
    if (Date.now() > deadline) throw new Error(`the server did not count ${expected} open subscriptions`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** A child process's standard output, as it grows, until `pattern` appears in it (or `timeoutMs` passes). */
async function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  for (const deadline = Date.now() + timeoutMs; !pattern.test(output);) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no ${pattern} from the child process; it wrote: ${output}`);
    await new Promise((done) => setTimeout(done, 100));
  }
  return output;
}

/**
 * The chain as production has one: a cluster the gateway reaches over JSON-RPC (the devchain in
 * a process of its own, as deploy/local-cluster.sh runs it), never the embedded chain, which
 * production does not start and which holds about 25 MiB in the gateway's process. Returns the
 * process and the gateway's chain settings, its relayer funded by the devchain's faucet.
 */
async function startChain(): Promise<{ chain: ChildProcess; env: Record<string, string> }> {
  const port = await freePort();
  const chain = spawn(process.execPath, ['--import', 'tsx/esm', resolve(ROOT, 'src/devchain/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, DEVCHAIN_PORT: String(port), DEVCHAIN_DATA_DIR: 'memory' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const output = await waitForOutput(chain, /stake mint\s+\S+/, 180_000);
  const rpcUrl = `http://127.0.0.1:${port}`;
  const [relayer, custody] = [Keypair.generate(), Keypair.generate()];
  const airdrop = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'requestAirdrop', params: [relayer.publicKey.toBase58(), 10e9] }),
  });
  if (!airdrop.ok) throw new Error(`the devchain's faucet answered ${airdrop.status}`);
  const key = (pair: Keypair) => JSON.stringify([...pair.secretKey]);
  return {
    chain,
    env: {
      SOLANA_RPC_URL: rpcUrl,
      RELAYER_SECRET_KEY: key(relayer),
      CUSTODY_SECRET_KEY: key(custody),
      STAKE_MINT: /stake mint\s+(\S+)/.exec(output)![1]!,
    },
  };
}

async function startServer(databaseUrl: string, port: number, chainEnv: Record<string, string>): Promise<ChildProcess> {
  const checkout = serverKind === 'floor' ? ROOT : src ? resolve(src) : ROOT;
  const main = resolve(
    checkout,
    serverKind === 'floor' ? 'bench/lib/subscriber-floor.ts' : runsSource ? 'src/main.ts' : 'dist/src/main.js',
  );
  const underTsx = runsSource || serverKind === 'floor';
  if (!existsSync(main)) throw new Error(`${main} is missing: build ${checkout} first (npm run build)`);
  // BENCH_HEAP_SNAPSHOT=<dir>: the server writes a heap snapshot there on SIGUSR2 (sent once each count's sockets are subscribed).
  const snapshotFlags = heapSnapshotDir ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${heapSnapshotDir}`] : [];
  // BENCH_CPU_PROF=<dir>: the server writes a .cpuprofile there when it exits (bench/profile-summary.ts reads it).
  const profileFlags = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${resolve(process.env.BENCH_CPU_PROF)}`] : [];
  // BENCH_NODE_FLAGS: Node and V8 flags of the server's process (a heap setting, say), space-separated.
  const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(
    process.execPath,
    [...nodeFlags, ...snapshotFlags, ...profileFlags, ...(underTsx ? ['--import', 'tsx/esm'] : []), main],
    {
      // In the checkout it runs: tsx compiles with the tsconfig it finds there (decorators on).
      cwd: checkout,
      env: {
        ...process.env,
        POOLGRAPH_MODE: 'test',
        AUTH_DOMAIN: 'bench.poolgraph',
        DATABASE_URL: databaseUrl,
        PORT: String(port),
        SEED_DEMO_DATA: 'false',
        ...chainEnv,
        // With a cluster's RPC, sessions are signed with a secret of the deployment's.
        AUTH_SECRET: randomBytes(32).toString('hex'),
        // The bench opens thousands of sockets and signs in once; no limit should stand in for the gateway's own cost.
        RATE_LIMIT_QUERIES_PER_MINUTE: '0',
        RATE_LIMIT_MUTATIONS_PER_MINUTE: '0',
        // The subscribers connect from one address: its ceilings would refuse most of them.
        RATE_LIMIT_QUERIES_PER_ADDRESS_PER_MINUTE: '0',
        RATE_LIMIT_MUTATIONS_PER_ADDRESS_PER_MINUTE: '0',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  // Up to 3 minutes: tsx compiles the source at start, slowly on a busy machine.
  for (let i = 0; i < 900; i++) {
    if (
      await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return child;
    await new Promise((done) => setTimeout(done, 200));
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

/** The admin's session headers, signed in with its wallet's key. */
async function signIn(
  port: number,
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'],
  wallet: string,
): Promise<Record<string, string>> {
  const challenge = await gql(port, `mutation($a: String!) { requestSignInChallenge(walletAddress: $a) { message } }`, { a: wallet });
  const message = challenge.requestSignInChallenge.message as string;
  const signature = bs58.encode(await signBytes(privateKey, new TextEncoder().encode(message)));
  const session = await gql(port, `mutation($i: SignInWithWalletInput!) { signInWithWallet(input: $i) { accessToken } }`, {
    i: { walletAddress: wallet, message, signature },
  });
  return { authorization: `Bearer ${session.signInWithWallet.accessToken}` };
}

/** Asks the server for a heap snapshot and waits until it is written. */
async function heapSnapshot(server: ChildProcess): Promise<void> {
  mkdirSync(heapSnapshotDir!, { recursive: true });
  const before = new Set(readdirSync(heapSnapshotDir!));
  server.kill('SIGUSR2');
  let size = -1;
  for (;;) {
    await new Promise((done) => setTimeout(done, 2000));
    const written = readdirSync(heapSnapshotDir!).find((name) => !before.has(name) && name.endsWith('.heapsnapshot'));
    if (!written) continue;
    // Written in one go: done when its size stops growing.
    const now = statSync(resolve(heapSnapshotDir!, written)).size;
    if (now === size && now > 0) return;
    size = now;
  }
}

async function main(): Promise<void> {
  const file = resultsFile('subscribers', label);
  const loadAverageAtStart = os.loadavg().map((n) => Math.round(n * 100) / 100);
  const name = `poolgraph_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  let server: ChildProcess | null = null;
  let chain: ChildProcess | null = null;
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
    // Beside the floor too, so that both run on a machine as busy.
    const started = await startChain();
    chain = started.chain;
    server = await startServer(databaseUrl, port, started.env);
    // The floor asks no one who they are.
    const headers = serverKind === 'floor' ? {} : await signIn(port, keys.privateKey, wallet);

    const url = `ws://127.0.0.1:${port}/graphql`;
    const idleRss = residentBytes(server.pid!);
    const idleHeap = await metric(port, 'nodejs_heap_size_used_bytes');
    const rows: Array<Record<string, number>> = [];
    const groups = Array.from({ length: clientProcesses }, () =>
      (clientProcesses === 1 ? localGroup : childGroup)(url, pool!.id, clientKind),
    );
    for (const count of counts) {
      // The subscribers split evenly between the client processes.
      const perGroup = groups.map((_, i) => Math.floor(count / groups.length) + (i < count % groups.length ? 1 : 0));
      const openStarted = performance.now();
      await Promise.all(groups.map((group, i) => group.open(perGroup[i]!)));
      // Every subscription follows the event hub once the server counts it.
      await waitForOpenSubscriptions(port, count);
      const openSeconds = Math.round((performance.now() - openStarted) / 100) / 10;
      const rss = residentBytes(server.pid!);
      const heap = await metric(port, 'nodejs_heap_size_used_bytes');
      if (heapSnapshotDir) await heapSnapshot(server);

      await Promise.all(groups.map((group) => group.take()));
      const serverCpuBefore = cpuMs(server.pid!);
      const started = performance.now();
      for (let e = 0; e < events; e++) {
        await gql(
          port,
          `mutation($p: ID!, $s: PoolStatus!) { updatePoolStatus(poolId: $p, status: $s) { id } }`,
          { p: pool!.id, s: STATUSES[e % 2] },
          headers,
        );
        const delivered = Promise.all(groups.map((group, i) => group.waitFor(perGroup[i]! * (e + 1))));
        await Promise.race([delivered, new Promise((resolveLate) => setTimeout(resolveLate, 30_000))]);
      }
      const wallMs = performance.now() - started;
      const serverCpu = cpuMs(server.pid!) - serverCpuBefore;
      const taken = await Promise.all(groups.map((group) => group.take()));
      // Again after the events and a quiet spell (BENCH_SETTLE_S, 10 s), every socket still
      // open: what the subscribers hold once the collector has had its turn. Not before the
      // events: the server pings each socket 12 s after it opened (graphql-ws's keep-alive),
      // and a wait there would put those pings (sockets open 250 at a time) among the events.
      await new Promise((done) => setTimeout(done, settleMs));
      const settledRss = residentBytes(server.pid!);
      const settledHeap = await metric(port, 'nodejs_heap_size_used_bytes');
      // What V8 holds for its heap (used or not), and what Buffers hold outside it: the rest of the resident set is native.
      const settledHeapTotal = await metric(port, 'nodejs_heap_size_total_bytes');
      const settledExternal = await metric(port, 'nodejs_external_memory_bytes');
      const received = taken.flatMap((part) => part.latencies);
      const clientCpu = taken.reduce((sum, part) => sum + part.cpuMs, 0);
      const sorted = [...received].sort((x, y) => x - y);
      const row = {
        subscribers: count,
        events,
        deliveries: received.length,
        expectedDeliveries: count * events,
        // From the first socket opened to the last subscription counted by the server: how fast it sets them up.
        openSeconds,
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
        maxMs: sorted.at(-1) ?? NaN,
        serverRssMiB: mib(rss),
        settledRssMiB: mib(settledRss),
        settledHeapMiB: mib(settledHeap),
        settledHeapTotalMiB: mib(settledHeapTotal),
        settledExternalMiB: mib(settledExternal),
        rssPerSubscriberKiB: Math.round(((rss - idleRss) / count / 1024) * 10) / 10,
        heapPerSubscriberKiB: Math.round(((heap - idleHeap) / count / 1024) * 10) / 10,
        // Per event: the mutation, NOTIFY, execution and the writes to every socket (server), and reading them (bench).
        serverCpuMsPerEvent: Math.round((serverCpu / events) * 10) / 10,
        serverCpuShare: Math.round((serverCpu / wallMs) * 100) / 100,
        clientCpuMsPerEvent: Math.round((clientCpu / events) * 10) / 10,
        clientCpuShare: Math.round((clientCpu / wallMs) * 100) / 100,
      };
      rows.push(row);
      console.log(JSON.stringify(row));
      await Promise.all(groups.map((group) => group.close()));
      await waitForOpenSubscriptions(port, 0);
      await new Promise((resolveIdle) => setTimeout(resolveIdle, 1000));
    }
    for (const group of groups) group.exit();
    const baseline = rows[0]!;
    const report = {
      date: new Date().toISOString(),
      label,
      server: serverKind,
      src: serverKind === 'floor' ? null : src,
      app: runsSource ? 'source (tsx)' : 'dist',
      client: clientKind,
      clientProcesses,
      nodeFlags: process.env.BENCH_NODE_FLAGS || null,
      machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
      loadAverageAtStart,
      idleServerRssMiB: mib(idleRss),
      rows: rows.map((row) => ({
        ...row,
        p50VsBaseline: Math.round((row.p50Ms! / Math.max(1, baseline.p50Ms!)) * 100) / 100,
        p99VsBaseline: Math.round((row.p99Ms! / Math.max(1, baseline.p99Ms!)) * 100) / 100,
      })),
    };
    console.table(report.rows);
    writeResults(file, report);
  } finally {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    if (chain && chain.exitCode === null) chain.kill('SIGTERM');
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
