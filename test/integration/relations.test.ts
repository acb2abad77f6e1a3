import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { backends, startTestApp, testConfig, type TestApp } from './harness.js';

/** Whole tokens of a base-unit amount: an exact integer divided once, correctly rounded. */
const tokens = (units: bigint, decimals: number) => Number(units) / 10 ** decimals;
const iso = (date: Date | null) => (date ? date.toISOString() : null);
const newestFirst = <T extends { createdAt: Date; id: string }>(rows: T[]) =>
  [...rows].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));

describe.each(backends)('nested relations on %s', (kind) => {
  let t: TestApp;
  let db: Awaited<ReturnType<typeof readAll>>;

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
    // These queries read the whole test database at once (100 pools x 100 predictions with
    // their relations, a cost of about 51,000), beyond the default budget of 20,000.
    t = await startTestApp(kind, { config: testConfig({ MAX_QUERY_COST: '100000' }) });
    db = await readAll(t);
  });
  afterAll(() => t.close());

  it('resolves every relation of a pool, its predictions and their rewards', async () => {
    expect(db.pools.length).toBeLessThanOrEqual(100);
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
    expect(response.data.pools.totalCount).toBe(db.pools.length);
    expect(nodes).toHaveLength(db.pools.length);
    let predictionsSeen = 0;
    let rewardsSeen = 0;
    for (const node of nodes) {
      const pool = db.poolsById.get(node.id)!;
      expect(node.user).toEqual({ id: pool.createdBy, walletAddress: db.users.get(pool.createdBy)!.walletAddress });
      expect(node.minStake).toBe(tokens(pool.minStake, pool.decimals));
      expect(node.maxStake).toBe(tokens(pool.maxStake, pool.decimals));
      expect(node.totalVolume).toBe(tokens(pool.totalVolume, pool.decimals));
      expect(node.referenceDate).toBe(iso(pool.referenceDate));
      if (pool.imageId) {
        const image = db.images.get(pool.imageId)!;
        expect(node.image).toEqual({ id: image.id, userId: image.userId, url: image.url, user: { id: image.userId } });
      } else expect(node.image).toBeNull();
      expect(node.streak).toEqual(pool.streakId ? { id: pool.streakId, title: db.streaks.get(pool.streakId)!.title } : null);
      const resolution = db.resolutionOf.get(pool.id);
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
    expect(predictionsSeen).toBeGreaterThan(0);
    expect(rewardsSeen).toBeGreaterThan(0);
  });

  it("resolves a user's avatar, pools and predictions, newest first", async () => {
    const ok = await t.gql(`{ pools(first: 100) { nodes { user {
        id avatarId avatar { id url user { id } }
        pools(first: 100) { totalCount nodes { id } }
        predictions(first: 100) { totalCount nodes { id userId } }
      } } } }`);
    expect(ok.errors).toBeUndefined();
    let withAvatar = 0;
    for (const { user } of ok.data.pools.nodes as any[]) {
      const row = db.users.get(user.id)!;
      expect(user.avatarId).toBe(row.avatarId);
      if (row.avatarId) {
        withAvatar++;
        expect(user.avatar).toEqual({ id: row.avatarId, url: db.images.get(row.avatarId)!.url, user: { id: db.images.get(row.avatarId)!.userId } });
      } else expect(user.avatar).toBeNull();
      const created = newestFirst(db.pools.filter((p) => p.createdBy === user.id));
      expect(user.pools.totalCount).toBe(created.length);
      expect(user.pools.nodes.map((p: any) => p.id)).toEqual(created.map((p) => p.id));
      const predicted = newestFirst(db.predictions.filter((p) => p.userId === user.id));
      expect(user.predictions.totalCount).toBe(predicted.length);
      expect(user.predictions.nodes.map((p: any) => p.id)).toEqual(predicted.slice(0, 100).map((p) => p.id));
    }
    expect(withAvatar).toBeGreaterThan(0);
  });

  it('resolves streaks: their amounts, last processed pool and pools, by id, as a list and via streakPools', async () => {
    const response = await t.gql(`{ streaks(first: 100) { totalCount nodes {
      id title totalAccumulated availableBalance onchainBalance streakCountRequired minPrecisionScoreRequired
      lastProcessedPoolId lastProcessedPool { id streakId }
      pools(first: 100) { totalCount nodes { id streakId } }
    } } }`);
    expect(response.errors).toBeUndefined();
    const streaks = [...db.streaks.values()];
    expect(response.data.streaks.totalCount).toBe(streaks.length);
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

  it('pages nested connections with cursors to the same rows as one big page', async () => {
    const busiest = [...db.pools].sort(
      (a, b) => db.predictions.filter((p) => p.poolId === b.id).length - db.predictions.filter((p) => p.poolId === a.id).length,
    )[0]!;
    const expected = newestFirst(db.predictions.filter((p) => p.poolId === busiest.id)).map((p) => p.id);
    expect(expected.length).toBeGreaterThan(6);
    const seen: string[] = [];
    let after: string | null = null;
    for (let pageNo = 0; pageNo < 100; pageNo++) {
      const response: any = await t.gql(
        `query($id: ID!, $after: String) { pool(id: $id) { predictions(first: 4, after: $after) {
          totalCount edges { cursor node { id } } pageInfo { hasNextPage endCursor startCursor } } } }`,
        { id: busiest.id, after },
      );
      expect(response.errors).toBeUndefined();
      const connection = response.data.pool.predictions;
      expect(connection.totalCount).toBe(expected.length);
      seen.push(...connection.edges.map((e: any) => e.node.id));
      expect(connection.pageInfo.endCursor).toBe(connection.edges.at(-1)?.cursor ?? null);
      expect(connection.pageInfo.startCursor).toBe(connection.edges[0]?.cursor ?? null);
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(seen).toEqual(expected);
  });
});
