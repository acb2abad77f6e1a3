import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import type { Db } from '../../src/db/client.js';
import { outboxTail } from '../../src/db/event-outbox.js';
import { EventHub } from '../../src/modules/events/event-hub.js';
import type { CommittedEvent } from '../../src/modules/events/events.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { type Replica, startReplica } from '../support/replica.js';
import { signInAs, type SignedIn } from '../support/sessions.js';
import { listen, socketClient, Subscription } from '../support/sockets.js';
import { subscriptionsOpen, until } from '../support/wait.js';

const STATUS_MUTATION = `mutation($p: ID!, $s: PoolStatus!) { updatePoolStatus(poolId: $p, status: $s) { id status } }`;
const POOL_UPDATED = `subscription($p: ID!, $after: String) {
  poolUpdated(poolId: $p, afterSequence: $after) { id status totalVolume user { username } }
}`;
/** A read the load repeats: the pools with their creators and predictions, as a page shows them. */
const LOAD_READ = `{ pools(first: 20) { id status totalVolume user { username } predictions(first: 5) { id } } }`;
/** Ten states, each different from the one before it: the subscriber must see each, in this order. */
const STATES = [
  'PREDICTIONS_FROZEN',
  'ACTIVE',
  'CLAIMS_FROZEN',
  'ACTIVE',
  'FROZEN',
  'ACTIVE',
  'PREDICTIONS_FROZEN',
  'CLAIMS_FROZEN',
  'FROZEN',
  'ACTIVE',
] as const;

interface PoolResult {
  poolUpdated: { id: string; status: string; totalVolume: number; user: { username: string } };
}

describe.each(backends)('events carry what their change committed, on %s', (kind) => {
  let t: TestApp;
  let admin: SignedIn;
  let pool: tables.PoolRow;
  let creator: tables.UserRow;
  let firstUrl: string;
  /** Postgres: a second gateway process on the same database; PGlite has one process only. */
  let replica: Replica | null = null;

  beforeAll(async () => {
    t = await startEmptyTestApp(kind, { config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000' }) });
    firstUrl = await listen(t);
    const fixture = await t.seed.user().withPool();
    creator = fixture.user;
    admin = await signInAs(t, fixture.user.id, 'ADMIN');
    pool = fixture.pool!;
    if (kind === 'postgres') replica = await startReplica(t.url!);
  }, 300_000);
  afterAll(async () => {
    await replica?.stop();
    await t?.close();
  });

  /** The gateways' GraphQL over HTTP: this process's and, on Postgres, the replica's. */
  const endpoints = () => [`${firstUrl.replace(/^ws/, 'http')}`, ...(replica ? [`${replica.http}/graphql`] : [])];
  const post = async (endpoint: string, query: string, variables: Record<string, unknown> = {}) => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...admin.headers },
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as { data?: unknown; errors?: unknown };
  };

  it('a subscriber on each replica sees every one of ten quick changes made across replicas under load, in order, once each', async () => {
    const sockets = endpoints().map((endpoint) => socketClient(endpoint.replace(/^http/, 'ws')));
    await Promise.all(sockets.map((s) => s.connected));
    const before = await outboxTail(t.database.db);
    const subscribers = sockets.map((s) => new Subscription<PoolResult>(s.client, POOL_UPDATED, { p: pool.id }));
    await subscriptionsOpen(t.app, 1);
    if (replica) await subscriptionsOpen(replica.http, 1);

    // Load: reads looping on every gateway while the changes are made, so each event's delivery lags its change.
    let loading = true;
    const load = endpoints().flatMap((endpoint) =>
      Array.from({ length: 3 }, async () => {
        while (loading) await post(endpoint, LOAD_READ).catch(() => {});
      }),
    );
    // Each change is sent as soon as the one before it answered, alternating gateways.
    try {
      for (const [i, status] of STATES.entries()) {
        const endpoint = endpoints()[i % endpoints().length]!;
        const answer = await post(endpoint, STATUS_MUTATION, { p: pool.id, s: status });
        expect(answer.errors).toBeUndefined();
      }
    } finally {
      loading = false;
      await Promise.all(load);
    }

    // One change more, once the others answered: a duplicate of any of them would come before it.
    await post(endpoints()[0]!, STATUS_MUTATION, { p: pool.id, s: 'FROZEN' });
    for (const subscriber of subscribers) {
      const results = await subscriber.waitFor(STATES.length + 1, 30_000);
      expect(results.map((r) => r.data?.poolUpdated.status ?? r.errors)).toEqual([...STATES, 'FROZEN']);
      expect(results.every((r) => r.data?.poolUpdated.user.username === creator.username)).toBe(true);
      const sequences = results.map((r) => Number((r.extensions as { eventSequence: string }).eventSequence));
      expect(sequences.every((seq, i) => seq > before && (i === 0 || seq > sequences[i - 1]!))).toBe(true);
    }

    // A replay shows the same states as the live delivery did, though the pool has moved on since.
    const replayed = new Subscription<PoolResult>(sockets.at(-1)!.client, POOL_UPDATED, { p: pool.id, after: String(before) });
    await replayed.waitFor(STATES.length + 1, 30_000);
    expect(replayed.results.map((r) => r.data?.poolUpdated.status ?? r.errors)).toEqual([...STATES, 'FROZEN']);

    for (const s of subscribers) s.unsubscribe();
    replayed.unsubscribe();
    await Promise.all(sockets.map((s) => s.dispose()));
  }, 120_000);

  it('an event holds the row as its transaction committed it, exactly (an int8 past 2^53), whatever happens after', async () => {
    const hub = new EventHub(t.database);
    await hub.start();
    const received: CommittedEvent[] = [];
    hub.on({ pool: pool.id }, (event) => received.push(event));
    try {
      const volume = 2n ** 60n + 1n;
      await t.database.db.transaction(async (tx) => {
        await tx.execute(sql`UPDATE pools SET total_volume = ${volume.toString()}::bigint, status = 'CLAIMS_FROZEN' WHERE id = ${pool.id}`);
        await hub.publishIn(tx as unknown as Db, [{ type: 'poolUpdated', poolId: pool.id }]);
      });
      await t.database.db.execute(sql`UPDATE pools SET total_volume = 0, status = 'ACTIVE' WHERE id = ${pool.id}`);
      await until(() => received.length >= 1);
      const [event] = received;
      expect(event?.type).toBe('poolUpdated');
      const carried = event?.type === 'poolUpdated' ? event.pool : null;
      expect(carried?.totalVolume).toBe(volume);
      expect(carried?.status).toBe('CLAIMS_FROZEN');
      expect(carried?.createdAt).toEqual(pool.createdAt);
    } finally {
      await hub.stop();
    }
  });
});
