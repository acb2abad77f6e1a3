import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { pruneOutbox } from '../../src/db/event-outbox.js';
import { MAX_REPLAYED_EVENTS } from '../../src/modules/events/event-hub.js';
import { createApp } from '../../src/server/app.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { signInAs, type SignedIn } from '../support/sessions.js';
import { listen, publishMarker, socketClient, Subscription } from '../support/sockets.js';
import { subscriptionsOpen, until } from '../support/wait.js';

const POOL_UPDATED = `subscription($p: ID!, $after: String) { poolUpdated(poolId: $p, afterSequence: $after) { id status } }`;
const STATUS_MUTATION = `mutation($p: ID!, $s: PoolStatus!) { updatePoolStatus(poolId: $p, status: $s) { id } }`;

/** The event sequence each result carried, in the order they arrived. */
const sequencesOf = (sub: Subscription) =>
  sub.results.map((result) => Number((result.extensions as { eventSequence?: string } | undefined)?.eventSequence));

/**
 * Two gateways (app handles, each with its own connections and LISTEN connection) on one
 * Postgres database, as two replicas are: a subscriber of one receives every event the
 * other writes exactly once, across a cut LISTEN connection and across a reconnect to the
 * other gateway with the last sequence it received.
 */
describe.runIf(Boolean(process.env.TEST_DATABASE_URL))('resuming subscriptions by event sequence, across two gateways', () => {
  let t: TestApp;
  let a: { app: FastifyInstance; url: string; listenerName: string };
  let b: { app: FastifyInstance; url: string; database: Database };
  let admin: SignedIn;
  let pool: tables.PoolRow;
  let status: 'ACTIVE' | 'PREDICTIONS_FROZEN' = 'ACTIVE';

  beforeAll(async () => {
    t = await startEmptyTestApp('postgres');
    const name = new URL(t.url!).pathname.slice(1);
    a = { app: t.app, url: await listen(t), listenerName: `${name}:listener` };
    const database = await openDatabase({ kind: 'postgres', url: t.url!, applicationName: `${name}-b` });
    const app = await createApp({ config: testConfig(), database });
    await app.ready();
    b = { app, database, url: await listen({ app }) };
    const fixture = await t.seed.user().withPool();
    admin = await signInAs(t, fixture.user.id, 'ADMIN');
    pool = fixture.pool!;
  }, 120_000);
  afterAll(async () => {
    await b?.app.close();
    await b?.database.close();
    await t?.close();
  });

  /** One change of the pool, made through gateway B: one poolUpdated event. */
  async function changeThroughB(): Promise<void> {
    status = status === 'ACTIVE' ? 'PREDICTIONS_FROZEN' : 'ACTIVE';
    const response = await b.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: admin.headers,
      payload: { query: STATUS_MUTATION, variables: { p: pool.id, s: status } },
    });
    expect(response.json().errors).toBeUndefined();
  }

  /** The outbox sequences of the pool's poolUpdated events after `after`: what a subscriber must receive. */
  async function writtenAfter(after: number): Promise<number[]> {
    const rows = await t.database.rows<{ seq: string }>(
      sql`SELECT seq FROM event_topics WHERE topic = ${`pool:${pool.id}`} AND seq > ${after} ORDER BY seq`,
    );
    return rows.map((row) => Number(row.seq));
  }

  async function newestSequence(): Promise<number> {
    return Number((await t.gql<{ eventSequence: string }>('{ eventSequence }')).data!.eventSequence);
  }

  /** Terminates gateway A's LISTEN connection (once it listens: it may be coming back from a previous cut). */
  async function cutListenerOfA(): Promise<void> {
    await until(() => t.app.events.listening, 10_000, "A's listener to listen");
    const cut = await t.database.rows<{ ok: boolean }>(
      sql`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = ${a.listenerName}`,
    );
    expect(cut).toEqual([{ ok: true }]);
  }

  it("a subscriber on A receives each of B's events once, in order, while A's LISTEN connection is cut twice mid-stream", async () => {
    const N = 24;
    const start = await newestSequence();
    const client = socketClient(a.url);
    await client.connected;
    const sub = new Subscription(client.client, POOL_UPDATED, { p: pool.id });
    try {
      await subscriptionsOpen(a.app, 1);
      for (let i = 0; i < N; i++) {
        if (i === 8 || i === 16) await cutListenerOfA();
        await changeThroughB();
      }
      await sub.waitFor(N, 15_000);
      const written = await writtenAfter(start);
      expect(written).toHaveLength(N);
      // Nothing more arrives: a later event proves none is merely late.
      await changeThroughB();
      await sub.waitFor(N + 1, 15_000);
      expect(sequencesOf(sub)).toEqual(await writtenAfter(start));
      expect(sub.error).toBeNull();
    } finally {
      await client.dispose();
    }
  });

  it('a subscriber that reconnects to the other gateway with its last sequence receives the missed events once, then live ones', async () => {
    const start = await newestSequence();
    const first = socketClient(a.url);
    await first.connected;
    const before = new Subscription(first.client, POOL_UPDATED, { p: pool.id, after: String(start) });
    await subscriptionsOpen(a.app, 1);
    for (let i = 0; i < 5; i++) await changeThroughB();
    await before.waitFor(5);
    const last = Math.max(...sequencesOf(before));
    await first.dispose();
    await subscriptionsOpen(a.app, 0);

    for (let i = 0; i < 6; i++) await changeThroughB();
    const second = socketClient(b.url);
    await second.connected;
    const after = new Subscription(second.client, POOL_UPDATED, { p: pool.id, after: String(last) });
    try {
      await subscriptionsOpen(b.app, 1);
      for (let i = 0; i < 4; i++) await changeThroughB();
      await after.waitFor(10);
      await changeThroughB();
      await after.waitFor(11);
      const expected = await writtenAfter(start);
      expect(expected).toHaveLength(16);
      expect(sequencesOf(before)).toEqual(expected.slice(0, 5));
      // The 6 missed, replayed from the outbox, then the 5 written once it followed: none twice.
      expect(sequencesOf(after)).toEqual(expected.slice(5));
      expect(after.results.every((result) => result.data?.poolUpdated?.id === pool.id)).toBe(true);
    } finally {
      await second.dispose();
    }
  });

  it("a user's notifications resume by sequence on the other gateway: each missed one once, then live ones, and no one else's", async () => {
    const [owner, other] = [(await t.seed.user()).user, (await t.seed.user()).user];
    const ownerSession = await signInAs(t, owner.id);
    const NOTIFICATIONS = `subscription($after: String) { notifications(afterSequence: $after) { id title } }`;
    const titlesOf = (sub: Subscription) => sub.results.map((r) => (r.data as { notifications: { title: string } }).notifications.title);
    const first = socketClient(a.url, { authorization: `Bearer ${ownerSession.accessToken}` });
    await first.connected;
    const before = new Subscription(first.client, NOTIFICATIONS, {});
    await subscriptionsOpen(a.app, 1);
    await publishMarker(b.database, owner.id, 'one');
    await before.waitFor(1);
    const last = sequencesOf(before)[0]!;
    await first.dispose();
    await subscriptionsOpen(a.app, 0);

    await publishMarker(b.database, other.id, "someone else's");
    await publishMarker(b.database, owner.id, 'two');
    await publishMarker(b.database, owner.id, 'three');
    const second = socketClient(b.url, { authorization: `Bearer ${ownerSession.accessToken}` });
    await second.connected;
    const after = new Subscription(second.client, NOTIFICATIONS, { after: String(last) });
    const both = new Subscription(second.client, `subscription { notifications(resumeAfter: "${owner.id}", afterSequence: "1") { id } }`);
    try {
      await both.waitForEnd();
      expect(((both.results[0]?.errors ?? both.error) as Array<{ extensions: Record<string, unknown> }>)[0]!.extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        argumentName: 'afterSequence',
      });
      await subscriptionsOpen(b.app, 1);
      await publishMarker(b.database, owner.id, 'four');
      await after.waitFor(3);
      await publishMarker(b.database, owner.id, 'five');
      await after.waitFor(4);
      expect(titlesOf(after)).toEqual(['two', 'three', 'four', 'five']);
      const increasing = sequencesOf(after).every((seq, i, all) => seq > last && (i === 0 || seq > all[i - 1]!));
      expect(increasing).toBe(true);
    } finally {
      await second.dispose();
    }
  });

  it('refuses a resume point that is not a sequence, is not written yet, or whose successors were pruned', async () => {
    const client = socketClient(b.url);
    await client.connected;
    const refusal = async (after: string, timeoutMs?: number) => {
      const sub = new Subscription(client.client, POOL_UPDATED, { p: pool.id, after });
      await sub.waitForEnd(timeoutMs);
      const errors = (sub.results[0]?.errors ?? sub.error) as Array<{ extensions: Record<string, unknown> }>;
      return errors[0]!.extensions;
    };
    try {
      expect(await refusal('soon')).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: 'afterSequence' });
      expect(await refusal(String((await newestSequence()) + 1000))).toMatchObject({ code: 'BAD_USER_INPUT' });

      const old = await newestSequence();
      await changeThroughB();
      await changeThroughB();
      await t.database.db.execute(sql`UPDATE event_outbox SET created_at = now() - interval '2 hours'`);
      await changeThroughB();
      expect(await pruneOutbox(t.database.db, 3_600_000)).toBeGreaterThan(0);
      expect(await refusal(String(old))).toMatchObject({ code: 'EVENTS_EXPIRED', argumentName: 'afterSequence' });
      // The newest pruned row's successor is kept: a cursor at the last one pruned still resumes.
      const [kept] = await t.database.rows<{ oldest: string }>(sql`SELECT min(seq) AS oldest FROM event_outbox`);
      const resumed = new Subscription(client.client, POOL_UPDATED, { p: pool.id, after: String(Number(kept!.oldest) - 1) });
      await resumed.waitFor(1);
      expect(sequencesOf(resumed)).toEqual([Number(kept!.oldest)]);
      resumed.unsubscribe();

      // More of the subscription's events after the resume point than one replay sends.
      const behind = await newestSequence();
      // One append of them all: 201 appends one by one took most of the test's time under a full suite's load.
      await b.app.events.publish(
        Array.from({ length: MAX_REPLAYED_EVENTS + 1 }, () => ({ type: 'poolUpdated' as const, poolId: pool.id })),
      );
      // A resume replays up to what its gateway has dispatched; what it has not is delivered live, not refused.
      // Under a full suite's load B's hub dispatched the 201 after the resume had begun, and the subscription
      // rightly went on, so the refusal is asked for once B has dispatched them.
      const newest = await newestSequence();
      await until(() => b.app.events.sequence >= newest, 60_000, "B's hub to dispatch the 201 events");
      expect(await refusal(String(behind), 30_000)).toMatchObject({ code: 'EVENTS_EXPIRED', limit: MAX_REPLAYED_EVENTS });
    } finally {
      await client.dispose();
    }
  }, 90_000);
});

