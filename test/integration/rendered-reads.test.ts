import type { ApolloServerPlugin } from '@apollo/server';
import type { FastifyInstance } from 'fastify';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as tables from '../../schema/index.js';
import { createApp } from '../../src/server/app.js';
import type { GraphQLContext } from '../../src/server/context.js';
import { RenderedData } from '../../src/server/pipeline/planned-read.js';
import { ReadRenderer } from '../../src/server/read-renderer.js';
import { seedVariedPools } from '../support/fixtures/varied-pools.js';
import { backends, renderFallbacks, renderedReadsServed, startEmptyTestApp, type TestApp, testConfig } from '../support/harness.js';

/**
 * Rendered reads (src/server/read-renderer.ts): a query whose root selection renders is
 * answered by statements writing the response JSON, without the executor. The oracle is
 * the executed answer of the same request, from a second app on the same database with
 * RENDERED_READS=false: for every query of the corpus both answers, parsed, must be deeply
 * equal, and the rendered one must really have been rendered (counted by the metric). Queries that must not render are checked to fall back.
 */

const NESTED = `id title totalVolume user { id username } image { id url } streak { id title } resolution { id result }
  predictions(first: 10) { nodes { id stake prediction user { id username } reward { id amount } } }`;

const EVERY_COLUMN = `id createdAt updatedAt createdBy imageId streakId title description poolAccount resolutionSource unit maxRoi
  stakeTokenMint decimals minOutcome maxOutcome precision step predictionStartDate predictionEndDate referenceDate status isClosed
  indexedPredictionUpdateCount platformFeeRate minStake maxStake totalVolume`;

/** name -> query, variables; each must render. */
const RENDERED: Record<
  string,
  {
    query: string;
    variables?: (ctx: {
      cursor: string;
      streakId: string;
      creator: string;
      poolId: string;
      predictionIds: string[];
      childCursor: string;
    }) => Record<string, unknown>;
  }
