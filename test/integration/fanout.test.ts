import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { startReplica } from '../support/replica.js';
import { signInAs, type SignedIn } from '../support/sessions.js';
import { listen, socketClient, Subscription } from '../support/sockets.js';
import { subscriptionsOpen, until } from '../support/wait.js';

const STATUS_MUTATION = `mutation($p: ID!, $s: PoolStatus!) { updatePoolStatus(poolId: $p, status: $s) { id status } }`;
const POOL_UPDATED = `subscription($p: ID!) { poolUpdated(poolId: $p) { id status } }`;

/** The listener connections of this database's gateways (one per process). */
/**
 * The backends of the processes' LISTEN connections; with `listening`, only those whose LISTEN
 * has run (a connection shows up here before its LISTEN does, and a NOTIFY in between is not
 * delivered to it).
 */
async function listenerBackends(t: TestApp, listening = false): Promise<number[]> {
  const rows = await t.database.rows<{ pid: number }>(
    sql`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE '%:listener'
      AND (NOT ${listening} OR (state = 'idle' AND query LIKE 'LISTEN %'))`,
  );
  return rows.map((row) => Number(row.pid));
}

const describeOnPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

describeOnPostgres('fan-out across replicas through Postgres LISTEN/NOTIFY', () => {
  let t: TestApp;
  let admin: SignedIn;
  let pool: tables.PoolRow;
  let replica: Awaited<ReturnType<typeof startReplica>>;
  let firstUrl: string;

  beforeAll(async () => {
    t = await startEmptyTestApp('postgres', { config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000' }) });
    firstUrl = await listen(t);
    // The rows needed: an admin, and the open pool whose status they change.
    const fixture = await t.seed.user().withPool();
    admin = await signInAs(t, fixture.user.id, 'ADMIN');
    pool = fixture.pool!;
    expect(pool.status).toBe('ACTIVE');
    replica = await startReplica(t.url!);
  }, 300_000);
  afterAll(async () => {
    await replica?.stop();
    await t?.close();
  });

  it('holds one listener connection per process, whatever the number of subscribers', async () => {
    const clients = Array.from({ length: 5 }, () => socketClient(replica.url));
    await Promise.all(clients.map((c) => c.connected));
    const subs = clients.map((c) => new Subscription(c.client, POOL_UPDATED, { p: pool.id }));
    await subscriptionsOpen(replica.http, 5);
    expect(await listenerBackends(t)).toHaveLength(2);
    for (const sub of subs) sub.unsubscribe();
    await Promise.all(clients.map((c) => c.dispose()));
  });

  // Delivery, not its speed: latency is measured by bench:subscribers, never timed in a test (a loaded CI machine is slow at will).
  it('delivers an event caused by a mutation on the other replica', async () => {
    const client = socketClient(replica.url, { authorization: `Bearer ${admin.accessToken}` });
    await client.connected;
    const sub = new Subscription(client.client, POOL_UPDATED, { p: pool.id });
    await subscriptionsOpen(replica.http, 1);
    const changed = await t.gql(STATUS_MUTATION, { p: pool.id, s: 'PREDICTIONS_FROZEN' }, admin.headers);
    expect(changed.errors).toBeUndefined();
    const [received] = await sub.waitFor(1, 10_000);
    expect(received!.data).toEqual({ poolUpdated: { id: pool.id, status: 'PREDICTIONS_FROZEN' } });
    await client.dispose();
  });

  it('re-subscribes by itself after its database connection is killed, and delivery resumes', async () => {
    // The last test's change reached this process through its own listener, maybe not yet: a subscription opened here before
    // its dispatch would receive it (it follows from what this process had dispatched), so wait until it has.
    const written = Number(await t.app.events.newestSequence());
    await until(async () => t.app.events.sequence >= written, 10_000, 'the earlier events dispatched here');
    const client = socketClient(firstUrl);
    await client.connected;
    const sub = new Subscription(client.client, POOL_UPDATED, { p: pool.id });
    await subscriptionsOpen(t.app, 1);

    const before = await listenerBackends(t);
    expect(before).toHaveLength(2);
    await t.database.rows(
      sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid IN (${sql.join(
        before.map((pid) => sql`${pid}`),
        sql`, `,
      )})`,
    );
    // Both processes' listeners come back on new connections, and listen again.
    let after: number[] = [];
    await until(
      async () => {
        after = await listenerBackends(t, true);
        return after.length === 2 && after.every((pid) => !before.includes(pid));
      },
      10_000,
      'two new listener connections',
    ).catch(() => {});
    expect(after).toHaveLength(2);
    expect(after.some((pid) => before.includes(pid))).toBe(false);

    const changed = await t.gql(STATUS_MUTATION, { p: pool.id, s: 'ACTIVE' }, admin.headers);
    expect(changed.errors).toBeUndefined();
    const [received] = await sub.waitFor(1, 2000);
    expect(received!.data).toEqual({ poolUpdated: { id: pool.id, status: 'ACTIVE' } });
    await client.dispose();
  });
});
