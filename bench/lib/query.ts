/**
 * What the nested-read bench measures: a corpus of frontend pages, each a GraphQL query
 * answered by poolgraph and by its floor (one hand-written statement building the page's
 * JSON, lib/floor.ts), and `{ __typename }` (the fixed cost of a request).
 *
 * - CREATION_DATE, VOLUME_HIGH: the pools list, 20 pools with user, image, streak,
 *   resolution and 10 predictions each with user and reward; the newest pools (few
 *   predictions) and the largest (10 predictions on each, many rewarded).
 * - POOL_DETAIL: one pool's page: its fields, creator, image, streak, resolution, its 20
 *   newest predictions with users and rewards and their count, and its statistics.
 * - USER_PROFILE: a user's public profile: 20 predictions each with its pool and reward,
 *   and the 10 newest pools the user created, with both counts.
 * - USER_STAKES: a user's 20 largest stakes in resolved pools (their predictions filtered
 *   RESOLVED, sorted STAKE_HIGH), each with its pool and reward, and their count.
 * - STREAKS: 10 streaks, each with its 10 newest pools, each with its 5 newest predictions.
 * - VIEWER: the signed-in viewer's portfolio, 10 newest notifications with the unread
 *   count, and 10 newest predictions with their pools (a session's bearer token).
 * - VIEWER_POOLS: the signed-in viewer's feed: the 20 largest pools, each with its creator and
 *   the viewer's own prediction in it (null where none).
 * - LEADERBOARD: the first 20 of the board by payout, each with its user and avatar.
 * - LEADERBOARD_MONTH: the same page of the month's board (the window's rows kept as of today).
 * - NODE: a Relay refetch, `node(id)` of a pool with its fragment's fields and relations.
 * - DEEP_OFFSET: the pools list's CREATION_DATE page far down the list (`offset`, BENCH_OFFSET).
 * - DEEP_KEYSET: the same rows as DEEP_OFFSET, reached `after` the cursor of the row before
 *   them: the same answer without an offset, so DEEP_OFFSET against it is what the offset costs.
 * - DEEP_CURSOR: a page of the busiest pools' predictions far down their list (`after` a cursor).
 * - DEEP_CREATOR_OFFSET: the busiest creators' pools (the pools list filtered by `createdBy`,
 *   CREATION_DATE's selection) 80 % down their list (`offset`, found in the data at the start).
 *   Nested connections take no `offset` (only `pools` and `streakPools` do), so a user's pools
 *   paged by position are asked through the filter.
 */
export const POOLS_PER_PAGE = 20;
export const PREDICTIONS_PER_POOL = 10;

/** The performance budget's reference size. */
export const REFERENCE_SEED = Object.freeze({ users: 10_000, pools: 1_000, streaks: 12, seed: 20_261_231 });

/** BENCH_SCALE: how many times the reference size the bench builds (1 by default; 10 for ten times the pools, users and streaks). */
export const BENCH_SCALE = (() => {
  const scale = Number(process.env.BENCH_SCALE || 1);
  if (!Number.isSafeInteger(scale) || scale < 1)
    throw new Error(`BENCH_SCALE must be a whole number of 1 or more, got "${process.env.BENCH_SCALE}"`);
  return scale;
})();

/** The database the bench builds: the reference size times BENCH_SCALE. */
export const BENCH_SEED = Object.freeze({
  users: REFERENCE_SEED.users * BENCH_SCALE,
  pools: REFERENCE_SEED.pools * BENCH_SCALE,
  streaks: REFERENCE_SEED.streaks * BENCH_SCALE,
  seed: REFERENCE_SEED.seed,
});

/**
 * How far down the list the deep-offset page starts: it must fit the database (800 of the
 * reference size's 1,000 pools; 8000 of ten times that).
 */
export const DEEP_OFFSET = Number(process.env.BENCH_OFFSET ?? 800);

/** A pool of the pools list's pages: user, image, streak, resolution, its newest predictions with user and reward. */
const POOL_NODE =
  'id title totalVolume user { id username } image { id url } streak { id title } resolution { id result } ' +
  `predictions(first: ${PREDICTIONS_PER_POOL}) { nodes { id stake prediction user { id username } reward { id amount } } }`;

