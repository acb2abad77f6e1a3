import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { type Database, type Db, openDatabase } from '../../src/db/client.js';
import { outboxTail, pruneOutbox, readOutbox } from '../../src/db/event-outbox.js';
import { EventHub } from '../../src/modules/events/event-hub.js';
import type { EventPublisher } from '../../src/modules/events/events.js';
import type { ServiceContext } from '../../src/modules/context.js';
import { createLoaders } from '../../src/modules/loaders.js';
import { updatePoolStatus } from '../../src/modules/pools/operator.service.js';
import { backends, startEmptyTestApp, type TestApp } from '../support/harness.js';
import { signInAs } from '../support/sessions.js';
import { until } from '../support/wait.js';

describe.each(backends)('the event outbox on %s', (kind) => {
  let t: TestApp;
  let pool: tables.PoolRow;

  beforeAll(async () => {
    t = await startEmptyTestApp(kind);
    pool = (await t.seed.user().withPool()).pool!;
  });
  afterAll(() => t?.close());

  /** A started hub on `database`, and the outbox sequence of each poolUpdated event of the test's pool it dispatched. */
  async function follow(database: Database) {
    const hub = new EventHub(database);
    await hub.start();
    const received: number[] = [];
    hub.on({ pool: pool.id }, () => received.push(hub.sequence));
    return { hub, received };
  }

  it('an event written in a transaction is dispatched if and only if the transaction commits', async () => {
    const { hub, received } = await follow(t.database);
    try {
      await t.database.db
        .transaction(async (tx) => {
          await hub.publishIn(tx as unknown as Db, [{ type: 'poolUpdated', poolId: pool.id }]);
          throw new Error('rolled back');
        })
        .catch(() => {});
      await t.database.db.transaction(async (tx) => hub.publishIn(tx as unknown as Db, [{ type: 'poolUpdated', poolId: pool.id }]));
      await until(() => received.length >= 1);
      // A later event proves the rolled-back one is not merely late.
      await hub.publish([{ type: 'poolUpdated', poolId: pool.id }]);
      await until(() => received.length >= 2);
      expect(received).toHaveLength(2);
      expect(received[1]).toBeGreaterThan(received[0]!);
    } finally {
      await hub.stop();
    }
  });

  it('prunes rows older than the retention, and only those', async () => {
    const tail = await outboxTail(t.database.db);
    expect(tail).toBeGreaterThan(1);
    // Nothing old yet: nothing goes.
    expect(await pruneOutbox(t.database.db, 3_600_000)).toBe(0);
    expect((await readOutbox(t.database.db, 0, 100)).length).toBeGreaterThan(1);
    await t.database.db.execute(sql`UPDATE event_outbox SET created_at = now() - interval '2 hours' WHERE seq <= ${tail}`);
    await t.database.db.insert(tables.eventOutbox).values({ payload: '{}' });
    expect(await pruneOutbox(t.database.db, 3_600_000)).toBeGreaterThan(0);
    expect((await readOutbox(t.database.db, 0, 100)).map((row) => row.seq)).toEqual([tail + 1]);
  });

  // Postgres only: two handles on one database, as two replicas are. (Run on PGlite, this
  // test had no server URL, so its handles opened the server's default database and the cut
  // was looked for in PGlite's own pg_stat_activity: 0 rows.) The second cut waits for the
  // listener to be back: cut again while it reconnects, there is no connection to find.
  it.runIf(kind === 'postgres')(
    'a replica whose LISTEN connection is cut receives every event another replica wrote meanwhile, once, in order',
    async () => {
      const [a, b] = await Promise.all(
        ['replica-a', 'replica-b'].map((name) =>
          openDatabase({ kind: 'postgres', url: t.url!, applicationName: `${name}-${process.pid}` }),
        ),
      );
      const { hub, received } = await follow(a!);
      const publisher = new EventHub(b!);
      const cutListener = async () => {
        await until(() => hub.listening, 10_000, 'the listener to listen');
        const cut = await t.database.rows<{ ok: boolean }>(
          sql`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = ${`replica-a-${process.pid}:listener`}`,
        );
        expect(cut).toEqual([{ ok: true }]);
        await until(() => !hub.listening, 5000, 'the listener to notice');
      };
      try {
        const first = await outboxTail(t.database.db);
        for (let i = 0; i < 10; i++) {
          if (i === 3 || i === 7) await cutListener();
          await publisher.publish([{ type: 'poolUpdated', poolId: pool.id }]);
        }
        await until(() => received.length >= 10, 10_000, '10 events');
        // One more proves none of the 10 is merely late.
        await publisher.publish([{ type: 'poolUpdated', poolId: pool.id }]);
        await until(() => received.length >= 11, 10_000, 'the 11th event');
        // Every one of the 11, once each, in the order they were written.
        expect(received).toEqual(Array.from({ length: 11 }, (_, i) => first + i + 1));
      } finally {
        await hub.stop();
        await Promise.all([a!.close(), b!.close()]);
      }
    },
  );

  it("a service's change and its events commit together: rolled back, no event; committed, exactly its own", async () => {
    const admin = (await t.seed.user({ role: 'ADMIN' })).user;
    const outboxRows = async () => (await t.database.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM event_outbox`))[0]!.n;
    const statusOf = async () => (await t.database.db.select().from(tables.pools).where(eq(tables.pools.id, pool.id)))[0]!.status;
    const contextWith = (events: EventPublisher) =>
      ({
        database: t.database,
        events,
        viewer: { userId: admin.id, role: 'ADMIN', sessionId: null, apiKeyId: null },
        loaders: createLoaders(t.database.db),
        clientAddress: '127.0.0.1',
        now: new Date(),
      }) as unknown as ServiceContext;
    // A fault injected after the outbox write: the transaction it shares with the change rolls back.
    const failingAfterWrite: EventPublisher = {
      publish: (events) => t.app.events.publish(events),
      publishIn: async (tx, events) => {
        await t.app.events.publishIn(tx, events);
        throw new Error('fault injected after the outbox write');
      },
    };
    const rowsBefore = await outboxRows();
    const statusBefore = await statusOf();
    await expect(updatePoolStatus(contextWith(failingAfterWrite), { poolId: pool.id, status: 'PREDICTIONS_FROZEN' })).rejects.toThrow(
      'fault injected',
    );
    expect(await outboxRows()).toBe(rowsBefore);
    expect(await statusOf()).toBe(statusBefore);

    const tail = await outboxTail(t.database.db);
    await updatePoolStatus(contextWith(t.app.events), { poolId: pool.id, status: 'PREDICTIONS_FROZEN' });
    expect(await statusOf()).toBe('PREDICTIONS_FROZEN');
    const written = await readOutbox(t.database.db, tail, 100);
    expect(written.map((row) => JSON.parse(row.payload) as unknown)).toEqual([
      { type: 'poolUpdated', poolId: pool.id, pool: expect.objectContaining({ id: pool.id, status: 'PREDICTIONS_FROZEN' }) },
    ]);
  });

  it('each change writes exactly its own events with it, and one that changes nothing writes none', async () => {
    const user = (await t.seed.user({ role: 'ADMIN' })).user;
    const admin = await signInAs(t, user.id, 'ADMIN');
    /** The events `work` wrote to the outbox, as their messages. */
    const eventsOf = async (work: () => Promise<{ errors?: unknown }>) => {
      const tail = await outboxTail(t.database.db);
      const response = await work();
      expect(response.errors).toBeUndefined();
      return (await readOutbox(t.database.db, tail, 100)).map((row) => JSON.parse(row.payload) as unknown);
    };
    const gql = (query: string, variables?: Record<string, unknown>) => () => t.gql(query, variables, admin.headers);

    expect(
      await eventsOf(gql('mutation($p: ID!) { updatePoolStatus(poolId: $p, status: PREDICTIONS_FROZEN) { id } }', { p: pool.id })),
    ).toEqual([{ type: 'poolUpdated', poolId: pool.id, pool: expect.objectContaining({ status: 'PREDICTIONS_FROZEN' }) }]);
    expect(await eventsOf(gql('mutation($p: ID!) { updatePoolImage(poolId: $p, imageId: null) { id } }', { p: pool.id }))).toEqual([
      { type: 'poolUpdated', poolId: pool.id, pool: expect.objectContaining({ id: pool.id, imageId: null }) },
    ]);

    let keyId = '';
    expect(
      await eventsOf(async () => {
        const created = await t.gql<{ createApiKey: { key: { id: string } } }>(
          'mutation { createApiKey(name: "outbox") { key { id } } }',
          {},
          admin.headers,
        );
        keyId = created.data!.createApiKey.key.id;
        return created;
      }),
    ).toEqual([]);
    expect(await eventsOf(gql('mutation($id: ID!) { revokeApiKey(id: $id) { id } }', { id: keyId }))).toEqual([
      { type: 'apiKeyRevoked', apiKeyId: keyId },
    ]);

    await t.database.db
      .insert(tables.notifications)
      .values({ userId: user.id, type: 'REWARD_CLAIMED', title: 't', message: 'm', data: {} });
    expect(await eventsOf(gql('mutation { markAllNotificationsRead }'))).toEqual([{ type: 'notificationsRead', userId: user.id }]);
    expect(await eventsOf(gql('mutation { markAllNotificationsRead }'))).toEqual([]);

    const [session] = await t.database.db.select().from(tables.refreshTokens).where(eq(tables.refreshTokens.userId, user.id));
    expect(await eventsOf(gql('mutation { signOut }'))).toEqual([{ type: 'sessionRevoked', sessionId: session!.id }]);
  });

  it.runIf(kind === 'postgres')('/readyz answers 503 while the event listener is down, 200 once it listens again', async () => {
    const ready = async () => (await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode;
    expect(await ready()).toBe(200);
    await t.database.rows(
      sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE ${'%:listener'} AND datname = current_database()`,
    );
    const seen = new Set<number>();
    await until(
      async () => {
        seen.add(await ready());
        return seen.has(503);
      },
      5000,
      '503',
    );
    await until(async () => (await ready()) === 200, 10_000, '200 again');
  });
});
