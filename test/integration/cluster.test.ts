import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { EventHub } from '../../src/modules/events/event-hub.js';
import { seedBuilders } from '../support/fixtures/builders.js';
import { metricSample } from '../support/harness.js';
import { ResumingSubscriber } from '../support/resuming-subscriber.js';
import { walletSignIn } from '../support/sessions.js';
import { socketClient, Subscription } from '../support/sockets.js';
import { kitWallet } from '../support/wallets.js';
import { until } from '../support/wait.js';

/**
 * The local cluster of deploy/local-cluster.sh, as it is deployed: 4 replicas started together
 * on an empty database, Redis, a devchain and HAProxy, each a process of its own on ports of
 * the suite's own. Runs where HAProxy is installed and the suite runs as root (the Postgres
 * clusters belong to the postgres user); .ci/run installs HAProxy.
 */
const runnable =
  Boolean(process.env.TEST_DATABASE_URL) && process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v haproxy']).status === 0;
const REPLICAS = 4;
const QUERIES_PER_MINUTE = 20;
// Below Linux's ephemeral range (32768-60999): a port there may be taken at any moment by the
// local end of any connection another suite opens (it once was, a replica's, in a full run).
const base = 20_000 + 100 * (process.pid % 120);
const env = {
  ...process.env,
  CLUSTER_DIR: `/tmp/poolgraph-cluster-test-${process.pid}`,
  CLUSTER_PG_PORT: String(base),
  CLUSTER_REDIS_PORT: String(base + 10),
  CLUSTER_CHAIN_PORT: String(base + 20),
  CLUSTER_HTTP_PORT: String(base + 30),
  CLUSTER_APP_PORT: String(base + 40),
  CLUSTER_QUERIES_PER_MINUTE: String(QUERIES_PER_MINUTE),
};
const cluster = (...args: string[]) => {
  const run = spawnSync('deploy/local-cluster.sh', args, { env, encoding: 'utf8', timeout: 400_000 });
  if (run.status !== 0) throw new Error(`local-cluster.sh ${args.join(' ')} failed:\n${run.stdout}\n${run.stderr}`);
  return run.stdout;
};
const http = `http://127.0.0.1:${env.CLUSTER_HTTP_PORT}`;
const pidOf = (name: string) => Number(readFileSync(`${env.CLUSTER_DIR}/${name}.pid`, 'utf8'));
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
/**
 * One query through the balancer, as the client `client` (HAProxy appends to X-Forwarded-For,
 * the replicas trust loopback proxies): a budget apart from the sockets' 127.0.0.1.
 */
const query = async (text: string, client = '10.1.1.1') =>
  (
    await fetch(`${http}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
      body: JSON.stringify({ query: text }),
    })
  ).status;
/** Queries the replicas have read from the standby so far, summed over their /metrics. */
const standbyReads = async () => {
  let sum = 0;
  for (let i = 0; i < REPLICAS; i++) {
    const text = await (await fetch(`http://127.0.0.1:${Number(env.CLUSTER_APP_PORT) + i}/metrics`)).text();
    sum += metricSample(text, 'poolgraph_database_reads_total', { database: 'standby' });
  }
  return sum;
};

