import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { operationNameHeader } from '../../src/server/apollo-plugins.js';
import { createApp } from '../../src/server/app.js';
import { backends, renderedReadsServed, startTestApp, testConfig, type TestApp } from '../support/harness.js';
import { openSession } from '../../src/modules/auth/session.service.js';

/**
 * On /graphql a bearer token's session is read by the operation itself: as the guard of a
 * rendered read's one statement, else alone before anything runs. With a deployment plugin
 * configured it is read before the operation, in the credentials step, as it always was:
 * that server is the reference here. Every operation, with every way a session ends, must
 * be answered the same by both, spend nothing of the user's budget, and write nothing.
 */
const FAILURES_PER_ADDRESS = 3;
const QUERIES_PER_MINUTE = 50;
const config = testConfig({
  SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: String(FAILURES_PER_ADDRESS),
  RATE_LIMIT_QUERIES_PER_MINUTE: String(QUERIES_PER_MINUTE),
});

const OPERATIONS = {
  /** Every root field a column of one statement: the session guards it. */
  guarded: '{ viewer { id username } unreadNotificationCount }',
  /** Rendered, a list alone: its page's statement carries the session's check (and, ending, computes nothing). */
  list: '{ pools(first: 2) { nodes { id viewerPrediction { id } } } }',
  /** Rendered, but a list runs its own statement beside the shared one: the session is read first. */
  renderedWithList: '{ viewer { id } pools(first: 1) { nodes { id } } }',
  /** Not rendered (`rateLimit` is not a read of the database): executed after the session is read. */
  executed: '{ viewer { id } rateLimit { remaining } }',
  mutation: 'mutation { markAllNotificationsRead }',
};

interface Session {
  headers: Record<string, string>;
}

const unreadOf = (t: TestApp, userId: string) =>
  t.database.query<{ n: number }>('SELECT count(*)::int AS n FROM notifications WHERE user_id = $1 AND read_at IS NULL', [userId]);

