import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import type { PoolRow } from '../../schema/index.js';
import { seedVariedPools, type VariedPools } from '../support/fixtures/varied-pools.js';
import { backends, startEmptyTestApp, type TestApp } from '../support/harness.js';

type Sort = 'END_DATE' | 'CREATION_DATE' | 'OLD_CREATION_DATE' | 'VOLUME_HIGH' | 'VOLUME_LOW';
type Status = 'ACTIVE' | 'ENDED' | 'RESOLVED' | 'NOT_RESOLVED';

/** The pools list's contract (filters, sorts, ties by id), written independently of the service, over raw rows. */
const compare = (a: bigint | number, b: bigint | number) => (a < b ? -1 : a > b ? 1 : 0);
const byId = (a: PoolRow, b: PoolRow) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const EXPECTED_ORDER: Record<Sort, (a: PoolRow, b: PoolRow) => number> = {
  END_DATE: (a, b) => compare(a.predictionEndDate.getTime(), b.predictionEndDate.getTime()) || byId(a, b),
  CREATION_DATE: (a, b) => compare(b.createdAt.getTime(), a.createdAt.getTime()) || byId(b, a),
  OLD_CREATION_DATE: (a, b) => compare(a.createdAt.getTime(), b.createdAt.getTime()) || byId(a, b),
  VOLUME_HIGH: (a, b) => compare(b.totalVolume, a.totalVolume) || byId(b, a),
  VOLUME_LOW: (a, b) => compare(a.totalVolume, b.totalVolume) || byId(a, b),
};

/** The key each sort orders by, to count the ties the fixture must have for the id tie-break to matter. */
const SORT_KEY: Record<Sort, (p: PoolRow) => number | bigint> = {
  END_DATE: (p) => p.predictionEndDate.getTime(),
  CREATION_DATE: (p) => p.createdAt.getTime(),
  OLD_CREATION_DATE: (p) => p.createdAt.getTime(),
  VOLUME_HIGH: (p) => p.totalVolume,
  VOLUME_LOW: (p) => p.totalVolume,
};

