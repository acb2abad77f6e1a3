import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { resultRows } from '../../src/db/client.js';
import { TestKeypairWallet } from '../support/chain-fixture.js';
import { seedVariedPools, type VariedPools } from '../support/fixtures/varied-pools.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { type SignedIn, signInWith } from '../support/operator-fixture.js';

const PERIODS = { DAY: 1, WEEK: 7, MONTH: 30, ALL: null } as const;
const tokens = (units: string | bigint) => Number(BigInt(units)) / 1e6;

/** Against the varied fixture (support/fixtures/varied-pools.ts): rewards resolved in every leaderboard period, with ties on both metrics. */
describe.each(backends)('leaderboard, pool statistics and public profiles on %s', (kind) => {
  let t: TestApp;
  let world: VariedPools;
  let admin: SignedIn;
  let viewer: SignedIn;
  let viewerSeededId: string;

  beforeAll(async () => {
    t = await startEmptyTestApp(kind, { config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000' }) });
    world = await seedVariedPools(t.seed, t.database);
    const adminWallet = new TestKeypairWallet();
    const first = await signInWith(t.gql, adminWallet);
    await t.database.db.update(tables.users).set({ role: 'ADMIN' }).where(eq(tables.users.id, first.userId));
    admin = await signInWith(t.gql, adminWallet);
    // The viewer is a predictor with rewards in some periods only (predictor 3: this week and before, not today).
    viewerSeededId = world.predictors[3]!.id;
    const wallet = new TestKeypairWallet();
    await t.database.db.update(tables.users).set({ walletAddress: wallet.address }).where(eq(tables.users.id, viewerSeededId));
    viewer = await signInWith(t.gql, wallet);
    expect(viewer.userId).toBe(viewerSeededId);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The board computed straight from rewards, predictions and resolutions (not from the aggregate). */
  async function oracle(days: number | null, by: 'PAYOUT' | 'PRECISION') {
    const window =
      days === null ? sql`true` : sql`(res.created_at AT TIME ZONE 'UTC')::date > (now() AT TIME ZONE 'UTC')::date - ${days}::int`;
    const metric = by === 'PAYOUT' ? sql`sum(r.amount)` : sql`sum(r.precision_score) / count(*)`;
    return resultRows<{ user_id: string; payout: string; n: number; rank: number }>(
      await t.database.db.execute(sql`
        SELECT p.user_id, sum(r.amount)::text AS payout, count(*)::int AS n, rank() OVER (ORDER BY ${metric} DESC)::int AS rank
        FROM rewards r JOIN predictions p ON p.id = r.prediction_id JOIN resolutions res ON res.pool_id = p.pool_id
        WHERE r.type = 'REWARD' AND ${window}
        GROUP BY p.user_id ORDER BY ${metric} DESC, p.user_id`),
    ).map((row) => ({ userId: row.user_id, rank: row.rank, payout: tokens(row.payout), predictionCount: row.n }));
  }

  async function walkBoard(period: string, by: string, pageSize: number, headers = viewer.headers) {
    const seen: Array<{ userId: string; rank: number; payout: number; predictionCount: number }> = [];
    let viewerEntry: unknown;
    let total = -1;
    let after: string | null = null;
    for (;;) {
      const response: { data?: any; errors?: unknown } = await t.gql(
        `query($p: LeaderboardPeriod, $b: LeaderboardMetric, $f: Int, $a: String) { leaderboard(period: $p, by: $b, first: $f, after: $a) {
          totalCount pageInfo { hasNextPage endCursor } viewerEntry { rank user { id } }
          nodes { rank payout predictionCount precision user { id } } } }`,
        { p: period, b: by, f: pageSize, a: after },
        headers,
      );
      expect(response.errors).toBeUndefined();
      const board = response.data.leaderboard;
      total = board.totalCount;
      viewerEntry = board.viewerEntry;
      seen.push(
        ...board.nodes.map((n: any) => ({ userId: n.user.id, rank: n.rank, payout: n.payout, predictionCount: n.predictionCount })),
      );
      if (!board.pageInfo.hasNextPage) break;
      after = board.pageInfo.endCursor;
    }
    return { seen, total, viewerEntry };
  }

  async function expectBoardsMatchOracle() {
    for (const [period, days] of Object.entries(PERIODS)) {
      for (const by of ['PAYOUT', 'PRECISION'] as const) {
        const expected = await oracle(days, by);
        const { seen, total, viewerEntry } = await walkBoard(period, by, 7);
        expect(seen, `${period} ${by}`).toEqual(expected);
        expect(total).toBe(expected.length);
        const mine = expected.find((e) => e.userId === viewerSeededId);
        expect(viewerEntry, `${period} ${by} viewer`).toEqual(mine ? { rank: mine.rank, user: { id: viewerSeededId } } : null);
      }
    }
  }

  it('ranks users as an oracle over the raw rewards does, for every period and metric, with the viewer’s own rank', async () => {
    const sizes = Object.fromEntries(
      await Promise.all(Object.entries(PERIODS).map(async ([period, days]) => [period, (await oracle(days, 'PAYOUT')).length])),
    );
    expect(sizes, 'the fixture ranks more users the longer the period').toEqual({ DAY: 3, WEEK: 5, MONTH: 6, ALL: 10 });
    await expectBoardsMatchOracle();
  });

  it('stays current when a pool is resolved through the API', async () => {
    // An ended, unresolved pool of the fixture with 4 predictions, the viewer's among them (the viewer had none today).
    const pool = world.pools[3]!;
    const placed = await t.database.db.select().from(tables.predictions).where(eq(tables.predictions.poolId, pool.id));
    expect(placed.map((p) => p.userId)).toContain(viewerSeededId);
    expect(placed).toHaveLength(4);
    const before = (await oracle(1, 'PAYOUT')).map((e) => e.userId);
    expect(before).not.toContain(viewerSeededId);
    const rewards = placed.map((p, i) => ({
      predictionId: p.id,
      amount: i === 0 ? 0.5 : 0,
      precisionScore: i === 0 ? 0.9 : 0.25,
      type: 'REWARD',
    }));
    const resolved = await t.gql(
      `mutation($i: ResolvePoolInput!) { resolvePool(input: $i) { id } }`,
      { i: { poolId: pool.id, result: 1, rewards } },
      admin.headers,
    );
    expect(resolved.errors).toBeUndefined();
    const today = await oracle(1, 'PAYOUT');
    expect(today.map((e) => e.userId).sort()).toEqual([...new Set([...before, ...placed.map((p) => p.userId)])].sort());
    await expectBoardsMatchOracle();
  });

  it('serves a page of the board in a number of statements that does not depend on its size', async () => {
    const query = (first: number) =>
      `{ leaderboard(first: ${first}) { totalCount viewerEntry { rank } nodes { rank payout precision user { username } } } }`;
    const small = await t.countStatements(() => t.gql(query(2), undefined, viewer.headers));
    const large = await t.countStatements(() => t.gql(query(100), undefined, viewer.headers));
    expect(large).toBe(small);
    const signedOut = await t.gql(`{ leaderboard(first: 3) { totalCount viewerEntry { rank } nodes { rank } } }`);
    expect(signedOut.errors).toBeUndefined();
    expect(signedOut.data.leaderboard.viewerEntry).toBeNull();
    expect(signedOut.data.leaderboard.nodes).toHaveLength(3);
  });

  it('computes pool statistics as an oracle does, in statements that do not depend on the number of pools', async () => {
    const BUCKETS = 7;
    const { data, errors } = await t.gql(
      `{ pools(first: 30, sort: VOLUME_HIGH) { nodes { id minOutcome maxOutcome precision statistics(buckets: ${BUCKETS}) { predictionCount totalStake stakeWeightedMedian buckets { from to count stake } } } } }`,
    );
    expect(errors).toBeUndefined();
    let checked = 0;
    for (const pool of data.pools.nodes) {
      const rows = (await t.database.db.select().from(tables.predictions).where(eq(tables.predictions.poolId, pool.id))).sort(
        (a, b) => a.prediction - b.prediction,
      );
      const stats = pool.statistics;
      expect(stats.predictionCount).toBe(rows.length);
      const total = rows.reduce((s, r) => s + r.stake, 0n);
      expect(stats.totalStake).toBe(tokens(total));
      let below = 0n;
      const median = rows.find((r) => 2n * (below += r.stake) >= total);
      expect(stats.stakeWeightedMedian).toBe(median ? median.prediction : null);
      // Bucket of each value, in exact integers at the pool's precision.
      const scale = 10 ** pool.precision;
      const [lo, hi] = [BigInt(Math.round(pool.minOutcome * scale)), BigInt(Math.round(pool.maxOutcome * scale))];
      const counts = Array.from({ length: BUCKETS }, () => ({ count: 0, stake: 0n }));
      for (const r of rows) {
        const v = BigInt(Math.round(r.prediction * scale));
        const bucket = Math.min(Number(((v - lo) * BigInt(BUCKETS)) / (hi - lo)), BUCKETS - 1);
        counts[bucket]!.count++;
        counts[bucket]!.stake += r.stake;
      }
      expect(stats.buckets.map((b: any) => ({ count: b.count, stake: b.stake }))).toEqual(
        counts.map((c) => ({ count: c.count, stake: tokens(c.stake) })),
      );
      expect(stats.buckets[0].from).toBe(pool.minOutcome);
      expect(stats.buckets[BUCKETS - 1].to).toBe(pool.maxOutcome);
      if (rows.length > 1) checked++;
    }
    expect(checked, 'pools of the fixture with more than one prediction').toBe(13);

    const query = (first: number) =>
      `{ pools(first: ${first}) { nodes { statistics { predictionCount stakeWeightedMedian buckets { count } } } } }`;
    const small = await t.countStatements(() => t.gql(query(2)));
    const large = await t.countStatements(() => t.gql(query(30)));
    expect(large).toBe(small);
    expect(
      (await t.gql(`{ pools(first: 1) { nodes { statistics(buckets: 0) { predictionCount } } } }`)).errors?.[0]?.extensions?.code,
    ).toBe('BAD_USER_INPUT');
  });

  it('finds public profiles by id and wallet, with private fields kept private', async () => {
    const [someone] = await t.database.db.select().from(tables.users).where(eq(tables.users.id, viewerSeededId));
    const byId = await t.gql(`query($id: ID!) { user(id: $id) { id username walletAddress } }`, { id: someone!.id });
    expect(byId.data.user).toEqual({ id: someone!.id, username: someone!.username, walletAddress: someone!.walletAddress });
    const byWallet = await t.gql(`query($a: String!) { userByWallet(address: $a) { id } }`, { a: someone!.walletAddress });
    expect(byWallet.data.userByWallet).toEqual({ id: someone!.id });
    expect(
      (await t.gql(`query($a: String!) { userByWallet(address: $a) { id } }`, { a: new TestKeypairWallet().address })).data.userByWallet,
    ).toBeNull();
    expect((await t.gql(`{ userByWallet(address: "not base58!") { id } }`)).errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const prying = await t.gql(
      `query($id: ID!) { user(id: $id) { email claimable { total } } }`,
      { id: someone!.id },
      (await signInWith(t.gql, new TestKeypairWallet())).headers,
    );
    expect(prying.errors?.map((e) => e.extensions?.code)).toEqual(['FORBIDDEN', 'FORBIDDEN']);
  });
});