> = {
  'bench CREATION_DATE': { query: `{ pools(first: 20, sort: CREATION_DATE) { nodes { ${NESTED} } } }` },
  'bench VOLUME_HIGH': { query: `{ pools(first: 20, sort: VOLUME_HIGH) { nodes { ${NESTED} } } }` },
  'every sort, every column': {
    query: `{ a: pools(first: 7, sort: END_DATE) { nodes { ${EVERY_COLUMN} } } b: pools(first: 7, sort: OLD_CREATION_DATE) { nodes { ${EVERY_COLUMN} } }
      c: pools(first: 7, sort: VOLUME_LOW) { nodes { ${EVERY_COLUMN} } } d: pools(first: 7) { nodes { id } } }`,
  },
  'every column of every nested type': {
    query: `{ pools(first: 15, sort: VOLUME_HIGH) { nodes { id
      user { id createdAt updatedAt lastSeenAt username hasSeenTour role walletAddress avatarId twitterUsername }
      image { id createdAt updatedAt userId url }
      streak { id createdAt updatedAt lastProcessedPoolId streakAccumulatorAccount title feePercentage payoutPercentage bump streakCountRequired minPrecisionScoreRequired lastSyncAt }
      resolution { id createdAt updatedAt poolId result median protocolFee leftover }
      predictions(first: 5) { totalCount nodes { id createdAt updatedAt poolId userId poolAccount predictorAccount predictionAccount prediction precision
        stakeTokenMint decimals lastAppliedValueRevision lastAppliedStakeRevision isFeePayer isClosed bump lastSyncAt stake
        reward { id createdAt updatedAt predictionId precisionScore isClaimed type amount } pool { id title } } } } } }`,
  },
  'aliases, fragments, inline fragments, __typename at every level': {
    query: `query { __typename list: pools(first: 6, sort: VOLUME_HIGH) { __typename total: totalCount items: nodes { __typename ...Card
        ... on Pool { name: title owner: user { __typename handle: username } }
        ... on Node { nodeId: id }
        bets: predictions(last: 3) { __typename count: totalCount rows: nodes { __typename ...Bet } } } } }
      fragment Card on Pool { id title volume: totalVolume image { __typename url } streak { title } }
      fragment Bet on Prediction { id stake reward { __typename amount } user { ...Who } }
      fragment Who on User { username id }`,
  },
  'the same key merged from fragments': {
    query: `{ pools(first: 5) { nodes { user { id } ... on Pool { user { username } } predictions(first: 2) { nodes { id } } ...P } } }
      fragment P on Pool { predictions(first: 2) { nodes { stake } } }`,
  },
  '@skip and @include with variables': {
    query: `query($a: Boolean!, $b: Boolean!) { pools(first: 4) { nodes { id title @include(if: $a) user @skip(if: $b) { id }
      ... on Pool @include(if: $b) { image { url } } predictions(first: 2) @include(if: $a) { nodes { id } } } } }`,
    variables: () => ({ a: true, b: false }),
  },
  '@skip and @include, the other way': {
    query: `query($a: Boolean!, $b: Boolean!) { pools(first: 4) { nodes { id title @include(if: $a) user @skip(if: $b) { id }
      ... on Pool @include(if: $b) { image { url } } predictions(first: 2) @include(if: $a) { nodes { id } } } } }`,
    variables: () => ({ a: false, b: true }),
  },
  'status filters': {
    query: `{ a: pools(first: 10, filter: { status: [ACTIVE] }) { totalCount nodes { id status } }
      b: pools(first: 10, sort: VOLUME_HIGH, filter: { status: [ENDED, RESOLVED] }) { totalCount nodes { id resolution { result } } }
      c: pools(first: 10, filter: { status: [NOT_RESOLVED] }) { totalCount nodes { id resolution { id } } } }`,
  },
  'streak and creator filters as variables': {
    query: `query($f: PoolFilter, $g: PoolFilter) { s: pools(first: 10, filter: $f) { totalCount nodes { id streak { id } } }
      c: pools(first: 10, filter: $g) { nodes { id user { id } } } }`,
    variables: (v) => ({ f: { streakId: v.streakId }, g: { createdBy: v.creator } }),
  },
  "a prediction's streak, through its pool (some in one, some in none)": {
    query: `query($f: PoolFilter) { s: pools(first: 3, filter: $f) { nodes { predictions(first: 3) { nodes { id streak { id title } } } } }
      all: pools(first: 10) { nodes { predictions(first: 2) { nodes { pool { streak { id } } streak { id } } } } } }`,
    variables: (v) => ({ f: { streakId: v.streakId } }),
  },
  "a prediction's streak, refetched by id (the executor reads it by loaders)": {
    query: `query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Prediction { streak { id title } pool { streak { id } } } } }`,
    variables: (v) => ({ ids: v.predictionIds }),
  },
  search: { query: `{ pools(first: 10, search: "will") { totalCount nodes { id title } } }` },
  "a user's predictions filtered by lifecycle and sorted, with cursors": {
    query: `{ pools(first: 4) { nodes { user { a: predictions(filter: ACTIVE) { totalCount nodes { id } }
      b: predictions(first: 2, sort: STAKE_HIGH) { edges { cursor node { id stake } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }
      c: predictions(last: 2, filter: RESOLVED, sort: OLDEST) { totalCount nodes { id } pageInfo { hasPreviousPage startCursor } } } } } }`,
  },
  "each pool's viewerPrediction, signed out": { query: `{ pools(first: 5) { nodes { id viewerPrediction { id stake user { id } } } } }` },
  'an empty page and an empty search': {
    query: `{ a: pools(first: 5, search: "zzzzqqqq") { totalCount nodes { id } edges { cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }
      b: pools(first: 5, offset: 10000) { nodes { id } pageInfo { hasNextPage hasPreviousPage } } }`,
  },
  'cursors, edges and pageInfo at the top': {
    query: `{ pools(first: 3, sort: VOLUME_HIGH) { edges { __typename cursor node { id totalVolume } } pageInfo { __typename hasNextPage hasPreviousPage startCursor endCursor } } }`,
  },
  'first/after paging': {
    query: `query($after: String) { pools(first: 4, sort: VOLUME_HIGH, after: $after) { nodes { id } pageInfo { hasNextPage hasPreviousPage endCursor } } }`,
    variables: (v) => ({ after: v.cursor }),
  },
  'last/before paging and offset': {
    query: `query($before: String) { a: pools(last: 3, sort: VOLUME_HIGH, before: $before) { nodes { id } pageInfo { hasNextPage hasPreviousPage } }
      b: pools(first: 3, offset: 5, sort: VOLUME_HIGH) { nodes { id } pageInfo { hasPreviousPage } } }`,
    variables: (v) => ({ before: v.cursor }),
  },
  'nested pages: empty ones, backward, sizes': {
    query: `{ pools(first: 20, sort: CREATION_DATE) { nodes { id p1: predictions(first: 1) { totalCount nodes { id reward { id } } }
      p2: predictions(last: 2) { nodes { id createdAt } } p3: predictions { totalCount } } } }`,
  },
  'nested edges, cursors and pageInfo: every flag, both directions, from a cursor, empty pages': {
    query: `query($c: String) { pools(first: 20, sort: VOLUME_HIGH) { nodes { id
      a: predictions(first: 2) { __typename edges { __typename cursor node { id stake } } pageInfo { __typename hasNextPage hasPreviousPage startCursor endCursor } }
      b: predictions(last: 2) { pageInfo { hasNextPage hasPreviousPage startCursor endCursor } nodes { id } }
      c: predictions(first: 2, after: $c) { edges { cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }
      d: predictions(last: 1, before: $c) { totalCount edges { node { id } cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }
      e: predictions(first: 100) { pageInfo { hasNextPage endCursor } } } } }`,
    variables: (v) => ({ c: v.childCursor }),
  },
  'only __typename': { query: '{ __typename }' },
  'pool by id, the bench selection': {
    query: `query($id: ID!) { pool(id: $id) { ${NESTED} } }`,
    variables: (v) => ({ id: v.poolId }),
  },
  'pool by id beside pools, a missing pool, aliases and fragments': {
    query: `query($id: ID!, $none: ID!) { __typename one: pool(id: $id) { ${EVERY_COLUMN} ...Card predictions(last: 2) { totalCount nodes { id } } }
      missing: pool(id: $none) { id title } list: pools(first: 2) { nodes { id } } }
      fragment Card on Pool { user { username } resolution { result median } streak { title } }`,
    variables: (v) => ({ id: v.poolId, none: '00000000-0000-4000-8000-000000000000' }),
  },
  'the leaderboard page of the bench, and every field of an entry': {
    query: `{ a: leaderboard(first: 20) { totalCount nodes { rank payout staked precision predictionCount user { id username avatar { id url } } } }
      b: leaderboard(first: 3, by: PRECISION, period: WEEK) { __typename edges { __typename cursor node { __typename rank precision user { username } } }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor } viewerEntry { rank } }
      c: leaderboard(last: 2) { nodes { ...E } } } fragment E on LeaderboardEntry { rank who: user { id } predictionCount }`,
  },
  'statistics: the bench pool page, bucket counts, aliases, pools without predictions': {
    query: `query($id: ID!) { pool(id: $id) { id predictions(first: 20) { totalCount nodes { id createdAt } }
        statistics { predictionCount totalStake stakeWeightedMedian buckets { from to count stake } }
        three: statistics(buckets: 3) { __typename median: stakeWeightedMedian buckets { __typename stake count } }
        one: statistics(buckets: 1) { buckets { from to } } }
      pools(first: 26, sort: CREATION_DATE) { nodes { id statistics(buckets: 7) { predictionCount totalStake stakeWeightedMedian buckets { from to count stake } } } } }`,
    variables: (v) => ({ id: v.poolId }),
  },
  'leaderboard users with pages of their own': {
    query: `{ leaderboard(first: 3) { nodes { rank user { id pools(first: 2) { totalCount nodes { id } } predictions(last: 2) { nodes { id } } } } } }`,
  },
  'node(id) of a pool, fragments on the interface and on other types': {
    query: `query($id: ID!) { node(id: $id) { __typename id ... on Pool { title totalVolume user { id username } resolution { result } }
      ... on User { username } ...N } } fragment N on Node { nodeId: id }`,
    variables: (v) => ({ id: v.poolId }),
  },
  'nodes(ids) of a pool, a user and a pool again, in order': {
    query: `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id ... on Pool { title image { url } } ... on User { username avatar { url } } } }`,
    variables: (v) => ({ ids: [v.poolId, v.creator, v.poolId.toUpperCase()] }),
  },
};