describe.runIf(runnable)('a cluster of 4 replicas behind HAProxy', () => {
  let primary: Database;

  beforeAll(async () => {
    cluster('start', String(REPLICAS));
    primary = await openDatabase({
      kind: 'postgres',
      url: `postgres://postgres@127.0.0.1:${env.CLUSTER_PG_PORT}/poolgraph`,
      applicationName: 'cluster-test',
    });
  }, 420_000);
  afterAll(async () => {
    await primary?.close();
    if (existsSync(env.CLUSTER_DIR)) cluster('stop');
  }, 60_000);

  it('started together on an empty database: every replica is up and ready, each migration applied once', async () => {
    const journal = JSON.parse(readFileSync(new URL('../../schema/migrations/meta/_journal.json', import.meta.url), 'utf8')) as {
      entries: unknown[];
    };
    const [applied] = await primary.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`);
    expect(applied!.n).toBe(journal.entries.length);
    for (let i = 0; i < REPLICAS; i++) {
      expect(alive(pidOf(`replica-${i}`))).toBe(true);
      expect((await fetch(`http://127.0.0.1:${Number(env.CLUSTER_APP_PORT) + i}/readyz`)).status).toBe(200);
    }
  });

  it('queries through the balancer are read from the standby', async () => {
    const before = await standbyReads();
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push(await query('{ pools(first: 1) { totalCount } }', '10.2.2.2'));
    expect(statuses).toEqual(statuses.map(() => 200));
    expect((await standbyReads()) - before).toBeGreaterThan(0);
  });

  it('a write through the balancer is read back through it at once, while the standby replays nothing', async () => {
    const gql = async (text: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}) =>
      (await (
        await fetch(`${http}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.3.3.3', ...headers },
          body: JSON.stringify({ query: text, variables }),
        })
      ).json()) as { data?: any; errors?: unknown[] };
    const session = await walletSignIn(gql as never, await kitWallet());
    const standby = await openDatabase({
      kind: 'postgres',
      url: `postgres://postgres@127.0.0.1:${Number(env.CLUSTER_PG_PORT) + 1}/poolgraph`,
      applicationName: 'cluster-test',
    });
    // Paused, the standby holds none of the writes below: a read that went there would miss them.
    await standby.rows(sql`SELECT pg_wal_replay_pause()`);
    try {
      const before = await standbyReads();
      for (let i = 0; i < 6; i++) {
        const username = `ryw_${i}_${process.pid}`;
        const written = await gql(
          'mutation($i: UpdateProfileInput!) { updateProfile(input: $i) { username } }',
          { i: { username } },
          session.headers,
        );
        expect(written.errors).toBeUndefined();
        const read = await gql('{ viewer { username } }', undefined, session.headers);
        expect(read.errors).toBeUndefined();
        expect(read.data.viewer.username).toBe(username);
      }
      // The writer's reads went to the primary; the standby served none of them.
      expect((await standbyReads()) - before).toBe(0);
    } finally {
      await standby.rows(sql`SELECT pg_wal_replay_resume()`);
      await standby.close();
    }
  });

  /** Backends of the replicas' LISTEN connections that are listening (a new one shows up before its LISTEN has run). */
  const listeners = async () =>
    primary.rows<{ pid: number }>(
      sql`SELECT pid FROM pg_stat_activity WHERE application_name = ${'poolgraph:listener'} AND state = 'idle' AND query LIKE ${'LISTEN %'}`,
    );
  /** Open subscriptions summed over the replicas that answer. */
  const openSubscriptions = async () => {
    let open = 0;
    for (let i = 0; i < REPLICAS; i++) {
      const body = await fetch(`http://127.0.0.1:${Number(env.CLUSTER_APP_PORT) + i}/metrics`).then(
        (r) => r.text(),
        () => '',
      );
      open += Number(/^poolgraph_subscriptions_open (\d+)/m.exec(body)?.[1] ?? 0);
    }
    return open;
  };
  /** The outbox sequences of the pool's poolUpdated events after `after`: what every subscriber must receive. */
  const writtenAfter = async (poolId: string, after: number) =>
    (
      await primary.rows<{ seq: string }>(
        sql`SELECT seq FROM event_topics WHERE topic = ${`pool:${poolId}`} AND seq > ${after} ORDER BY seq`,
      )
    ).map((row) => Number(row.seq));

  // The replicas' LISTEN connections are named poolgraph:listener. Cut a second time before
  // they had all listened again, fewer than the replicas were found (2 of 4): the cut now
  // waits for all of them, and counts only those.
  it('subscribers on every replica receive every event once across cut LISTEN connections', async () => {
    const { pool } = await seedBuilders(primary).user().withPool();
    const start = Number((await primary.rows<{ n: string }>(sql`SELECT coalesce(max(seq), 0) AS n FROM event_outbox`))[0]!.n);
    const clients = Array.from({ length: 8 }, () => socketClient(`ws://127.0.0.1:${env.CLUSTER_HTTP_PORT}/graphql`));
    await Promise.all(clients.map((c) => c.connected));
    const subs = clients.map(
      (c) => new Subscription(c.client, `subscription($p: ID!) { poolUpdated(poolId: $p) { id } }`, { p: pool!.id }),
    );
    try {
      await until(async () => (await openSubscriptions()) === 8, 10_000, '8 open subscriptions');
      const hub = new EventHub(primary);
      for (let i = 0; i < 10; i++) {
        if (i === 3 || i === 7) {
          await until(async () => (await listeners()).length === REPLICAS, 10_000, 'every replica to listen');
          const cut = await primary.rows<{ pid: number }>(
            sql`SELECT pg_terminate_backend(pid), pid FROM pg_stat_activity WHERE application_name = ${'poolgraph:listener'}`,
          );
          expect(cut).toHaveLength(REPLICAS);
        }
        await hub.publish([{ type: 'poolUpdated', poolId: pool!.id }]);
      }
      for (const sub of subs) await sub.waitFor(10, 15_000);
      await hub.publish([{ type: 'poolUpdated', poolId: pool!.id }]);
      for (const sub of subs) await sub.waitFor(11, 15_000);
      const written = await writtenAfter(pool!.id, start);
      expect(written).toHaveLength(11);
      const received = subs.map((sub) => sub.results.map((r) => Number((r.extensions as { eventSequence?: string }).eventSequence)));
      expect(received).toEqual(subs.map(() => written));
    } finally {
      await Promise.all(clients.map((c) => c.dispose()));
    }
  });

  it('one client address through the balancer: accepted queries never exceed the shared limit; with Redis stopped each replica counts alone, nothing fails', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3 * QUERIES_PER_MINUTE; i++) statuses.push(await query('{ pools(first: 1) { totalCount } }'));
    expect(statuses.filter((s) => s === 200)).toHaveLength(QUERIES_PER_MINUTE);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);

    process.kill(pidOf('redis'), 'SIGKILL');
    const during: number[] = [];
    for (let i = 0; i < 3 * QUERIES_PER_MINUTE; i++) during.push(await query('{ pools(first: 1) { totalCount } }'));
    expect(during.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    const accepted = during.filter((s) => s === 200).length;
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThanOrEqual(REPLICAS * QUERIES_PER_MINUTE);
    expect([0, 1, 2, 3].map((i) => alive(pidOf(`replica-${i}`)))).toEqual([true, true, true, true]);
  });

  it('a replica killed with -9 and another stopped gracefully: every query through the balancer is still answered; their subscribers reconnect through it and resume, none losing or repeating an event', async () => {
    const { pool } = await seedBuilders(primary).user().withPool();
    const start = Number((await primary.rows<{ n: string }>(sql`SELECT coalesce(max(seq), 0) AS n FROM event_outbox`))[0]!.n);
    const subscribers = Array.from(
      { length: 12 },
      () => new ResumingSubscriber(`ws://127.0.0.1:${env.CLUSTER_HTTP_PORT}/graphql`, pool!.id, start),
    );
    const hub = new EventHub(primary);
    const N = 30;
    try {
      await until(async () => (await openSubscriptions()) === subscribers.length, 15_000, 'every subscription open');
      for (let i = 0; i < N; i++) {
        if (i === 10) cluster('kill-replica', '0', 'KILL');
        if (i === 20) cluster('kill-replica', '1', 'TERM');
        await hub.publish([{ type: 'poolUpdated', poolId: pool!.id }]);
      }
      const written = await writtenAfter(pool!.id, start);
      expect(written).toHaveLength(N);
      await until(() => subscribers.every((s) => s.sequences.length >= N || s.failure !== null), 60_000, `${N} events at every subscriber`);
      const lost = subscribers.map((s) => written.filter((seq) => !s.sequences.includes(seq)).length);
      const duplicated = subscribers.map((s) => s.sequences.length - new Set(s.sequences).size);
      console.log(
        `cluster resume: ${subscribers.length} subscribers, ${N} events, reconnectAttempts ${subscribers.map((s) => s.reconnectAttempts).join(',')}; ` +
          `lost ${lost.join(',')}; duplicated ${duplicated.join(',')}`,
      );
      expect(subscribers.map((s) => s.failure)).toEqual(subscribers.map(() => null));
      expect(subscribers.map((s) => s.sequences)).toEqual(subscribers.map(() => written));
      // The sockets of the two replicas that went were among them, and came back elsewhere.
      expect(subscribers.some((s) => s.reconnectAttempts > 0)).toBe(true);
    } finally {
      for (const s of subscribers) s.stop();
    }

    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push(await query('{ __typename }'));
    expect(statuses).toEqual(statuses.map(() => 200));
    await until(async () => (await fetch(`${http}/readyz`)).status === 200, 5000);
  });
});
