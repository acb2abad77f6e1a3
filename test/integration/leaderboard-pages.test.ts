import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, resultRows } from '../../src/db/client.js';
import { encodeCursor } from '../../src/modules/common/pagination.js';
import { seedDemoData } from '../../src/seed/index.js';
import { createApp } from '../../src/server/app.js';
import { backends, createTestDatabase, gqlOf, startEmptyTestApp, type TestApp, type TestDatabase, testConfig } from '../support/harness.js';
import { type RecordedStatement, recordingDatabase } from '../support/recording-database.js';
import { signInAs } from '../support/sessions.js';

/** How many users the board gets beyond the seed's: more than any page reads. */
const BOARD_USERS = 2_000;

/**
 * Users on a board beyond the seed's, with ties on both metrics (every payout shared by four
 * users, every mean precision by five), so pages and counts meet ties: on the ALL board's
 * rows, or with daily rows of today (UTC) only, on every window's board once it is built.
 */
async function addBoardUsers(database: Database, count: number, tag: string, rows: 'ALL' | 'today' = 'ALL'): Promise<void> {
  const [table, day] =
    rows === 'ALL'
      ? [sql`leaderboard_totals (user_id,`, sql``]
      : [sql`leaderboard_daily (user_id, day,`, sql`(now() AT TIME ZONE 'UTC')::date,`];
  await database.db.execute(sql`
    WITH added AS (
      INSERT INTO users (username, wallet_address)
      SELECT ${tag} || '_' || g, ${tag} || '_wallet_' || g FROM generate_series(1, ${count}::int) g
      RETURNING id, username)
    INSERT INTO ${table} payout, staked, score_sum, scored_count, decimals)
    SELECT id, ${day} (n % ${Math.ceil(count / 4)}::int) * 1000, 5000, (n % ${Math.ceil(count / 5)}::int) * 3, 3, 6
    FROM (SELECT id, split_part(username, '_', 2)::int AS n FROM added) a`);
}

const boardSize = async (database: Database) =>
  resultRows<{ kept: number; counted: number }>(
    await database.db.execute(
      sql`SELECT (SELECT users FROM leaderboard_size) AS kept, (SELECT count(*)::int FROM leaderboard_totals) AS counted`,
    ),
  )[0]!;

describe.each(backends)('the ALL board’s size is kept, not counted, on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startEmptyTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('follows every way a user comes onto the board or leaves it: the seed’s rebuild, an insert, a deleted user', async () => {
    await seedDemoData(t.database, { users: 60, pools: 20, streaks: 1, seed: 11 });
    const seeded = await boardSize(t.database);
    expect(seeded.counted).toBeGreaterThan(0);
    expect(seeded.kept).toBe(seeded.counted);
    await addBoardUsers(t.database, 40, 'more');
    expect(await boardSize(t.database)).toEqual({ kept: seeded.counted + 40, counted: seeded.counted + 40 });
    await t.database.db.execute(sql`DELETE FROM users WHERE username IN ('more_1', 'more_2', 'more_3')`);
    expect(await boardSize(t.database)).toEqual({ kept: seeded.counted + 37, counted: seeded.counted + 37 });
    const { data, errors } = await t.gql('{ leaderboard(first: 1) { totalCount } }');
    expect(errors).toBeUndefined();
    expect(data.leaderboard.totalCount).toBe(seeded.counted + 37);
  });
});