/** Against the varied fixture (support/fixtures/varied-pools.ts): 24 pools in every phase and status, with ties on every sort key. */
describe.each(backends)('pools: filters, sorts, search and cursors on %s', (kind) => {
  let t: TestApp;
  let world: VariedPools;
  let pools: PoolRow[];
  let resolved: Set<string>;

  const matchesStatus = (pool: PoolRow, status: Status, now: number) => {
    const ended = pool.predictionEndDate.getTime() <= now;
    switch (status) {
      case 'ACTIVE':
        return pool.status === 'ACTIVE' && !pool.isClosed && pool.predictionStartDate.getTime() <= now && !ended;
      case 'ENDED':
        return ended;
      case 'RESOLVED':
        return resolved.has(pool.id);
      case 'NOT_RESOLVED':
        return ended && !resolved.has(pool.id);
    }
  };

  /** Every page of a pools query, following endCursor, as ids in order. */
  async function walk(args: string, variables: Record<string, unknown> = {}, pageSize = 7): Promise<{ ids: string[]; totalCount: number }> {
    const ids: string[] = [];
    let after: string | null = null;
    let totalCount = -1;
    for (let page = 0; page < 200; page++) {
      const response: any = await t.gql(
        `query($after: String, $search: String, $filter: PoolFilter) {
          pools(${args} first: ${pageSize}, after: $after, search: $search, filter: $filter) {
            totalCount nodes { id } pageInfo { hasNextPage endCursor } } }`,
        { after, ...variables },
      );
      expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
      const connection = response.data.pools;
      totalCount = connection.totalCount;
      ids.push(...connection.nodes.map((n: { id: string }) => n.id));
      expect(connection.nodes.length).toBeLessThanOrEqual(pageSize);
      if (!connection.pageInfo.hasNextPage) break;
      expect(connection.nodes).toHaveLength(pageSize);
      after = connection.pageInfo.endCursor;
    }
    return { ids, totalCount };
  }

  beforeAll(async () => {
    t = await startEmptyTestApp(kind);
    world = await seedVariedPools(t.seed, t.database);
    pools = await t.database.db.select().from(tables.pools);
    expect(pools).toHaveLength(24);
    resolved = new Set((await t.database.db.select().from(tables.resolutions)).map((r) => r.poolId));
  });
  afterAll(() => t.close());

  it.each(Object.keys(EXPECTED_ORDER) as Sort[])('sorts by %s, ties broken by id, across every page', async (sort) => {
    const keys = pools.map(SORT_KEY[sort]);
    expect(keys.length - new Set(keys).size, 'pools tied on the sort key').toBeGreaterThan(2);
    const { ids, totalCount } = await walk(`sort: ${sort},`);
    expect(totalCount).toBe(pools.length);
    expect(ids).toEqual([...pools].sort(EXPECTED_ORDER[sort]).map((p) => p.id));
  });

  it('sorts by END_DATE when no sort is given', async () => {
    const { ids } = await walk('');
    expect(ids).toEqual([...pools].sort(EXPECTED_ORDER.END_DATE).map((p) => p.id));
  });

  const STATUS_SETS: Status[][] = [
    ['ACTIVE'],
    ['ENDED'],
    ['RESOLVED'],
    ['NOT_RESOLVED'],
    ['ACTIVE', 'RESOLVED'],
    ['ENDED', 'NOT_RESOLVED'],
  ];
  it.each(STATUS_SETS)('filters by status %s (several mean any)', async (...statuses) => {
    const now = Date.now();
    const expected = pools.filter((p) => statuses.some((s) => matchesStatus(p, s, now)));
    expect(expected.length, 'the fixture covers this state').toBeGreaterThan(1);
    expect(expected.length).toBeLessThan(pools.length);
    const { ids, totalCount } = await walk('sort: END_DATE,', { filter: { status: statuses } });
    expect(totalCount).toBe(expected.length);
    expect(ids).toEqual(expected.sort(EXPECTED_ORDER.END_DATE).map((p) => p.id));
  });

  it('filters by streak, creator and reference day, combined with status', async () => {
    // The first streak has 8 pools, 4 of them ended; the first creator 15; six pools share the first pool's reference day.
    const streakId = world.streaks[0]!.id;
    expect(pools.filter((p) => p.streakId === streakId)).toHaveLength(8);
    const byStreak = await walk('sort: CREATION_DATE,', { filter: { streakId } });
    expect(byStreak.ids).toEqual(
      pools
        .filter((p) => p.streakId === streakId)
        .sort(EXPECTED_ORDER.CREATION_DATE)
        .map((p) => p.id),
    );

    const creator = world.creators[0]!.id;
    expect(byStreak.ids).toHaveLength(8);
    const byCreator = await walk('sort: VOLUME_LOW,', { filter: { createdBy: creator } });
    expect(byCreator.ids).toEqual(
      pools
        .filter((p) => p.createdBy === creator)
        .sort(EXPECTED_ORDER.VOLUME_LOW)
        .map((p) => p.id),
    );

    expect(byCreator.ids).toHaveLength(15);
    const day = world.pools[0]!.referenceDate.toISOString().slice(0, 10);
    const sameDay = pools.filter((p) => p.referenceDate.toISOString().startsWith(day));
    expect(sameDay).toHaveLength(6);
    const byDay = await walk('', { filter: { referenceDate: `${day}T12:34:56Z` } });
    expect(byDay.ids).toEqual(sameDay.sort(EXPECTED_ORDER.END_DATE).map((p) => p.id));

    const now = Date.now();
    const combined = await walk('', { filter: { streakId, status: ['ENDED'] } });
    expect(combined.ids).toHaveLength(4);
    expect(combined.ids).toEqual(
      pools
        .filter((p) => p.streakId === streakId && matchesStatus(p, 'ENDED', now))
        .sort(EXPECTED_ORDER.END_DATE)
        .map((p) => p.id),
    );
  });

  /** Words of a text as the 'simple' search configuration sees plain words. */
  const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

  it('searches title and description by word prefixes, case-insensitively, with any sort', async () => {
    const vocabulary = [...new Set(pools.flatMap((p) => words(`${p.title} ${p.description}`)))].filter((w) => /^[a-z]{5,}$/.test(w));
    expect(vocabulary.length).toBeGreaterThan(3);
    const picks = [vocabulary[0]!, vocabulary[Math.floor(vocabulary.length / 2)]!, vocabulary.at(-1)!];
    for (const word of picks) {
      const prefix = word.slice(0, 4);
      const expected = pools.filter((p) => words(`${p.title} ${p.description}`).some((w) => w.startsWith(prefix)));
      const { ids, totalCount } = await walk('sort: VOLUME_HIGH,', { search: prefix.toUpperCase() });
      expect(totalCount, prefix).toBe(expected.length);
      expect(ids, prefix).toEqual(expected.sort(EXPECTED_ORDER.VOLUME_HIGH).map((p) => p.id));
    }
    // Two words: both must match.
    const [first, second] = words(world.pools[0]!.title).filter((w) => /^[a-z]{3,}$/.test(w)) as [string, string];
    expect(second, 'the first title has two words to search for').toBeDefined();
    {
      const expected = pools.filter((p) => {
        const ws = words(`${p.title} ${p.description}`);
        return ws.some((w) => w.startsWith(first)) && ws.some((w) => w.startsWith(second));
      });
      const { ids } = await walk('', { search: `${first}  ${second}!` });
      expect(ids).toEqual(expected.sort(EXPECTED_ORDER.END_DATE).map((p) => p.id));
    }
    const none = await walk('', { search: 'zzqxv' });
    expect(none).toEqual({ ids: [], totalCount: 0 });
    const blank = await walk('', { search: '  ' });
    expect(blank.totalCount).toBe(pools.length);
  });

  it('serves search from the GIN index', async () => {
    const plan = await t.database.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL enable_seqscan = off`);
      return tx.execute(sql`EXPLAIN SELECT id FROM pools WHERE search_vector @@ to_tsquery('simple', 'bitc:*')`);
    });
    const text = JSON.stringify(plan);
    expect(text).toContain('pools_search_vector_idx');
  });
});