const nestedRead = (sort: string, offset = 0) =>
  `{ pools(first: ${POOLS_PER_PAGE}${offset ? `, offset: ${offset}` : ''}, sort: ${sort}) { nodes { ${POOL_NODE} } } }`;

/** A creator's pools, newest first, `$offset` rows down: a page far down a user's list (User.pools takes no offset). */
const DEEP_CREATOR_OFFSET_PAGE =
  `query CreatorPools($id: ID!, $offset: Int!) { pools(first: ${POOLS_PER_PAGE}, offset: $offset, sort: CREATION_DATE, ` +
  `filter: { createdBy: $id }) { nodes { ${POOL_NODE} } } }`;

/** How far down a creator's list DEEP_CREATOR_OFFSET starts: as far as DEEP_OFFSET's 800 of 1,000 pools. */
const CREATOR_DEPTH = 0.8;

export type ShapeName =
  | 'CREATION_DATE'
  | 'VOLUME_HIGH'
  | 'DEEP_OFFSET'
  | 'DEEP_KEYSET'
  | 'POOL_DETAIL'
  | 'DEEP_CURSOR'
  | 'DEEP_CREATOR_OFFSET'
  | 'USER_PROFILE'
  | 'USER_STAKES'
  | 'STREAKS'
  | 'VIEWER'
  | 'VIEWER_POOLS'
  | 'LEADERBOARD'
  | 'LEADERBOARD_MONTH'
  | 'NODE'
  | 'typename';

export interface BenchShape {
  name: ShapeName;
  query: string;
  /** The pools' ORDER BY of the pools list's floor statement; null for the other pages. */
  poolOrder: string | null;
  /** The pools list's rows skipped before the page (its floor's too). */
  offset?: number;
  /** A page other than the pools list: its own floor statement (lib/floor.ts, FLOORS). */
  floor?: Exclude<ShapeName, 'CREATION_DATE' | 'VOLUME_HIGH' | 'DEEP_OFFSET' | 'DEEP_KEYSET' | 'typename'>;
  /**
   * The page's variables (ids of the reference database), found by asking the GraphQL
   * server this query before the check: up to `count` sets (BENCH_IDS), which the load
   * sends in turn, as a page is asked for many records; every server receives the same bodies.
   */
  discover?: { query: string; variables: (data: any, count: number) => Array<Record<string, unknown>> };
  /** Sent with the bench viewer's session (a bearer token the GraphQL server issued at start). */
  signedIn?: boolean;
}

/**
 * The bench viewer: of the users with notifications, the one with the most predictions (so
 * the viewer page has all its parts); the statement-count test signs in as the same user.
 */
export const VIEWER_CHOICE_SQL =
  'SELECT n.user_id FROM notifications n GROUP BY n.user_id ' +
  'ORDER BY (SELECT count(*) FROM predictions p WHERE p.user_id = n.user_id) DESC, count(*) DESC, n.user_id LIMIT 1';

/** The request body both servers receive: the floor reads only the variables. */
export const bodyOf = (shape: BenchShape, variables?: Record<string, unknown>) =>
  JSON.stringify(variables ? { query: shape.query, variables } : { query: shape.query });

/** The streaks page: 10 streaks, each with its 10 newest pools, each with its 5 newest predictions and their users. */
const STREAKS_PAGE =
  '{ streaks(first: 10) { nodes { id title pools(first: 10) { nodes { id title totalVolume predictions(first: 5) { nodes { id stake ' +
  'user { id username } } } } } } } }';

const POOL_DETAIL_PAGE =
  'query PoolDetail($id: ID!) { pool(id: $id) { id title description status predictionEndDate minOutcome maxOutcome totalVolume ' +
  'user { id username } image { id url } streak { id title } resolution { id result } ' +
  'predictions(first: 20) { totalCount nodes { id createdAt stake prediction user { id username } reward { id amount } } } ' +
  'statistics { predictionCount totalStake stakeWeightedMedian buckets { from to count stake } } } }';

const USER_PROFILE_PAGE =
  'query UserProfile($id: ID!) { user(id: $id) { id username createdAt twitterUsername avatar { id url } ' +
  'predictions(first: 20) { totalCount nodes { id createdAt stake prediction pool { id title status } reward { id amount } } } ' +
  'pools(first: 10) { totalCount nodes { id title totalVolume predictionEndDate } } } }';