describe.each(backends)('a resume reads its own topic only, on %s', (kind) => {
  let t: TestApp;
  let url: string;
  let admin: SignedIn;
  let pool: tables.PoolRow;

  beforeAll(async () => {
    t = await startEmptyTestApp(kind);
    url = await listen(t);
    const fixture = await t.seed.user().withPool();
    admin = await signInAs(t, fixture.user.id, 'ADMIN');
    pool = fixture.pool!;
  }, 120_000);
  afterAll(() => t?.close());

  let status: 'ACTIVE' | 'PREDICTIONS_FROZEN' = 'ACTIVE';
  async function change(): Promise<void> {
    status = status === 'ACTIVE' ? 'PREDICTIONS_FROZEN' : 'ACTIVE';
    expect((await t.gql(STATUS_MUTATION, { p: pool.id, s: status }, admin.headers)).errors).toBeUndefined();
    // Dispatched here too: the resume replays up to what this process has dispatched.
    const newest = Number((await t.gql<{ eventSequence: string }>('{ eventSequence }')).data!.eventSequence);
    await until(() => t.app.events.sequence >= newest, 60_000, 'the hub to dispatch the newest event');
  }

  /** Events of `count` other pools' topics, written straight into the outbox as an append writes them. */
  async function otherEvents(count: number): Promise<void> {
    await t.database.db.execute(sql`
      WITH written AS (
        INSERT INTO event_outbox (payload)
        SELECT json_build_object('type', 'poolUpdated', 'poolId', gen_random_uuid())::text FROM generate_series(1, ${count})
        RETURNING seq, payload
      )
      INSERT INTO event_topics (topic, seq) SELECT 'pool:' || (payload::json->>'poolId'), seq FROM written`);
  }

  /** The statements one resume after `after` costs, from its subscribe to its `results`th result. */
  async function resume(after: number, results: number): Promise<{ statements: number; statuses: string[] }> {
    const client = socketClient(url);
    await client.connected;
    try {
      let sub!: Subscription;
      const statements = await t.countStatements(async () => {
        sub = new Subscription(client.client, POOL_UPDATED, { p: pool.id, after: String(after) });
        await sub.waitFor(results, 60_000);
      });
      return { statements, statuses: sub.results.map((r) => (r.data as { poolUpdated: { status: string } }).poolUpdated.status) };
    } finally {
      await client.dispose();
    }
  }

  it('costs the same statements with 100,000 other events retained as with none', { timeout: 600_000 }, async () => {
    const start = Number((await t.gql<{ eventSequence: string }>('{ eventSequence }')).data!.eventSequence);
    for (let i = 0; i < 4; i++) await change();
    const few = await resume(start, 4);

    await otherEvents(100_000);
    await change();
    const many = await resume(start, 5);
    console.log(
      `[${kind}] a resume of 4 events with none other retained: ${few.statements} statements; of 5 among 100,000 others: ${many.statements}`,
    );
    expect(many.statuses).toEqual([...few.statuses, few.statuses[2]]);
    expect(many.statements).toBe(few.statements);
    expect(many.statements).toBeLessThanOrEqual(3);
  });
});
