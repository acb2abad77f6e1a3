// Over 300 lines: every nested relation checked against one read of the whole database per backend (the oracle at the top), which the tests share.
// The database holds exactly the rows of support/fixtures/related-pools.ts; the counts asserted are those it documents.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { RELATED, type RelatedPools, seedRelatedPools } from '../support/fixtures/related-pools.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';

/** Whole tokens of a base-unit amount: an exact integer divided once, correctly rounded. */
const tokens = (units: bigint, decimals: number) => Number(units) / 10 ** decimals;
const iso = (date: Date | null) => (date ? date.toISOString() : null);
const newestFirst = <T extends { createdAt: Date; id: string }>(rows: T[]) =>
  [...rows].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));

describe.each(backends)('nested relations on %s', (kind) => {
  let t: TestApp;
  let db: Awaited<ReturnType<typeof readAll>>;
  let world: RelatedPools;

  async function readAll(app: TestApp) {
    const d = app.database.db;
    const [pools, users, images, streaks, resolutions, predictions, rewards] = await Promise.all([
      d.select().from(tables.pools),
      d.select().from(tables.users),
      d.select().from(tables.images),
      d.select().from(tables.streaks),
      d.select().from(tables.resolutions),
      d.select().from(tables.predictions),
      d.select().from(tables.rewards),
    ]);
    const byId = <T extends { id: string }>(rows: T[]) => new Map(rows.map((row) => [row.id, row]));
    return {
      pools,
      users: byId(users),
      images: byId(images),
      streaks: byId(streaks),
      predictions,
      resolutionOf: new Map(resolutions.map((row) => [row.poolId, row])),
      rewardOf: new Map(rewards.map((row) => [row.predictionId, row])),
      poolsById: byId(pools),
    };
  }

  beforeAll(async () => {
    // These queries ask for up to 100 pools x 100 predictions with their relations (a cost of
    // about 51,000, counted from the page sizes), beyond the default budget of 20,000.
    t = await startEmptyTestApp(kind, { config: testConfig({ MAX_QUERY_COST: '100000', MAX_QUERY_BYTES: '0' }) });
    world = await seedRelatedPools(t.seed, t.database);
    db = await readAll(t);
  });
  afterAll(() => t.close());

  it('resolves every relation of a pool, its predictions and their rewards', async () => {
    const ids = (rows: Array<{ id: string }>) => rows.map((row) => row.id).sort();
    expect(ids(db.pools)).toEqual(ids(world.pools));
    expect(ids(db.predictions)).toEqual(ids(world.predictions));
    expect(ids([...db.rewardOf.values()])).toEqual(ids(world.rewards));
    const response = await t.gql(`{
      pools(first: 100, sort: CREATION_DATE) { totalCount nodes {
        id createdBy imageId streakId title minStake maxStake totalVolume referenceDate
        user { id walletAddress }
        image { id userId url user { id } }
        streak { id title }
        resolution { id poolId result median protocolFee leftover pool { id } }
        predictions(first: 100) { totalCount nodes {
          id poolId userId stake prediction createdAt
          user { id } pool { id } streak { id }
          reward { id predictionId amount precisionScore type isClaimed prediction { id } }
        } }
      } }
    }`);
    expect(response.errors).toBeUndefined();
    const nodes = response.data.pools.nodes as any[];
    expect(response.data.pools.totalCount).toBe(RELATED.pools);
    expect(nodes).toHaveLength(RELATED.pools);
    let predictionsSeen = 0;
    let rewardsSeen = 0;
    let imagesSeen = 0;
    let resolutionsSeen = 0;
    for (const node of nodes) {
      const pool = db.poolsById.get(node.id)!;
      expect(node.user).toEqual({ id: pool.createdBy, walletAddress: db.users.get(pool.createdBy)!.walletAddress });
      expect(node.minStake).toBe(tokens(pool.minStake, pool.decimals));
      expect(node.maxStake).toBe(tokens(pool.maxStake, pool.decimals));
      expect(node.totalVolume).toBe(tokens(pool.totalVolume, pool.decimals));
      expect(node.referenceDate).toBe(iso(pool.referenceDate));
      if (pool.imageId) {
        imagesSeen++;
        const image = db.images.get(pool.imageId)!;
        expect(node.image).toEqual({ id: image.id, userId: image.userId, url: image.url, user: { id: image.userId } });
      } else expect(node.image).toBeNull();
      expect(node.streak).toEqual(pool.streakId ? { id: pool.streakId, title: db.streaks.get(pool.streakId)!.title } : null);
      const resolution = db.resolutionOf.get(pool.id);
      if (resolution) resolutionsSeen++;
      expect(node.resolution).toEqual(
        resolution
          ? {
              id: resolution.id,
              poolId: pool.id,
              result: resolution.result,
              median: resolution.median,
              protocolFee: tokens(resolution.protocolFee, resolution.decimals),
              leftover: tokens(resolution.leftover, resolution.decimals),
              pool: { id: pool.id },
            }
          : null,
      );
      const expected = newestFirst(db.predictions.filter((p) => p.poolId === pool.id));
      expect(node.predictions.totalCount).toBe(expected.length);
      expect(node.predictions.nodes.map((p: any) => p.id)).toEqual(expected.slice(0, 100).map((p) => p.id));
      for (const [i, p] of (node.predictions.nodes as any[]).entries()) {
        const row = expected[i]!;
        predictionsSeen++;
        expect(p).toMatchObject({
          poolId: pool.id,
          userId: row.userId,
          stake: tokens(row.stake, row.decimals),
          prediction: row.prediction,
          createdAt: iso(row.createdAt),
          user: { id: row.userId },
          pool: { id: pool.id },
          streak: pool.streakId ? { id: pool.streakId } : null,
        });
        const reward = db.rewardOf.get(row.id);
        if (reward) rewardsSeen++;
        expect(p.reward).toEqual(
          reward
            ? {
                id: reward.id,
                predictionId: row.id,
                amount: tokens(reward.amount, reward.decimals),
                precisionScore: reward.precisionScore,
                type: reward.type,
                isClaimed: reward.isClaimed,
                prediction: { id: row.id },
              }
            : null,
        );
      }
    }
    expect([predictionsSeen, rewardsSeen, imagesSeen, resolutionsSeen]).toEqual([
      RELATED.predictions,
      RELATED.rewards,
      3,
      RELATED.resolutions,
    ]);
  });

  it("resolves a user's avatar, pools and predictions, newest first", async () => {
    const ok = await t.gql(`{ pools(first: 100) { nodes { user {
        id avatarId avatar { id url user { id } }
        pools(first: 100) { totalCount nodes { id } }
        predictions(first: 100) { totalCount nodes { id userId } }
      } } } }`);
    expect(ok.errors).toBeUndefined();
    let withAvatar = 0;
    const creators = new Set<string>();
    for (const { user } of ok.data.pools.nodes as any[]) {
      creators.add(user.id);
      const row = db.users.get(user.id)!;
      expect(user.avatarId).toBe(row.avatarId);
      if (row.avatarId) {
        withAvatar++;
        expect(user.avatar).toEqual({
          id: row.avatarId,
          url: db.images.get(row.avatarId)!.url,
          user: { id: db.images.get(row.avatarId)!.userId },
        });
      } else expect(user.avatar).toBeNull();
      const created = newestFirst(db.pools.filter((p) => p.createdBy === user.id));
      expect(user.pools.totalCount).toBe(created.length);
      expect(user.pools.nodes.map((p: any) => p.id)).toEqual(created.map((p) => p.id));
      const predicted = newestFirst(db.predictions.filter((p) => p.userId === user.id));
      expect(user.predictions.totalCount).toBe(predicted.length);
      expect(user.predictions.nodes.map((p: any) => p.id)).toEqual(predicted.slice(0, 100).map((p) => p.id));
    }
    // The avatar creator's 7 pools lead to a user with an avatar; the other creator's 3 to one without.
    expect(withAvatar).toBe(7);
    expect([...creators].sort()).toEqual([world.avatarCreator.id, world.predictingCreator.id].sort());
  });

  it('resolves the pools that show an image, newest first, in one statement', async () => {
    const query = `{ pools(first: 100) { nodes { image { id pools(first: 100) { totalCount nodes { id imageId } } } } } }`;
    let response: any;
    const statements = await t.countStatements(async () => {
      response = await t.gql(query);
    });
    expect(response.errors).toBeUndefined();
    // The relation is planned with the rest of the selection: no loader round trip per image.
    expect(statements).toBe(1);
    const shown = (response.data.pools.nodes as any[]).filter((node) => node.image);
    // The fixture's one image is shown by 3 pools: each of them names the other two and itself.
    expect(shown).toHaveLength(3);
    for (const { image } of shown) {
      expect(image.id).toBe(world.image.id);
      expect(image.pools.totalCount).toBe(3);
      const showing = newestFirst(db.pools.filter((p) => p.imageId === image.id));
      expect(image.pools.totalCount).toBe(showing.length);
      expect(image.pools.nodes).toEqual(showing.map((p) => ({ id: p.id, imageId: image.id })));
    }
  });

  it('resolves streaks: their amounts, last processed pool and pools, by id, as a list and via streakPools', async () => {
    const response = await t.gql(`{ streaks(first: 100) { totalCount nodes {
      id title totalAccumulated availableBalance onchainBalance streakCountRequired minPrecisionScoreRequired
      lastProcessedPoolId lastProcessedPool { id streakId }
      pools(first: 100) { totalCount nodes { id streakId } }
    } } }`);
    expect(response.errors).toBeUndefined();
    const streaks = [...db.streaks.values()];
    const { busy, small, empty } = world.streaks;
    expect(streaks.map((s) => s.id).sort()).toEqual([busy.id, small.id, empty.id].sort());
    expect(response.data.streaks.totalCount).toBe(RELATED.streaks);
    expect(
      Object.fromEntries(response.data.streaks.nodes.map((s: any) => [s.id, [s.pools.totalCount, s.lastProcessedPool?.id ?? null]])),
    ).toEqual({
      [busy.id]: [6, world.busiestPool.id],
      [small.id]: [2, null],
      [empty.id]: [0, null],
    });
    expect(response.data.streaks.nodes.map((s: any) => s.id)).toEqual(newestFirst(streaks).map((s) => s.id));
    for (const node of response.data.streaks.nodes as any[]) {
      const row = db.streaks.get(node.id)!;
      expect(node).toMatchObject({
        title: row.title,
        totalAccumulated: tokens(row.totalAccumulated, row.decimals),
        availableBalance: tokens(row.availableBalance, row.decimals),
        onchainBalance: tokens(row.onchainBalance, row.decimals),
        streakCountRequired: row.streakCountRequired,
        minPrecisionScoreRequired: row.minPrecisionScoreRequired,
        lastProcessedPoolId: row.lastProcessedPoolId,
      });
      expect(node.lastProcessedPool?.id ?? null).toBe(row.lastProcessedPoolId);
      const pools = newestFirst(db.pools.filter((p) => p.streakId === row.id));
      expect(node.pools.totalCount).toBe(pools.length);
      expect(node.pools.nodes.map((p: any) => p.id)).toEqual(pools.map((p) => p.id));

      const one = await t.gql(`query($id: ID!) { streak(id: $id) { id title } }`, { id: row.id });
      expect(one.data.streak).toEqual({ id: row.id, title: row.title });
      const viaStreakPools = await t.gql(
        `query($id: ID!) { streakPools(streakId: $id, first: 100) { streak { id } pools { totalCount nodes { id } } } }`,
        { id: row.id },
      );
      expect(viaStreakPools.data.streakPools).toEqual({
        streak: { id: row.id },
        pools: { totalCount: pools.length, nodes: pools.map((p) => ({ id: p.id })) },
      });
    }
  });

  /**
   * Walks a connection page by page (`first: size`, then `after` the previous endCursor) to its
   * end, checking the cursors, pageInfo and totalCount of every page, and returns the ids seen.
   */
  async function pageThrough(
    query: string,
    variables: Record<string, unknown>,
    connectionOf: (data: any) => any,
    size: number,
    total: number,
  ): Promise<string[]> {
    const seen: string[] = [];
    let after: string | null = null;
    for (let pageNo = 0; pageNo < 100; pageNo++) {
      const response: any = await t.gql(query, { ...variables, first: size, after });
      expect(response.errors).toBeUndefined();
      const connection = connectionOf(response.data);
      expect(connection.totalCount).toBe(total);
      expect(connection.edges.length).toBeLessThanOrEqual(size);
      seen.push(...connection.edges.map((e: any) => e.node.id));
      expect(connection.pageInfo.endCursor).toBe(connection.edges.at(-1)?.cursor ?? null);
      expect(connection.pageInfo.startCursor).toBe(connection.edges[0]?.cursor ?? null);
      expect(connection.pageInfo.hasPreviousPage).toBe(pageNo > 0);
      expect(connection.pageInfo.hasNextPage).toBe(seen.length < total);
      if (!connection.pageInfo.hasNextPage) break;
      expect(connection.edges).toHaveLength(size);
      after = connection.pageInfo.endCursor;
    }
    return seen;
  }
  const PAGE = 'totalCount edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage endCursor startCursor }';
  it('pages nested connections with cursors to the same rows as one big page', async () => {
    const busiest = world.busiestPool.id;
    // 4 of its 9 predictions share a created_at: pages of 4 split them, so the id tie-break must hold across cursors.
    const expected = newestFirst(db.predictions.filter((p) => p.poolId === busiest)).map((p) => p.id);
    expect(expected).toHaveLength(RELATED.busiestPoolPredictions);
    const seen = await pageThrough(
      `query($id: ID!, $first: Int, $after: String) { pool(id: $id) { predictions(first: $first, after: $after) { ${PAGE} } } }`,
      { id: busiest },
      (data) => data.pool.predictions,
      4,
      expected.length,
    );
    expect(seen).toEqual(expected);
  });

  it('keeps only the pools whose prediction window has ended with streakPools(pastOnly: true)', async () => {
    let streaksWithBoth = 0;
    const pastCounts: Record<string, number> = {};
    for (const streak of db.streaks.values()) {
      const all = newestFirst(db.pools.filter((p) => p.streakId === streak.id));
      const now = Date.now();
      const past = all.filter((p) => p.predictionEndDate.getTime() < now);
      if (past.length > 0 && past.length < all.length) streaksWithBoth++;
      pastCounts[streak.id] = past.length;
      const query = `query($id: ID!, $pastOnly: Boolean) { streakPools(streakId: $id, first: 100, pastOnly: $pastOnly) {
        streak { id } pools { totalCount nodes { id streakId predictionEndDate } } } }`;
      const pastOnly = await t.gql(query, { id: streak.id, pastOnly: true });
      expect(pastOnly.errors).toBeUndefined();
      expect(pastOnly.data.streakPools.streak).toEqual({ id: streak.id });
      expect(pastOnly.data.streakPools.pools.totalCount).toBe(past.length);
      expect(pastOnly.data.streakPools.pools.nodes).toEqual(
        past.map((p) => ({ id: p.id, streakId: streak.id, predictionEndDate: iso(p.predictionEndDate) })),
      );
      const everything = await t.gql(query, { id: streak.id, pastOnly: false });
      expect(everything.errors).toBeUndefined();
      expect(everything.data.streakPools.pools.totalCount).toBe(all.length);
      expect(everything.data.streakPools.pools.nodes.map((p: any) => p.id)).toEqual(all.map((p) => p.id));
    }
    // Two streaks have both ended and open pools, so the filter is really exercised.
    expect(streaksWithBoth).toBe(2);
    expect(pastCounts).toEqual({ [world.streaks.busy.id]: 3, [world.streaks.small.id]: 1, [world.streaks.empty.id]: 0 });
  });

  it('pages streaks with cursors to the same rows as one big page', async () => {
    // Two of the three were created at the same instant.
    const expected = newestFirst([...db.streaks.values()]).map((s) => s.id);
    expect(expected).toHaveLength(RELATED.streaks);
    const seen = await pageThrough(
      `query($first: Int, $after: String) { streaks(first: $first, after: $after) { ${PAGE} } }`,
      {},
      (data) => data.streaks,
      1,
      expected.length,
    );
    expect(seen).toEqual(expected);
  });

  it("pages a streak's pools with cursors, via streakPools and via streak.pools", async () => {
    const busiest = world.streaks.busy.id;
    // Its last three pools share a created_at, split by pages of 2.
    const expected = newestFirst(db.pools.filter((p) => p.streakId === busiest)).map((p) => p.id);
    expect(expected).toHaveLength(6);
    const viaStreakPools = await pageThrough(
      `query($id: ID!, $first: Int, $after: String) { streakPools(streakId: $id, first: $first, after: $after) { pools { ${PAGE} } } }`,
      { id: busiest },
      (data) => data.streakPools.pools,
      2,
      expected.length,
    );
    expect(viaStreakPools).toEqual(expected);
    const viaStreak = await pageThrough(
      `query($id: ID!, $first: Int, $after: String) { streak(id: $id) { pools(first: $first, after: $after) { ${PAGE} } } }`,
      { id: busiest },
      (data) => data.streak.pools,
      2,
      expected.length,
    );
    expect(viaStreak).toEqual(expected);
  });

  it("pages a user's pools and predictions with cursors", async () => {
    const creator = world.avatarCreator.id;
    const created = newestFirst(db.pools.filter((p) => p.createdBy === creator)).map((p) => p.id);
    expect(created).toHaveLength(7);
    // User has no root field: reach the creator through one of their pools.
    const seenPools = await pageThrough(
      `query($id: ID!, $first: Int, $after: String) { pool(id: $id) { user { pools(first: $first, after: $after) { ${PAGE} } } } }`,
      { id: created[0] },
      (data) => data.pool.user.pools,
      2,
      created.length,
    );
    expect(seenPools).toEqual(created);

    // A creator who predicted in every pool, so one of their pools leads to them.
    const predictor = world.predictingCreator.id;
    const predicted = newestFirst(db.predictions.filter((p) => p.userId === predictor));
    expect(predicted).toHaveLength(RELATED.pools);
    const seenPredictions = await pageThrough(
      `query($id: ID!, $first: Int, $after: String) { pool(id: $id) { user { id predictions(first: $first, after: $after) { ${PAGE} } } } }`,
      { id: db.pools.find((p) => p.createdBy === predictor)!.id },
      (data) => {
        expect(data.pool.user.id).toBe(predictor);
        return data.pool.user.predictions;
      },
      4,
      predicted.length,
    );
    expect(seenPredictions).toEqual(predicted.map((p) => p.id));
  });

  it('rejects an invalid cursor on a nested connection as BAD_USER_INPUT of "after"', async () => {
    const response = await t.gql(`{ pools(first: 1) { nodes { predictions(first: 2, after: "garbage") { nodes { id } } } } }`);
    expect(response.errors).toHaveLength(1);
    expect(response.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: 'after' });
    // Refused before execution: no data, and the location of the field whose cursor it is.
    expect(response.data).toBeUndefined();
    expect(response.errors![0]!.locations).toEqual([{ line: 1, column: 29 }]);
  });
});