const USER_STAKES_PAGE =
  'query UserStakes($id: ID!) { user(id: $id) { id username predictions(first: 20, filter: RESOLVED, sort: STAKE_HIGH) ' +
  '{ totalCount nodes { id stake prediction pool { id title } reward { id amount } } } } }';

const VIEWER_PAGE =
  'query Portfolio { viewer { id username ' +
  'portfolio { activeCount activeStake totalStaked resolvedCount resolvedStake totalPayout realizedPnl } ' +
  'notifications(first: 10) { nodes { id createdAt type title message readAt } } ' +
  'predictions(first: 10) { nodes { id stake prediction pool { id title } reward { id amount } } } } ' +
  'unreadNotificationCount }';

const VIEWER_POOLS_PAGE =
  `{ pools(first: ${POOLS_PER_PAGE}, sort: VOLUME_HIGH) { nodes { id title totalVolume user { id username } ` +
  'viewerPrediction { id stake prediction } } } }';

const LEADERBOARD_ENTRIES = 'totalCount nodes { rank payout staked precision predictionCount user { id username avatar { id url } } }';
const LEADERBOARD_PAGE = `{ leaderboard(first: 20) { ${LEADERBOARD_ENTRIES} } }`;
const LEADERBOARD_MONTH_PAGE = `{ leaderboard(period: MONTH, first: 20) { ${LEADERBOARD_ENTRIES} } }`;

const NODE_PAGE =
  'query Refetch($id: ID!) { node(id: $id) { __typename id ... on Pool { title status totalVolume predictionEndDate ' +
  'user { id username } image { id url } resolution { id result } } } }';

/** The busiest pools' predictions after a cursor far down their list: a nested page that starts deep. */
const DEEP_CURSOR_PAGE =
  'query DeepPredictions($id: ID!, $after: String!) { pool(id: $id) { id title ' +
  'predictions(first: 20, after: $after) { nodes { id createdAt stake prediction user { id username } reward { id amount } } } } }';

/** The pool of largest volume: the busiest detail page. */
const busiestPools = {
  query: '{ pools(first: 100, sort: VOLUME_HIGH) { nodes { id } } }',
  variables: (data: any, count: number) => data.pools.nodes.slice(0, count).map((pool: any) => ({ id: pool.id as string })),
};

/**
 * Of the creators of the 100 largest pools and the board's first 20, the ones with the most
 * predictions and pools: profiles with every part filled.
 */
const profileUsers = {
  query:
    '{ pools(first: 100, sort: VOLUME_HIGH) { nodes { user { ...counts } } } leaderboard(first: 20) { nodes { user { ...counts } } } } ' +
    'fragment counts on User { id predictions(first: 1) { totalCount } pools(first: 1) { totalCount } }',
  variables: (data: any, count: number) => {
    const users = new Map<string, any>([...data.pools.nodes, ...data.leaderboard.nodes].map((node) => [node.user.id, node.user]));
    const score = (user: any) => Math.min(user.predictions.totalCount, 20) + Math.min(user.pools.totalCount, 10);
    return [...users.values()]
      .sort((a, b) => score(b) - score(a))
      .slice(0, count)
      .map((user) => ({ id: user.id as string }));
  },
};