describe.each(backends)('a bearer token session read by its operation, on %s', (kind) => {
  let t: TestApp;
  let reference: FastifyInstance;
  let userId: string;
  let address = 0;

  beforeAll(async () => {
    t = await startTestApp(kind, { config });
    reference = await createApp({ config, database: t.database, plugins: [operationNameHeader()] });
    const [chosen] = await t.database.query<{ user_id: string }>(
      'SELECT user_id FROM notifications WHERE read_at IS NULL GROUP BY user_id ORDER BY count(*) DESC, user_id LIMIT 1',
      [],
    );
    userId = chosen!.user_id;
  });
  afterAll(async () => {
    await reference.close();
    await t.close();
  });

  /** Each test's requests come from an address of their own, so failure budgets start full. */
  const nextAddress = () => `198.51.100.${++address}`;

  const send = async (app: FastifyInstance, query: string, headers: Record<string, string>, remoteAddress: string) => {
    const response = await app.inject({ method: 'POST', url: '/graphql', remoteAddress, headers, payload: { query } });
    return {
      status: response.statusCode,
      body: response.json() as { data?: any; errors?: Array<{ extensions: Record<string, unknown> }> },
      retryAfter: response.headers['retry-after'] ?? null,
      rateLimit: response.headers.ratelimit ?? null,
    };
  };

  /** A session of the user as the wallet sign-in opens one once its signature is checked (sign-ins share the failures' budget here). */
  const signIn = async (): Promise<Session> => {
    const [user] = await t.database.db.select().from(tables.users).where(eq(tables.users.id, userId));
    const { accessToken } = await openSession(t.database.db, config.auth, user!, new Date());
    return { headers: { authorization: `Bearer ${accessToken}` } };
  };

  /** When a request was sent and answered, in ms of the test's clock. */
  type Span = { sent: number; done: number };
  /** The seconds between a server's first request and a later one, at least and at most. */
  const elapsedSeconds = (first: Span, now: Span) => [(now.sent - first.done) / 1000, (now.done - first.sent) / 1000] as const;

  /** A response with its seconds to wait (header, extension, message) left out. */
  const withoutWait = (response: Awaited<ReturnType<typeof send>>) =>
    JSON.parse(
      JSON.stringify({ ...response, retryAfter: response.retryAfter !== null })
        .replace(/retry after \d+/g, 'retry after N')
        .replace(/"retryAfter":\d+/g, '"retryAfter":"N"'),
    );

  const remainingOf = async (session: Session) => {
    const response = await send(t.app, '{ rateLimit { remaining } }', session.headers, nextAddress());
    return response.body.data.rateLimit.remaining as number;
  };

  const endings: Record<string, (session: Session) => Promise<unknown>> = {
    'signed out': (session) => t.gql('mutation { signOut }', undefined, session.headers),
    'its role changed under it': () => t.database.db.update(tables.users).set({ role: 'ADMIN' }).where(eq(tables.users.id, userId)),
    'its row deleted': () => t.database.db.delete(tables.refreshTokens).where(eq(tables.refreshTokens.userId, userId)),
  };

  it.each(Object.keys(endings))('answers a session %s as the credentials step does, spending and writing nothing', async (ending) => {
    await t.database.db.update(tables.users).set({ role: 'USER' }).where(eq(tables.users.id, userId));
    const ended = await signIn();
    const live = await signIn();
    await endings[ending]!(ended);
    // A session of the user that is still live, to read the user's budget with.
    const fresh = ending === 'signed out' ? live : await signIn();
    const [unreadBefore] = await unreadOf(t, userId);
    const budgetBefore = await remainingOf(fresh);

    for (const [name, query] of Object.entries(OPERATIONS)) {
      const [ours, theirs] = [nextAddress(), nextAddress()];
      let firstOurs: Span | undefined;
      let firstTheirs: Span | undefined;
      // Past the address's failure budget too: RATE_LIMITED with Retry-After, on both.
      for (let attempt = 0; attempt <= FAILURES_PER_ADDRESS; attempt++) {
        const oursSpan = { sent: Date.now(), done: 0 };
        const answered = await send(t.app, query, ended.headers, ours);
        oursSpan.done = Date.now();
        const theirsSpan = { sent: Date.now(), done: 0 };
        const expected = await send(reference, query, ended.headers, theirs);
        theirsSpan.done = Date.now();
        firstOurs ??= oursSpan;
        firstTheirs ??= theirsSpan;
        expect(withoutWait(answered), `${name}, attempt ${attempt}`).toEqual(withoutWait(expected));
        if (answered.retryAfter !== null) {
          // Each server's failure window opened during its own first failure: the two waits differ
          // by how much longer one window has run, within a second of what the requests' times allow
          // (a machine that stalls between the two servers' requests moves them apart).
          const [oursMin, oursMax] = elapsedSeconds(firstOurs, oursSpan);
          const [theirsMin, theirsMax] = elapsedSeconds(firstTheirs, theirsSpan);
          const difference = Number(answered.retryAfter) - Number(expected.retryAfter);
          expect(difference, `${name}, attempt ${attempt}`).toBeGreaterThanOrEqual(theirsMin - oursMax - 1);
          expect(difference, `${name}, attempt ${attempt}`).toBeLessThanOrEqual(theirsMax - oursMin + 1);
        }
        expect(answered.body.data, name).toBeUndefined();
        expect(answered.rateLimit, name).toBeNull();
        expect(answered.body.errors![0]!.extensions.code, name).toBe(attempt < FAILURES_PER_ADDRESS ? 'UNAUTHENTICATED' : 'RATE_LIMITED');
      }
    }
    expect(await unreadOf(t, userId)).toEqual([unreadBefore]);
    // Reading the budget is free: the refused operations took nothing from the user's budget either.
    expect(await remainingOf(fresh)).toBe(budgetBefore);
  });

  it('reads a live session within the rendered statement, and runs the others once it is read', async () => {
    const session = await signIn();
    for (const [name, query] of Object.entries(OPERATIONS)) {
      if (name === 'mutation') continue;
      const ours = await send(t.app, query, session.headers, nextAddress());
      const expected = await send(reference, query, session.headers, nextAddress());
      expect(ours.status, name).toBe(200);
      expect(ours.body.errors, name).toBeUndefined();
      // The budget differs by what this test spent on each server; the data does not.
      expect(JSON.stringify(ours.body.data).replace(/"remaining":\d+/, ''), name).toBe(
        JSON.stringify(expected.body.data).replace(/"remaining":\d+/, ''),
      );
    }
    const renderedBefore = await renderedReadsServed(t.app);
    const statements = await t.countStatements(() => send(t.app, OPERATIONS.guarded, session.headers, nextAddress()));
    expect((await renderedReadsServed(t.app)) - renderedBefore).toBe(1);
    expect(statements).toBe(1);
    // Read first: the session check, then the list's own statement beside the shared one.
    expect(await t.countStatements(() => send(t.app, OPERATIONS.renderedWithList, session.headers, nextAddress()))).toBe(3);
    // A list alone: its one statement reads the session too.
    expect(await t.countStatements(() => send(t.app, OPERATIONS.list, session.headers, nextAddress()))).toBe(1);
  });

  it('reads the session before anything else where a deployment plugin could see the viewer first', async () => {
    const session = await signIn();
    const before = t.database.statementCount;
    const response = await send(reference, OPERATIONS.guarded, session.headers, nextAddress());
    expect(response.status).toBe(200);
    // The credentials step's check, then the page: two statements where the plugin-free server runs one.
    expect(t.database.statementCount - before).toBe(2);
  });
});