describe.each(backends)('a window’s board is kept as of the day it is read, on %s', (kind) => {
  let t: TestApp;
  let now = new Date();
  const DAY_MS = 86_400_000;
  beforeAll(async () => {
    t = await startEmptyTestApp(kind, { clock: () => now });
    await seedDemoData(t.database, { users: 80, pools: 60, streaks: 2, seed: 5, now });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The MONTH board as of `at`, summed from the daily rows (the oracle): user ids best first, with their ranks. */
  const oracle = async (at: Date) =>
    resultRows<{ user_id: string; rank: number }>(
      await t.database.db.execute(sql`
        SELECT user_id, rank() OVER (ORDER BY sum(payout) DESC)::int AS rank FROM leaderboard_daily
        WHERE day > ${at.toISOString().slice(0, 10)}::date - 30 GROUP BY user_id ORDER BY sum(payout) DESC, user_id`),
    ).map((row) => ({ id: row.user_id, rank: row.rank }));

  const board = async () => {
    const { data, errors } = await t.gql('{ leaderboard(period: MONTH, first: 100) { totalCount nodes { rank user { id } } } }');
    expect(errors).toBeUndefined();
    return {
      total: data.leaderboard.totalCount as number,
      entries: data.leaderboard.nodes.map((node: { rank: number; user: { id: string } }) => ({ id: node.user.id, rank: node.rank })),
    };
  };

  it('is read in one statement on the day it is kept as of, and built at its first read when the day moves either way', async () => {
    // The seed built it as of its day, the clock's.
    const today = await oracle(now);
    expect(today.length).toBeGreaterThan(5);
    const read = await t.countStatements(async () => expect(await board()).toEqual({ total: today.length, entries: today }));
    expect(read).toBe(1);

    // Twenty days on, the days that left the window are gone from it: its first read builds it
    // (a transaction of its own, and the page read again), the next reads it in one statement.
    const start = now;
    now = new Date(start.getTime() + 20 * DAY_MS);
    const later = await oracle(now);
    expect(later).not.toEqual(today);
    const building = await t.countStatements(async () => expect(await board()).toEqual({ total: later.length, entries: later }));
    expect(building).toBeGreaterThan(read + 2);
    expect(await t.countStatements(board)).toBe(1);

    // And back: built as of that day again.
    now = start;
    expect(await board()).toEqual({ total: today.length, entries: today });
    expect(await t.countStatements(board)).toBe(1);
  });

  it('answers readers that come together on a new day alike, and the window they build keeps its size', async () => {
    now = new Date(now.getTime() + 3 * DAY_MS);
    const expected = await oracle(now);
    const answers = await Promise.all(Array.from({ length: 6 }, board));
    for (const answer of answers) expect(answer).toEqual({ total: expected.length, entries: expected });
    const [window] = resultRows<{ as_of: string; users: number; kept: number }>(
      await t.database.db.execute(
        sql`SELECT as_of::text AS as_of, users, (SELECT count(*)::int FROM leaderboard_window_totals WHERE period = 'MONTH') AS kept FROM leaderboard_windows WHERE period = 'MONTH'`,
      ),
    );
    expect(window).toEqual({ as_of: now.toISOString().slice(0, 10), users: expected.length, kept: expected.length });
  });
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

/** Rows every scan of `table` in the plan returned, over all its loops. */
function rowsRead(node: PlanNode, table: string): number {
  const own = node['Relation Name'] === table ? node['Actual Rows'] * node['Actual Loops'] : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child, table), 0);
}

/**
 * A page of a board (the ALL board's, a window's) reads its own entries from the metric's
 * index, and counts no more than lies above it: EXPLAIN ANALYZE of the very statement the
 * service sends, on a board of some 2,000 users, adds up the rows its scans of the board's
 * kept rows return, the planner
 * discouraged from sequential scans and sorts (recordingDatabase): the question is whether
 * the statement CAN be served by the index. Postgres only (EXPLAIN's plan).
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('a page of a board reads its entries, not the board, on postgres', () => {
  let test: TestDatabase;
  let database: Database;
  let statements: RecordedStatement[];
  let closeDatabase: () => Promise<void>;
  let app: Awaited<ReturnType<typeof createApp>>;
  /** The same service with every operation executed (RENDERED_READS=false): the resolvers' reads. */
  let executor: Awaited<ReturnType<typeof createApp>>;

  beforeAll(async () => {
    test = await createTestDatabase('postgres');
    await seedDemoData(test.database, { users: 150, pools: 90, streaks: 3, seed: 7 });
    await addBoardUsers(test.database, BOARD_USERS, 'board');
    await addBoardUsers(test.database, BOARD_USERS, 'window', 'today');
    // Daily rows written directly, as a bulk load does: the windows are built again at their first reads.
    await test.database.db.execute(sql`UPDATE leaderboard_windows SET as_of = NULL`);
    ({ database, statements, close: closeDatabase } = await recordingDatabase(test.url!, ['enable_seqscan', 'enable_sort']));
    app = await createApp({ config: testConfig(), database });
    await app.ready();
    executor = await createApp({ config: testConfig({ RENDERED_READS: 'false' }), database });
    await executor.ready();
  });
  afterAll(async () => {
    await app?.close();
    await executor?.close();
    await closeDatabase?.();
    await test?.drop();
  });

  /**
   * The rows of its kept board the board's statement reads for a page (the ALL board's unless
   * `period` says), the page's ranks and the viewer's entry; asked of `server` (the app,
   * rendering its reads, unless said).
   */
  async function readPage(
    by: string,
    page: string,
    options: { viewer?: { headers: Record<string, string>; selection: string }; period?: string; server?: typeof app } = {},
  ): Promise<{ read: number; ranks: number[]; viewerEntry?: { rank: number } | null }> {
    const { viewer, period = 'ALL', server = app } = options;
    statements.length = 0;
    const response = await server.inject({
      method: 'POST',
      url: '/graphql',
      payload: { query: `{ leaderboard(period: ${period}, by: ${by}, ${page}) { totalCount nodes { rank } ${viewer?.selection ?? ''} } }` },
      headers: viewer?.headers ?? {},
    });
    const { data, errors } = response.json();
    expect(errors, response.body).toBeUndefined();
    expect(data.leaderboard.totalCount).toBeGreaterThan(BOARD_USERS);
    const table = period === 'ALL' ? 'leaderboard_totals' : 'leaderboard_window_totals';
    const board = statements.filter((s) => s.text.includes(table));
    expect(board).toHaveLength(1);
    const [row] = await database.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${board[0]!.text}`,
      board[0]!.params,
    );
    return {
      read: rowsRead(row!['QUERY PLAN'][0]!.Plan, table),
      ranks: data.leaderboard.nodes.map((node: { rank: number }) => node.rank),
      viewerEntry: data.leaderboard.viewerEntry,
    };
  }

  /**
   * The board's last `count` entries, last first, each ranked over the whole board (the
   * oracle): the ALL board's from its rows, a window's summed from the daily rows of its days.
   */
  const lastOfBoard = (by: string, count: number, windowDays: number | null = null) => {
    const metric = by === 'PAYOUT' ? 'payout' : '(score_sum / scored_count)';
    const rows =
      windowDays === null
        ? 'leaderboard_totals'
        : '(SELECT user_id, sum(payout) AS payout, sum(score_sum) AS score_sum, sum(scored_count) AS scored_count FROM leaderboard_daily ' +
          `WHERE day > (now() AT TIME ZONE 'UTC')::date - ${windowDays} GROUP BY user_id) w`;
    return database.query<{ user_id: string; rank: number }>(
      `SELECT user_id, rank FROM (SELECT user_id, rank() OVER (ORDER BY ${metric} DESC)::int AS rank, ` +
        `row_number() OVER (ORDER BY ${metric} DESC, user_id) AS position FROM ${rows}) board ` +
        `ORDER BY position DESC LIMIT ${count}`,
      [],
    );
  };

  it.each(['rendered', 'executed'])('signed in, the viewer’s standing is counted only when the page asks for it: %s', async (how) => {
    const server = how === 'rendered' ? app : executor;
    // The viewer: the board's last user by payout, its standing the deepest count there is.
    const [last] = await lastOfBoard('PAYOUT', 1);
    const { headers } = await signInAs({ database: test.database, gql: gqlOf(server) } as TestApp, last!.user_id);
    const without = await readPage('PAYOUT', 'first: 5', { viewer: { headers, selection: '' }, server });
    expect(without.read).toBeLessThanOrEqual(5 + 1);
    // Asked through a fragment, under @include: the selection as the walk collects it.
    const selection = '... on LeaderboardConnection { viewerEntry @include(if: true) { rank } }';
    const asked = await readPage('PAYOUT', 'first: 5', { viewer: { headers, selection }, server });
    expect(asked.viewerEntry).toEqual({ rank: last!.rank });
    expect(asked.read).toBeGreaterThan(BOARD_USERS);
  });

  it.each(['PAYOUT', 'PRECISION'])('by %s: the first page reads its own entries', async (by) => {
    const { read, ranks } = await readPage(by, 'first: 5');
    expect(ranks[0]).toBe(1);
    expect(read).toBeLessThanOrEqual(5 + 1);
  });

  it.each(['PAYOUT', 'PRECISION'])('by %s: the board’s last page reads its own entries, from the index’s end', async (by) => {
    const { read, ranks } = await readPage(by, 'last: 5');
    const expected = await lastOfBoard(by, 5);
    expect(ranks).toEqual(expected.map((row) => row.rank).reverse());
    // Its first rank counts those at or below it, the page's entries and their ties above it.
    expect(read).toBeLessThanOrEqual(2 * 5 + 10);
  });

  it.each(['PAYOUT', 'PRECISION'])('by %s: a page 500 entries down reads what lies above it and itself', async (by) => {
    const cursor = encodeCursor(`LEADERBOARD_ALL_${by}`, '500', '00000000-0000-0000-0000-000000000000');
    const { read, ranks } = await readPage(by, `first: 5, after: "${cursor}"`);
    expect(ranks).toHaveLength(5);
    // The entries above the page (skipped by the index scan), the first value's ties among them (counted for its rank), and the page.
    expect(read).toBeLessThanOrEqual(500 + 5 + 10);
  });

  it.each(['PAYOUT', 'PRECISION'])(
    'by %s: a window’s page, once the window is built, reads its own entries as the ALL board’s does',
    async (by) => {
      // The first read of the day builds the window (and reads the whole of its days once).
      const built = await app.inject({
        method: 'POST',
        url: '/graphql',
        payload: { query: `{ leaderboard(period: MONTH, by: ${by}, first: 1) { totalCount } }` },
      });
      expect(built.json().errors).toBeUndefined();
      const first = await readPage(by, 'first: 5', { period: 'MONTH' });
      expect(first.ranks[0]).toBe(1);
      expect(first.read).toBeLessThanOrEqual(5 + 1);
      const last = await readPage(by, 'last: 5', { period: 'MONTH' });
      expect(last.ranks).toEqual((await lastOfBoard(by, 5, 30)).map((row) => row.rank).reverse());
      expect(last.read).toBeLessThanOrEqual(2 * 5 + 10);
    },
  );
});
