import { type SQL, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedVariedPools } from '../support/fixtures/varied-pools.js';
import { backends, startEmptyTestApp, type TestApp, testConfig } from '../support/harness.js';
import { type SignedIn, signInAs } from '../support/sessions.js';

/**
 * Every connection of the schema, walked forward (first/after) and backward (last/before)
 * against an oracle: the raw SQL order of the rows, written here independently of the
 * service. Both walks must give the oracle's sequence, and each page's hasPreviousPage and
 * hasNextPage must be exact: at both ends and in the middle, in both directions. The rows
 * are the varied fixture's (support/fixtures/varied-pools.ts: ties on every sort key) and a viewer's
 * notifications and transactions, tied on created_at.
 */

const PAGE_VARIABLES = '$first: Int, $after: String, $last: Int, $before: String';
const PAGE_ARGS = 'first: $first, after: $after, last: $last, before: $before';
const PAGE_FIELDS = 'totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';
const EDGES = `edges { cursor node { id } } ${PAGE_FIELDS}`;

/** One connection: its query (PAGE_VARIABLES and PAGE_ARGS in place), where the connection sits, and its oracle. */
interface Walkable {
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  connection: (data: any) => any;
  /** The ids of a page's edges (a leaderboard entry is its user's). */
  idsOf?: (edges: any[]) => string[];
  oracle: () => Promise<string[]>;
  headers?: () => Record<string, string>;
}

