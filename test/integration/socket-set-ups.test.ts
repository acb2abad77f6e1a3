import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startEmptyTestApp, type TestApp, testConfig } from '../support/harness.js';
import { walletSignIn } from '../support/sessions.js';
import { listen } from '../support/sockets.js';
import { openSubscriptions, subscriptionsOpen, until } from '../support/wait.js';
import { kitWallet } from '../support/wallets.js';

/**
 * Sockets' set-ups wait their turn (SOCKET_SET_UPS_AT_ONCE, src/server/websocket/set-up-queue.ts):
 * with the table a set-up reads locked, every set-up blocks on the lock, so the set-ups
 * waiting there are the ones the queue let through. Postgres only: PGlite has one connection,
 * which the lock would hold.
 */
describe.runIf(process.env.TEST_DATABASE_URL)('socket set-ups, at most SOCKET_SET_UPS_AT_ONCE at once', () => {
  const AT_ONCE = 2;
  let t: TestApp;
  let url: string;
  let token: string;
  let poolId: string;
  beforeAll(async () => {
    t = await startEmptyTestApp('postgres', { config: testConfig({ SOCKET_SET_UPS_AT_ONCE: String(AT_ONCE) }) });
    url = await listen(t);
    ({ accessToken: token } = await walletSignIn(t.gql, await kitWallet()));
    ({
      pool: { id: poolId },
    } = (await t.seed.user().withPool()) as { pool: { id: string } });
  });
  afterAll(() => t?.close());

  /** Statements waiting for the lock on `table`. */
  const waitingOn = async (table: string) =>
    (
      await t.database.rows<{ n: number }>(
        sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'
          and query like ${`%${table}%`} and pid <> pg_backend_pid()`,
      )
    )[0]!.n;

  /** A socket open, and the set-up it starts when told to. */
  interface Prepared {
    ws: WebSocket;
    /** Sends what starts its set-up. */
    start(): void;
    /** Whether its set-up succeeded, once it ends. */
    done: Promise<boolean>;
  }

  /** A socket that, once started, sends `message`; `done` judges the first message it gets back after. */
  async function prepared(message: object, done: (answer: { type: string }) => boolean, ws?: WebSocket): Promise<Prepared> {
    const socket = ws ?? new WebSocket(url, 'graphql-transport-ws');
    if (!ws) await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    let started = false;
    const outcome = new Promise<boolean>((resolve) => {
      socket.on('message', (data) => started && resolve(done(JSON.parse(String(data)) as { type: string })));
      socket.on('close', () => resolve(false));
    });
    return {
      ws: socket,
      start() {
        started = true;
        socket.send(JSON.stringify(message));
      },
      done: outcome,
    };
  }

  /** A socket whose set-up is connection_init with the session's token: done on connection_ack. */
  const signedIn = () =>
    prepared({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } }, (answer) => answer.type === 'connection_ack');

  /** An anonymous socket, acknowledged, whose set-up is a subscription to the pool's updates (it reads the pool); done at once (counted open after). */
  async function subscriber(): Promise<Prepared> {
    const anonymous = await prepared({ type: 'connection_init' }, (answer) => answer.type === 'connection_ack');
    anonymous.start();
    expect(await anonymous.done).toBe(true);
    const query = 'subscription($p: ID!) { poolUpdated(poolId: $p) { id } }';
    const subscribing = await prepared(
      { id: '1', type: 'subscribe', payload: { query, variables: { p: poolId } } },
      () => true,
      anonymous.ws,
    );
    return { ...subscribing, done: Promise.resolve(true) };
  }

  /**
   * With `table` locked: AT_ONCE sockets' set-ups reach the lock, then `queued` more start
   * theirs and close while they wait; the lock is released. Whether the first set-ups
   * succeeded, the statements run from just before the release until all is quiet, and the
   * subscriptions open then.
   */
  async function lockedSetUps(table: string, prepare: () => Promise<Prepared>, queued: number, opens = 0) {
    const first = await Promise.all(Array.from({ length: AT_ONCE }, prepare));
    const waiting = await Promise.all(Array.from({ length: queued }, prepare));
    let before = 0;
    await t.database.db.transaction(async (tx) => {
      await tx.execute(sql`lock table ${sql.raw(table)} in access exclusive mode`);
      for (const socket of first) socket.start();
      await until(async () => (await waitingOn(table)) === AT_ONCE, 10_000, 'the first set-ups to reach the lock');
      // More set-ups: they wait in the queue, not on the database.
      for (const socket of waiting) socket.start();
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await waitingOn(table)).toBe(AT_ONCE);
      // They give up while they wait: closed, each with the server's answering close frame.
      await Promise.all(waiting.map(({ ws }) => new Promise((resolve) => ws.once('close', resolve).close(1000))));
      before = t.database.statementCount - t.app.events.backgroundStatements;
    });
    const done = await Promise.all(first.map((socket) => socket.done));
    // A subscription's set-up has no answer of its own: it is done once its subscription is open.
    if (opens) await subscriptionsOpen(t.app, opens);
    // A turn for whatever else would run.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const statements = t.database.statementCount - t.app.events.backgroundStatements - before;
    const subscribed = await openSubscriptions(t.app);
    await Promise.all(first.map(({ ws }) => new Promise((resolve) => ws.once('close', resolve).close(1000))));
    await subscriptionsOpen(t.app, 0);
    return { done, statements, subscribed };
  }

  it('checks no more credentials at once than allowed, and none of a socket that closed while it waited', async () => {
    const alone = await lockedSetUps('refresh_tokens', signedIn, 0);
    const withQueued = await lockedSetUps('refresh_tokens', signedIn, 3);
    // The lock released, the checks that waited on it answer and their sockets are acknowledged.
    expect(alone.done).toEqual([true, true]);
    expect(withQueued.done).toEqual([true, true]);
    // The three that closed in the queue cost nothing: as many statements as with none queued.
    expect(withQueued.statements).toBe(alone.statements);
  });

  it('acknowledges an anonymous connection_init at once, while the queue is full of credential checks', async () => {
    const first = await Promise.all(Array.from({ length: AT_ONCE }, signedIn));
    await t.database.db.transaction(async (tx) => {
      await tx.execute(sql`lock table refresh_tokens in access exclusive mode`);
      for (const socket of first) socket.start();
      await until(async () => (await waitingOn('refresh_tokens')) === AT_ONCE, 10_000, 'the checks to fill the queue');
      const anonymous = await prepared({ type: 'connection_init' }, (answer) => answer.type === 'connection_ack');
      anonymous.start();
      // Acknowledged while the checks still wait on the lock: it took no turn behind them.
      const acknowledged = await Promise.race([anonymous.done, new Promise((resolve) => setTimeout(resolve, 3_000, 'still waiting'))]);
      expect(acknowledged).toBe(true);
      expect(await waitingOn('refresh_tokens')).toBe(AT_ONCE);
      anonymous.ws.close(1000);
    });
    expect(await Promise.all(first.map((socket) => socket.done))).toEqual([true, true]);
    await Promise.all(first.map(({ ws }) => new Promise((resolve) => ws.once('close', resolve).close(1000))));
  });

  it('opens no more subscriptions at once than allowed, and none of a socket that closed while it waited', async () => {
    const alone = await lockedSetUps('pools', subscriber, 0, AT_ONCE);
    const withQueued = await lockedSetUps('pools', subscriber, 3, AT_ONCE);
    // The two that waited on the lock open; the three that closed in the queue neither open nor cost a statement.
    expect([alone.subscribed, withQueued.subscribed]).toEqual([AT_ONCE, AT_ONCE]);
    expect(withQueued.statements).toBe(alone.statements);
  });
});