/** Queries that must be executed: a field with logic or access checks, nested cursors, bad arguments. */
const EXECUTED: Record<string, string> = {
  'a private field': `{ pools(first: 2) { nodes { user { email } } } }`,
  'a bad page size': `{ pools(first: 500) { nodes { id } } }`,
  'a bad nested page size': `{ pools(first: 2) { nodes { predictions(first: 0) { nodes { id } } } } }`,
  'a root field without a rendering': `{ pools(first: 2) { nodes { id } } rateLimit { __typename } }`,
  'a pool id that is no id': `{ pool(id: "not-an-id") { id } }`,
  'a pool with a private field': `{ pool(id: "00000000-0000-4000-8000-000000000000") { id user { email } } }`,
  'statistics with a bucket count out of range': `{ pools(first: 2) { nodes { id statistics(buckets: 0) { predictionCount } } } }`,
  'node(id) of nothing': `{ node(id: "00000000-0000-4000-8000-000000000000") { id } }`,
  'node(id) that is no id': `{ node(id: "not-an-id") { id } }`,
  'node(id) with a private field': `{ node(id: "00000000-0000-4000-8000-000000000000") { id ... on User { email } } }`,
};

describe.each(backends)('rendered reads on %s', (kind) => {
  let t: TestApp;
  /** The same server with RENDERED_READS=false: every operation executed. */
  let executor: FastifyInstance;
  const values = { cursor: '', streakId: '', creator: '', poolId: '', predictionIds: [] as string[], childCursor: '' };

  /** The answer of one request, executed (by `executor`) or rendered where it can be (by `t.app`), and how many were rendered. */
  async function answer(query: string, variables: Record<string, unknown> | undefined, rendered: boolean) {
    const app = rendered ? t.app : executor;
    const before = await renderedReadsServed(app);
    const reply = await app.inject({ method: 'POST', url: '/graphql', payload: { query, variables } });
    const response = { status: reply.statusCode, ...reply.json() };
    return { response, body: reply.body, rendered: (await renderedReadsServed(app)) - before };
  }

  /**
   * The varied fixture (24 pools: 12 in a streak, 6 resolved, some without predictions, rewards
   * only in resolved ones) and two more pools with an image and "will" in their titles, one
   * with a prediction: every relation is null somewhere and not elsewhere, and search finds two.
   */
  beforeAll(async () => {
    t = await startEmptyTestApp(kind);
    executor = await createApp({ config: testConfig({ RENDERED_READS: 'false' }), database: t.database });
    await seedVariedPools(t.seed, t.database);
    const { images } = await t.seed.user().withImage();
    await t.seed
      .user()
      .withPool({ title: 'Will it rain in Lisbon on Sunday', imageId: images[0]!.id })
      .withPrediction()
      .withPool({ title: 'Will the bridge open in June', imageId: images[0]!.id, phase: 'upcoming' });
    // The leaderboard's first user gets an avatar, so entries' users have one and lack one.
    const board = await t.gql(`{ leaderboard(first: 1) { nodes { user { id } } } }`);
    await t.database.db
      .update(tables.users)
      .set({ avatarId: images[0]!.id })
      .where(eq(tables.users.id, board.data.leaderboard.nodes[0].user.id));
    const { data } = await t.gql(
      `{ pools(first: 10, sort: VOLUME_HIGH, filter: { status: [RESOLVED] }) { edges { cursor node { id streak { id } user { id } } } } }`,
    );
    const withStreak = data.pools.edges.find((edge: any) => edge.node.streak);
    values.cursor = data.pools.edges[4].cursor;
    values.streakId = withStreak.node.streak.id;
    values.creator = data.pools.edges[0].node.user.id;
    values.poolId = data.pools.edges[0].node.id;
    // A prediction on a pool of a streak and one on a pool of none: refetched by id, the executor reads their streaks by loaders.
    const withPredictions = await t.gql(
      `{ pools(first: 100, sort: CREATION_DATE) { nodes { streak { id } predictions(first: 1) { nodes { id } } } } }`,
    );
    const predicted = (withPredictions.data.pools.nodes as any[]).filter((pool) => pool.predictions.nodes.length > 0);
    const onStreak = predicted.find((pool) => pool.streak !== null);
    const offStreak = predicted.find((pool) => pool.streak === null);
    values.predictionIds = [onStreak.predictions.nodes[0].id, offStreak.predictions.nodes[0].id];
    // A prediction's cursor in the middle of the busiest pool's, read by the executor.
    const busiest = await executor.inject({
      method: 'POST',
      url: '/graphql',
      payload: { query: '{ pools(first: 1, sort: VOLUME_HIGH) { nodes { predictions(first: 5) { edges { cursor } } } } }' },
    });
    const childEdges = busiest.json().data.pools.nodes[0].predictions.edges;
    expect(childEdges.length).toBeGreaterThanOrEqual(3);
    values.childCursor = childEdges[1].cursor;
  });
  afterAll(async () => {
    await executor?.close();
    await t.close();
  });

  it("a user's predictions filtered by lifecycle follow the request's clock, rendered as executed", async () => {
    const query = `{ pools(first: 30, sort: CREATION_DATE) { nodes { user { id all: predictions(first: 1) { totalCount }
      active: predictions(filter: ACTIVE) { totalCount } ended: predictions(filter: ENDED, first: 2) { totalCount nodes { id } } } } } }`;
    type Lists = Record<'all' | 'active' | 'ended', { totalCount: number }>;
    const totals = (body: string) => {
      const users = (JSON.parse(body).data.pools.nodes as Array<{ user: Lists }>).map((pool) => pool.user);
      const sum = (list: keyof Lists) => users.reduce((n, user) => n + user[list].totalCount, 0);
      return { all: sum('all'), active: sum('active'), ended: sum('ended') };
    };
    const now = await answer(query, undefined, true);
    expect(now.rendered).toBe(1);
    expect(now.body).toBe((await answer(query, undefined, false)).body);
    // Ten years on, by the request's clock (not the database's): every pool has ended, none is active.
    const later = () => new Date(Date.now() + 10 * 365 * 24 * 3600 * 1000);
    const rendering = await createApp({ config: testConfig(), database: t.database, clock: later });
    const executing = await createApp({ config: testConfig({ RENDERED_READS: 'false' }), database: t.database, clock: later });
    try {
      const before = await renderedReadsServed(rendering);
      const [rendered, executed] = await Promise.all(
        [rendering, executing].map((app) => app.inject({ method: 'POST', url: '/graphql', payload: { query } })),
      );
      expect((await renderedReadsServed(rendering)) - before).toBe(1);
      expect(rendered!.body).toBe(executed!.body);
      expect(totals(now.body).active).toBeGreaterThan(0);
      const { all } = totals(now.body);
      expect(totals(rendered!.body)).toEqual({ all, active: 0, ended: all });
    } finally {
      await rendering.close();
      await executing.close();
    }
  });

  it('the corpus has the nulls it claims: pools without image, streak or resolution, predictions without reward, empty pages', async () => {
    const { response } = await answer(
      `{ pools(first: 100, sort: CREATION_DATE) { nodes { image { id } streak { id } resolution { id } predictions(first: 10) { nodes { reward { id } } } } } }`,
      undefined,
      false,
    );
    const pools = response.data.pools.nodes as any[];
    expect(pools).toHaveLength(26);
    const having = (relation: string) => pools.filter((p) => p[relation] !== null).length;
    expect({ image: having('image'), streak: having('streak'), resolution: having('resolution') }).toEqual({
      image: 2,
      streak: 12,
      resolution: 6,
    });
    const predictions = pools.flatMap((p) => p.predictions.nodes);
    expect(predictions.some((p) => p.reward === null)).toBe(true);
    expect(predictions.some((p) => p.reward !== null)).toBe(true);
    expect(pools.some((p) => p.predictions.nodes.length === 0)).toBe(true);
    const search = await answer(RENDERED.search!.query, undefined, false);
    expect(search.response.data.pools.totalCount).toBe(2);
    // The leaderboard has entries, some users with an avatar and some without.
    const board = await answer(`{ leaderboard(first: 100) { totalCount nodes { user { avatar { id } } } } }`, undefined, false);
    const entries = board.response.data.leaderboard.nodes as any[];
    expect(board.response.data.leaderboard.totalCount).toBeGreaterThan(3);
    expect(entries.some((e) => e.user.avatar === null)).toBe(true);
    expect(entries.some((e) => e.user.avatar !== null)).toBe(true);
  });

  it.each(Object.entries(RENDERED))('%s: rendered, equal to the executed answer', async (_name, { query, variables }) => {
    const vars = variables?.(values);
    const executed = await answer(query, vars, false);
    expect(executed.response.errors, JSON.stringify(executed.response.errors)).toBeUndefined();
    expect(executed.rendered).toBe(0);
    const rendered = await answer(query, vars, true);
    expect(rendered.rendered).toBe(1);
    expect(rendered.response.status).toBe(200);
    expect(rendered.response.data).toEqual(executed.response.data);
    // The same bytes: keys in the same order at every level, JSON.stringify's spacing and number forms.
    expect(rendered.body).toBe(executed.body);
  });

  it('says where each root field and each member of a root connection lies in its text, for every read of the corpus', async () => {
    const answered: RenderedData[] = [];
    const recorder: ApolloServerPlugin<GraphQLContext> = {
      async requestDidStart() {
        return {
          async willSendResponse({ response }) {
            const data = response.body.kind === 'single' ? response.body.singleResult.data : undefined;
            if (data instanceof RenderedData) answered.push(data);
          },
        };
      },
    };
    const app = await createApp({ config: testConfig(), database: t.database, plugins: [recorder] });
    try {
      // The corpus, and a connection inside a root object (REST's streak pools).
      const streakPools = {
        query: `query ($streakId: ID!) { streakPools(streakId: $streakId, first: 3) { streak { id } pools { totalCount nodes { id } } } }`,
        variables: () => ({ streakId: values.streakId }),
      };
      for (const { query, variables } of [...Object.values(RENDERED), streakPools])
        await app.inject({ method: 'POST', url: '/graphql', payload: { query, variables: variables?.(values) } });
    } finally {
      await app.close();
    }
    expect(answered.length).toBe(Object.keys(RENDERED).length + 1);
    expect([...answered.at(-1)!.parts.keys()]).toContain('streakPools.pools.nodes');
    let members = 0;
    for (const data of answered) {
      const whole = JSON.parse(data.json());
      expect(data.parts.size).toBeGreaterThan(0);
      for (const path of data.parts.keys()) {
        if (path.includes('.')) members++;
        const value = path.split('.').reduce((parent, key) => parent[key], whole);
        // Byte for byte: the text is written as JSON.stringify writes it.
        expect(data.piecesAt(path)!.join(''), path).toBe(JSON.stringify(value));
      }
    }
    // Root connections' members were among them, not only root fields.
    expect(members).toBeGreaterThan(10);
  });

  it.each(Object.entries(EXECUTED))('%s: executed as before', async (_name, query) => {
    const executed = await answer(query, undefined, false);
    const fallback = await answer(query, undefined, true);
    expect(fallback.rendered).toBe(0);
    expect(fallback.response.status).toBe(executed.response.status);
    expect({ data: fallback.response.data, errors: fallback.response.errors }).toEqual({
      data: executed.response.data,
      errors: executed.response.errors,
    });
  });

  it("a read refused for the request's own fault (signed out) falls back counted as request_error, not as a failed read", async () => {
    const query = '{ unreadNotificationCount pools(first: 1) { nodes { id } } }';
    const executed = await answer(query, undefined, false);
    const before = await renderFallbacks(t.app);
    const fallback = await answer(query, undefined, true);
    const after = await renderFallbacks(t.app);
    expect(fallback.rendered).toBe(0);
    expect(fallback.response.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect({ status: fallback.response.status, data: fallback.response.data, errors: fallback.response.errors }).toEqual({
      status: executed.response.status,
      data: executed.response.data,
      errors: executed.response.errors,
    });
    expect((after.request_error ?? 0) - (before.request_error ?? 0)).toBe(1);
    expect(after.read_failed ?? 0).toBe(before.read_failed ?? 0);
  });

  it('variables nested 40,000 levels deep are answered as the executor answers them, not 500', async () => {
    const depth = 40_000;
    // Lists, to stay under the body limit; written as text: JSON.stringify runs out of stack at this depth.
    const nested = `{"status":${'['.repeat(depth)}"ACTIVE"${']'.repeat(depth)}}`;
    const payload = `{"query":"query($f: PoolFilter) { pools(first: 1, filter: $f) { nodes { id } } }","variables":{"f":${nested}}}`;
    const send = (app: FastifyInstance) =>
      app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, payload });
    const executed = await send(executor);
    const before = await renderedReadsServed(t.app);
    const rendered = await send(t.app);
    expect(executed.statusCode).not.toBe(500);
    expect(await renderedReadsServed(t.app)).toBe(before);
    expect({ status: rendered.statusCode, body: rendered.json() }).toEqual({ status: executed.statusCode, body: executed.json() });
  });

  it("one plan serves a document's requests whatever its root field's id; a condition's value is a plan of its own", async () => {
    const { data } = await t.gql(`{ pools(first: 24) { nodes { id } } }`);
    const ids: string[] = data.pools.nodes.map((pool: { id: string }) => pool.id);
    expect(ids.length).toBeGreaterThan(16); // more than an operation keeps plans for
    const planned = vi.spyOn(ReadRenderer.prototype as unknown as { plan: () => unknown }, 'plan');
    try {
      const byId = `query($id: ID!, $withUser: Boolean!) { pool(id: $id) { id title user @include(if: $withUser) { username } } }`;
      const refetch = `query($id: ID!) { node(id: $id) { id ... on Pool { title totalVolume } } }`;
      for (const [i, id] of ids.entries()) {
        const withUser = i % 2 === 0;
        const [rendered, executed] = [await answer(byId, { id, withUser }, true), await answer(byId, { id, withUser }, false)];
        expect(rendered.rendered).toBe(1);
        expect(rendered.body).toBe(executed.body);
        expect(rendered.response.data.pool.user === undefined).toBe(!withUser);
      }
      // One plan for each value of the condition, none for the ids.
      expect(planned).toHaveBeenCalledTimes(2);
      // A refetch's plan depends on the id's type, which its first read learns (until then it
      // is planned at each request, probing every type); then one plan serves every pool.
      for (const id of ids) expect((await answer(refetch, { id }, true)).body).toBe((await answer(refetch, { id }, false)).body);
      planned.mockClear();
      for (const round of [1, 2]) for (const id of ids) expect((await answer(refetch, { id }, true)).rendered, `round ${round}`).toBe(1);
      expect(planned.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      planned.mockRestore();
    }
  });

  it('the bench read is one statement', async () => {
    const query = RENDERED['bench VOLUME_HIGH']!.query;
    await answer(query, undefined, true);
    let served = 0;
    const statements = await t.countStatements(async () => {
      served = (await answer(query, undefined, true)).rendered;
    });
    expect(served).toBe(1);
    expect(statements).toBe(1);
  });
});