describe.each(backends)('backward paging on every connection, on %s', (kind) => {
  let t: TestApp;
  let viewer: SignedIn;
  let busiestPool: string;
  let busiestStreak: string;
  let creator: string;
  let predictor: string;

  const ids = async (query: SQL) => (await t.database.rows<{ id: string }>(query)).map((row) => row.id);

  async function page(c: Walkable, args: Record<string, unknown>) {
    const response: any = await t.gql(c.query, { ...c.variables, ...args }, c.headers?.());
    expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
    const connection = c.connection(response.data);
    const edges = connection.edges as Array<{ cursor: string }>;
    expect(connection.pageInfo.startCursor).toBe(edges[0]?.cursor ?? null);
    expect(connection.pageInfo.endCursor).toBe(edges.at(-1)?.cursor ?? null);
    return {
      ids: c.idsOf ? c.idsOf(edges) : edges.map((e: any) => e.node.id as string),
      info: connection.pageInfo,
      total: connection.totalCount as number,
    };
  }

  /** Forward from the start and backward from the end, `size` at a time, with the flags each page must show. */
  async function walkBothWays(c: Walkable, size: number) {
    const expected = await c.oracle();
    expect(expected.length, `${c.name}: the oracle has rows to page through`).toBeGreaterThan(size);

    const forward: string[] = [];
    let after: string | null = null;
    for (let n = 0; n < 100; n++) {
      const p = await page(c, { first: size, after });
      forward.push(...p.ids);
      expect(p.total).toBe(expected.length);
      expect(p.info.hasPreviousPage, `${c.name}: forward page ${n} hasPreviousPage`).toBe(n > 0);
      expect(p.info.hasNextPage, `${c.name}: forward page ${n} hasNextPage`).toBe(forward.length < expected.length);
      if (!p.info.hasNextPage) break;
      after = p.info.endCursor;
    }
    expect(forward, `${c.name}: forward walk`).toEqual(expected);

    const backward: string[] = [];
    let before: string | null = null;
    for (let n = 0; n < 100; n++) {
      const p = await page(c, { last: size, before });
      backward.unshift(...p.ids);
      expect(p.ids.length).toBe(Math.min(size, expected.length - (backward.length - p.ids.length)));
      expect(p.info.hasNextPage, `${c.name}: backward page ${n} hasNextPage`).toBe(n > 0);
      expect(p.info.hasPreviousPage, `${c.name}: backward page ${n} hasPreviousPage`).toBe(backward.length < expected.length);
      if (!p.info.hasPreviousPage) break;
      before = p.info.startCursor;
    }
    expect(backward, `${c.name}: backward walk`).toEqual(expected);

    // From the middle: back from a forward page's start, forward from a backward page's end.
    const middle = await page(c, { first: size, after: (await page(c, { first: size })).info.endCursor });
    const back = await page(c, { last: size, before: middle.info.startCursor });
    expect(back.ids).toEqual(expected.slice(0, size));
    expect(back.info).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
    const on = await page(c, { first: size, after: back.info.endCursor });
    expect(on.ids).toEqual(middle.ids);
    expect(on.info).toMatchObject({ hasPreviousPage: true, hasNextPage: expected.length > 2 * size });
  }

  beforeAll(async () => {
    t = await startEmptyTestApp(kind, { config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000' }) });
    const world = await seedVariedPools(t.seed, t.database);
    busiestPool = world.busiestPool.id; // 10 predictions
    busiestStreak = world.streaks[0]!.id; // 8 pools
    creator = world.creators[0]!.id; // 15 pools
    predictor = world.predictors[0]!.id; // 18 predictions, 10 in ended pools
    // A viewer with notifications read and unread and transactions, with ties on created_at.
    const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 12, minutes));
    const inbox = t.seed
      .user()
      .withNotifications(Array.from({ length: 11 }, (_, i) => ({ createdAt: at(i % 4), readAt: i % 3 ? null : at(30) })));
    for (let i = 0; i < 9; i++) inbox.withTransaction({ params: { amount: String(1_000_000 * (i + 1)) }, createdAt: at(i % 3) });
    viewer = await signInAs(t, (await inbox).user.id);
  });
  afterAll(() => t?.close());

  const POOL_SORTS: Record<string, string> = {
    END_DATE: 'prediction_end_date ASC, id ASC',
    CREATION_DATE: 'created_at DESC, id DESC',
    OLD_CREATION_DATE: 'created_at ASC, id ASC',
    VOLUME_HIGH: 'total_volume DESC, id DESC',
    VOLUME_LOW: 'total_volume ASC, id ASC',
  };
  const poolsQuery = (sort: string) =>
    `query(${PAGE_VARIABLES}, $filter: PoolFilter, $search: String) { c: pools(sort: ${sort}, filter: $filter, search: $search, ${PAGE_ARGS}) { ${EDGES} } }`;

  it.each(Object.keys(POOL_SORTS))('pools sorted by %s: every pool, and the ENDED ones', async (sort) => {
    await walkBothWays(
      {
        name: `pools ${sort}`,
        query: poolsQuery(sort),
        connection: (d) => d.c,
        oracle: () => ids(sql.raw(`SELECT id FROM pools ORDER BY ${POOL_SORTS[sort]}`)),
      },
      4,
    );
    await walkBothWays(
      {
        name: `ended pools ${sort}`,
        query: poolsQuery(sort),
        variables: { filter: { status: ['ENDED'] } },
        connection: (d) => d.c,
        oracle: () => ids(sql.raw(`SELECT id FROM pools WHERE prediction_end_date <= now() ORDER BY ${POOL_SORTS[sort]}`)),
      },
      3,
    );
  });

  it('pools found by a search', async () => {
    const [word] = await t.database.rows<{ word: string }>(
      sql`SELECT w AS word FROM pools, regexp_split_to_table(lower(title), '[^a-z0-9]+') w WHERE length(w) > 3 GROUP BY w ORDER BY count(*) DESC, w LIMIT 1`,
    );
    await walkBothWays(
      {
        name: 'search',
        query: poolsQuery('VOLUME_HIGH'),
        variables: { search: word!.word },
        connection: (d) => d.c,
        oracle: () =>
          ids(
            sql`SELECT id FROM pools WHERE search_vector @@ to_tsquery('simple', ${`${word!.word}:*`}) ORDER BY total_volume DESC, id DESC`,
          ),
      },
      2,
    );
  });

  it('streakPools and streak.pools, newest first', async () => {
    const oracle = () => ids(sql`SELECT id FROM pools WHERE streak_id = ${busiestStreak} ORDER BY created_at DESC, id DESC`);
    const variables = { streakId: busiestStreak };
    await walkBothWays(
      {
        name: 'streakPools',
        query: `query(${PAGE_VARIABLES}, $streakId: ID!) { c: streakPools(streakId: $streakId, ${PAGE_ARGS}) { pools { ${EDGES} } } }`,
        variables,
        connection: (d) => d.c.pools,
        oracle,
      },
      2,
    );
    await walkBothWays(
      {
        name: 'streak.pools',
        query: `query(${PAGE_VARIABLES}, $streakId: ID!) { streak(id: $streakId) { pools(${PAGE_ARGS}) { ${EDGES} } } }`,
        variables,
        connection: (d) => d.streak.pools,
        oracle,
      },
      2,
    );
  });

  it('streaks, newest first', async () => {
    await walkBothWays(
      {
        name: 'streaks',
        query: `query(${PAGE_VARIABLES}) { c: streaks(${PAGE_ARGS}) { ${EDGES} } }`,
        connection: (d) => d.c,
        oracle: () => ids(sql`SELECT id FROM streaks ORDER BY created_at DESC, id DESC`),
      },
      1,
    );
  });

  it("pool.predictions through its loader and inside the pools list's one-statement read", async () => {
    const oracle = () => ids(sql`SELECT id FROM predictions WHERE pool_id = ${busiestPool} ORDER BY created_at DESC, id DESC`);
    const variables = { pool: busiestPool };
    await walkBothWays(
      {
        name: 'pool(id).predictions',
        query: `query(${PAGE_VARIABLES}, $pool: ID!) { pool(id: $pool) { predictions(${PAGE_ARGS}) { ${EDGES} } } }`,
        variables,
        connection: (d) => d.pool.predictions,
        oracle,
      },
      3,
    );
    const planned = `query(${PAGE_VARIABLES}) { pools(sort: CREATION_DATE, first: 100) { nodes { id predictions(${PAGE_ARGS}) { ${EDGES} } } } }`;
    await walkBothWays(
      {
        name: 'pools.predictions (read plan)',
        query: planned,
        connection: (d) => d.pools.nodes.find((p: any) => p.id === busiestPool).predictions,
        oracle,
      },
      3,
    );
  });

  it("a user's pools and predictions, in every sort and filter", async () => {
    await walkBothWays(
      {
        name: 'user.pools',
        query: `query(${PAGE_VARIABLES}, $user: ID!) { user(id: $user) { pools(${PAGE_ARGS}) { ${EDGES} } } }`,
        variables: { user: creator },
        connection: (d) => d.user.pools,
        oracle: () => ids(sql`SELECT id FROM pools WHERE created_by = ${creator} ORDER BY created_at DESC, id DESC`),
      },
      2,
    );
    const orders: Record<string, string> = {
      NEWEST: 'c.created_at DESC, c.id DESC',
      OLDEST: 'c.created_at ASC, c.id ASC',
      STAKE_HIGH: 'c.stake DESC, c.id DESC',
      STAKE_LOW: 'c.stake ASC, c.id ASC',
    };
    for (const [sort, order] of Object.entries(orders)) {
      for (const filter of [null, 'ENDED']) {
        const where = filter ? ' AND p.prediction_end_date <= now()' : '';
        await walkBothWays(
          {
            name: `user.predictions ${sort} ${filter ?? ''}`,
            query: `query(${PAGE_VARIABLES}, $user: ID!, $filter: PredictionFilter) { user(id: $user) { predictions(sort: ${sort}, filter: $filter, ${PAGE_ARGS}) { ${EDGES} } } }`,
            variables: { user: predictor, filter },
            connection: (d) => d.user.predictions,
            oracle: () =>
              ids(
                sql.raw(
                  `SELECT c.id FROM predictions c JOIN pools p ON p.id = c.pool_id WHERE c.user_id = '${predictor}'${where} ORDER BY ${order}`,
                ),
              ),
          },
          2,
        );
      }
    }
  });

  it("the viewer's notifications, all, read and unread, and transactions", async () => {
    for (const [filter, where] of [
      [null, ''],
      ['READ', ' AND read_at IS NOT NULL'],
      ['UNREAD', ' AND read_at IS NULL'],
    ] as const) {
      await walkBothWays(
        {
          name: `notifications ${filter ?? 'all'}`,
          query: `query(${PAGE_VARIABLES}, $filter: NotificationFilter) { viewer { notifications(filter: $filter, ${PAGE_ARGS}) { ${EDGES} } } }`,
          variables: { filter },
          headers: () => viewer.headers,
          connection: (d) => d.viewer.notifications,
          oracle: () =>
            ids(sql.raw(`SELECT id FROM notifications WHERE user_id = '${viewer.userId}'${where} ORDER BY created_at DESC, id DESC`)),
        },
        filter === 'READ' ? 1 : 3,
      );
    }
    await walkBothWays(
      {
        name: 'transactions',
        query: `query(${PAGE_VARIABLES}) { viewer { transactions(${PAGE_ARGS}) { ${EDGES} } } }`,
        headers: () => viewer.headers,
        connection: (d) => d.viewer.transactions,
        oracle: () => ids(sql`SELECT id FROM chain_submissions WHERE user_id = ${viewer.userId} ORDER BY created_at DESC, id DESC`),
      },
      2,
    );
  });

  it.each(['PAYOUT', 'PRECISION'])('the leaderboard by %s', async (by) => {
    const metric = by === 'PAYOUT' ? 'payout' : 'score_sum / scored_count';
    await walkBothWays(
      {
        name: `leaderboard ${by}`,
        query: `query(${PAGE_VARIABLES}) { c: leaderboard(by: ${by}, ${PAGE_ARGS}) { edges { cursor node { user { id } } } ${PAGE_FIELDS} } }`,
        connection: (d) => d.c,
        idsOf: (edges) => edges.map((e) => e.node.user.id),
        oracle: () => ids(sql.raw(`SELECT user_id AS id FROM leaderboard_totals ORDER BY ${metric} DESC, user_id`)),
      },
      3,
    );
  });

  it('refuses mixed directions, offsets going backward, sizes out of range and cursors of another order', async () => {
    const first = (await t.gql(`{ pools(sort: END_DATE, first: 2) { pageInfo { endCursor } } }`)).data.pools.pageInfo.endCursor as string;
    const refused: Array<[string, string]> = [
      [`pools(first: 2, last: 2)`, 'last'],
      [`pools(after: "${first}", before: "${first}")`, 'before'],
      [`pools(first: 2, before: "${first}")`, 'before'],
      [`pools(last: 2, after: "${first}")`, 'after'],
      [`pools(last: 2, offset: 3)`, 'offset'],
      [`pools(last: 0)`, 'last'],
      [`pools(last: 101)`, 'last'],
      [`pools(sort: VOLUME_LOW, last: 2, before: "${first}")`, 'before'],
    ];
    for (const [field, argument] of refused) {
      let response!: Awaited<ReturnType<TestApp['gql']>>;
      expect(await t.countStatements(async () => (response = await t.gql(`{ ${field} { nodes { id } } }`))), field).toBe(0);
      expect(response.errors, field).toHaveLength(1);
      expect(response.errors?.[0]?.extensions?.code, field).toBe('BAD_USER_INPUT');
      expect(response.errors?.[0]?.extensions?.argumentName, field).toBe(argument);
      expect(response.errors?.[0]?.message, field).toMatch(argument);
    }
  });
});