export const SHAPES: readonly BenchShape[] = [
  { name: 'CREATION_DATE', query: nestedRead('CREATION_DATE'), poolOrder: 'created_at desc, id desc' },
  { name: 'VOLUME_HIGH', query: nestedRead('VOLUME_HIGH'), poolOrder: 'total_volume desc, id desc' },
  {
    name: 'DEEP_OFFSET',
    query: nestedRead('CREATION_DATE', DEEP_OFFSET),
    poolOrder: 'created_at desc, id desc',
    offset: DEEP_OFFSET,
  },
  {
    name: 'DEEP_KEYSET',
    query: `query DeepKeyset($after: String!) { pools(first: ${POOLS_PER_PAGE}, after: $after, sort: CREATION_DATE) { nodes { ${POOL_NODE} } } }`,
    // Its floor is DEEP_OFFSET's: the same rows.
    poolOrder: 'created_at desc, id desc',
    offset: DEEP_OFFSET,
    // The cursor of the row before DEEP_OFFSET's first; on a database too small for it, of the
    // last row (both pages are then empty).
    discover: {
      query:
        `{ before: pools(first: 1, offset: ${Math.max(DEEP_OFFSET - 1, 0)}, sort: CREATION_DATE) { edges { cursor } } ` +
        'last: pools(last: 1, sort: CREATION_DATE) { edges { cursor } } }',
      variables: (data: any) => [{ after: (data.before.edges[0] ?? data.last.edges[0]).cursor as string }],
    },
  },
  { name: 'POOL_DETAIL', query: POOL_DETAIL_PAGE, poolOrder: null, floor: 'POOL_DETAIL', discover: busiestPools },
  {
    name: 'DEEP_CURSOR',
    query: DEEP_CURSOR_PAGE,
    poolOrder: null,
    floor: 'DEEP_CURSOR',
    // The cursor of the last of each busy pool's first 100 predictions (the deepest one page reaches).
    discover: {
      query: '{ pools(first: 100, sort: VOLUME_HIGH) { nodes { id predictions(first: 100) { edges { cursor } } } } }',
      variables: (data: any, count: number) =>
        data.pools.nodes
          .filter((pool: any) => pool.predictions.edges.length > 0)
          .slice(0, count)
          .map((pool: any) => ({ id: pool.id as string, after: pool.predictions.edges.at(-1).cursor as string })),
    },
  },
  {
    name: 'DEEP_CREATOR_OFFSET',
    query: DEEP_CREATOR_OFFSET_PAGE,
    poolOrder: null,
    floor: 'DEEP_CREATOR_OFFSET',
    // Of the creators of the newest and the largest 100 pools, those with at least half the
    // busiest one's pools (the operators, who create the streaks' pools: about 120 pools each
    // at the reference size, 1,200 at ten times it), each 80 % down its list.
    discover: {
      query:
        '{ newest: pools(first: 100, sort: CREATION_DATE) { nodes { user { ...created } } } ' +
        'largest: pools(first: 100, sort: VOLUME_HIGH) { nodes { user { ...created } } } } ' +
        'fragment created on User { id pools(first: 1) { totalCount } }',
      variables: (data: any, count: number) => {
        const users = new Map<string, any>([...data.newest.nodes, ...data.largest.nodes].map((node) => [node.user.id, node.user]));
        const busiest = [...users.values()].sort((a, b) => b.pools.totalCount - a.pools.totalCount || (a.id < b.id ? -1 : 1));
        return busiest
          .filter((user) => 2 * user.pools.totalCount >= busiest[0].pools.totalCount)
          .slice(0, count)
          .map((user) => ({ id: user.id as string, offset: Math.floor(user.pools.totalCount * CREATOR_DEPTH) }));
      },
    },
  },
  {
    name: 'USER_PROFILE',
    query: USER_PROFILE_PAGE,
    poolOrder: null,
    floor: 'USER_PROFILE',
    discover: profileUsers,
  },
  // The same users as USER_PROFILE's: profiles with many predictions, so a resolved pool's among them.
  { name: 'USER_STAKES', query: USER_STAKES_PAGE, poolOrder: null, floor: 'USER_STAKES', discover: profileUsers },
  { name: 'STREAKS', query: STREAKS_PAGE, poolOrder: null, floor: 'STREAKS' },
  { name: 'VIEWER', query: VIEWER_PAGE, poolOrder: null, floor: 'VIEWER', signedIn: true },
  { name: 'VIEWER_POOLS', query: VIEWER_POOLS_PAGE, poolOrder: null, floor: 'VIEWER_POOLS', signedIn: true },
  { name: 'LEADERBOARD', query: LEADERBOARD_PAGE, poolOrder: null, floor: 'LEADERBOARD' },
  { name: 'LEADERBOARD_MONTH', query: LEADERBOARD_MONTH_PAGE, poolOrder: null, floor: 'LEADERBOARD_MONTH' },
  { name: 'NODE', query: NODE_PAGE, poolOrder: null, floor: 'NODE', discover: busiestPools },
  { name: 'typename', query: '{ __typename }', poolOrder: null },
];
