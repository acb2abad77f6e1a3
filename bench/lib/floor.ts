import type { PGlite } from '@electric-sql/pglite';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import postgres from 'postgres';
import type { Database } from '../../src/db/client.js';
import { verifyAccessToken } from '../../src/modules/auth/tokens.js';
import { type BenchShape, POOLS_PER_PAGE, PREDICTIONS_PER_POOL, SHAPES } from './query.js';

/**
 * An amount in whole tokens, exactly: base units times 10^-decimals is an exact numeric
 * (a product of exact numerics), and its float8 cast rounds that decimal once, as
 * `Number()` of toTokens' exact decimal string does. float8 prints the shortest
 * round-trip form, so JSON.parse of either side gives the same double.
 */
const tokens = (units: string, decimals: string) => `(${units}::numeric * power(10::numeric, -${decimals}))::float8`;

/**
 * The floor of a nested-read shape: ONE hand-written statement that builds the whole GraphQL
 * response (`{"data": ...}`) of the shape's query as JSON text, so neither the driver nor Node
 * parses or re-serialises anything: the route sends the text as it comes.
 *
 * A page of pools in `poolOrder`, each with its newest predictions (a subquery walking the
 * (pool_id, created_at, id) index that stops after the page); the one-to-one relations
 * are correlated subqueries (index lookups whatever the planner's statistics say). The page
 * sizes are written in the text, as the app writes them: given as parameters, Postgres
 * plans the statement at every execution (a custom plan for each LIMIT), which the app's
 * statements never pay.
 */
export const floorSql = (poolOrder: string, offset = 0) =>
  poolsPageSql(
    poolOrder,
    offset ? deepPools(poolOrder) : `(select * from pools order by ${poolOrder} limit ${POOLS_PER_PAGE}) p`,
    PREDICTIONS_PER_POOL,
  );

/** A page of the pools list read from `pools` (the page's rows as `p`), each pool with its `predictions` newest predictions. */
const poolsPageSql = (poolOrder: string, pools: string, predictions: number) => `
select json_build_object('data', json_build_object('pools', json_build_object('nodes', coalesce(json_agg(
  json_build_object(
    'id', p.id,
    'title', p.title,
    'totalVolume', ${tokens('p.total_volume', 'p.decimals')},
    'user', (select json_build_object('id', u.id, 'username', u.username) from users u where u.id = p.created_by),
    'image', (select json_build_object('id', i.id, 'url', i.url) from images i where i.id = p.image_id),
    'streak', (select json_build_object('id', s.id, 'title', s.title) from streaks s where s.id = p.streak_id),
    'resolution', (select json_build_object('id', r.id, 'result', r.result::float8) from resolutions r where r.pool_id = p.id),
    'predictions', json_build_object('nodes', (
      select coalesce(json_agg(
        json_build_object(
          'id', x.id,
          'stake', ${tokens('x.stake', 'x.decimals')},
          'prediction', x.prediction::float8,
          'user', (select json_build_object('id', xu.id, 'username', xu.username) from users xu where xu.id = x.user_id),
          'reward', (
            select json_build_object('id', w.id, 'amount', ${tokens('w.amount', 'w.decimals')})
            from rewards w where w.prediction_id = x.id
          )
        ) order by x.created_at desc, x.id desc), '[]'::json)
      from (select * from predictions where pool_id = p.id order by created_at desc, id desc limit ${predictions}) x
    ))
  ) order by ${poolOrder.replace(/(^|, )/g, '$1p.')}), '[]'::json))))::text as body
from ${pools}`;

/**
 * The pools of a page far down the list ($1 rows skipped): the page's keys chosen first, by
 * the index of the order alone, and only its rows read and written.
 */
const deepPools = (poolOrder: string) =>
  `(select pl.* from (select id from pools order by ${poolOrder} limit ${POOLS_PER_PAGE} offset $1) k join pools pl on pl.id = k.id) p`;

/** A timestamp as Date.toISOString() writes it (UTC, milliseconds), null for NULL. */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** `{ id username }` of the user `id` names. */
const userObject = (alias: string, id: string) =>
  `(select json_build_object('id', ${alias}.id, 'username', ${alias}.username) from users ${alias} where ${alias}.id = ${id})`;
/** `{ id amount }` of a prediction's reward. */
const rewardObject = (alias: string, prediction: string) =>
  `(select json_build_object('id', ${alias}.id, 'amount', ${tokens(`${alias}.amount`, `${alias}.decimals`)}) from rewards ${alias} where ${alias}.prediction_id = ${prediction})`;
/** The newest `limit` rows of `table` whose `column` is `parent`, as `x`. */
const newest = (table: string, column: string, parent: string, limit: number | string) =>
  `(select * from ${table} where ${column} = ${parent} order by created_at desc, id desc limit ${limit}) x`;
const aggregate = (object: string, order = 'x.created_at desc, x.id desc') => `coalesce(json_agg(${object} order by ${order}), '[]'::json)`;

/** The streaks page's floor (lib/query.ts, STREAKS_PAGE): streaks, their pools and predictions, newest first, each level a page walking its index. */
const streaksFloorSql = `
select json_build_object('data', json_build_object('streaks', json_build_object('nodes', coalesce(json_agg(
  json_build_object('id', s.id, 'title', s.title, 'pools', json_build_object('nodes', (
    select coalesce(json_agg(json_build_object(
      'id', p.id, 'title', p.title, 'totalVolume', ${tokens('p.total_volume', 'p.decimals')},
      'predictions', json_build_object('nodes', (
        select coalesce(json_agg(json_build_object(
          'id', x.id, 'stake', ${tokens('x.stake', 'x.decimals')},
          'user', (select json_build_object('id', u.id, 'username', u.username) from users u where u.id = x.user_id)
        ) order by x.created_at desc, x.id desc), '[]'::json)
        from (select * from predictions where pool_id = p.id order by created_at desc, id desc limit 5) x))
    ) order by p.created_at desc, p.id desc), '[]'::json)
    from (select * from pools where streak_id = s.id order by created_at desc, id desc limit 10) p)))
  order by s.created_at desc, s.id desc), '[]'::json))))::text as body
from (select * from streaks order by created_at desc, id desc limit 10) s`;

/**
 * The pool detail page's floor ($1 the pool): the pool with its one-to-one relations, its 20
 * newest predictions and their count, and its statistics as pool-statistics.service.ts
 * computes them (the stake-weighted median, ten equal-width buckets from minOutcome to
 * maxOutcome, the last one closed, bounds in float8 arithmetic as in JavaScript).
 */
const poolDetailFloorSql = `
select json_build_object('data', json_build_object('pool', (select json_build_object(
  'id', p.id, 'title', p.title, 'description', p.description, 'status', p.status, 'predictionEndDate', ${iso('p.prediction_end_date')},
  'minOutcome', p.min_outcome::float8, 'maxOutcome', p.max_outcome::float8, 'totalVolume', ${tokens('p.total_volume', 'p.decimals')},
  'user', ${userObject('u', 'p.created_by')},
  'image', (select json_build_object('id', i.id, 'url', i.url) from images i where i.id = p.image_id),
  'streak', (select json_build_object('id', s.id, 'title', s.title) from streaks s where s.id = p.streak_id),
  'resolution', (select json_build_object('id', r.id, 'result', r.result::float8) from resolutions r where r.pool_id = p.id),
  'predictions', json_build_object(
    'totalCount', (select count(*)::int from predictions c where c.pool_id = p.id),
    'nodes', (select ${aggregate(`json_build_object('id', x.id, 'createdAt', ${iso('x.created_at')}, 'stake', ${tokens('x.stake', 'x.decimals')},
      'prediction', x.prediction::float8, 'user', ${userObject('xu', 'x.user_id')}, 'reward', ${rewardObject('w', 'x.id')})`)}
      from ${newest('predictions', 'pool_id', 'p.id', 20)})),
  'statistics', json_build_object(
    'predictionCount', (select count(*)::int from predictions q where q.pool_id = p.id),
    'totalStake', (select ${tokens('coalesce(sum(q.stake), 0)', 'p.decimals')} from predictions q where q.pool_id = p.id),
    'stakeWeightedMedian', (select m.prediction::float8 from (
        select q.prediction, sum(q.stake) over (order by q.prediction rows unbounded preceding) as below from predictions q where q.pool_id = p.id) m
      where 2 * m.below >= (select sum(q.stake) from predictions q where q.pool_id = p.id) order by m.prediction limit 1),
    'buckets', (select json_agg(json_build_object(
        'from', p.min_outcome::float8 + ((p.max_outcome::float8 - p.min_outcome::float8) / 10) * (g.i - 1),
        'to', case when g.i = 10 then p.max_outcome::float8 else p.min_outcome::float8 + ((p.max_outcome::float8 - p.min_outcome::float8) / 10) * g.i end,
        'count', coalesce(h.n, 0), 'stake', ${tokens('coalesce(h.stake, 0)', 'p.decimals')}) order by g.i)
      from generate_series(1, 10) g(i) left join (
        select least(width_bucket(q.prediction, p.min_outcome, p.max_outcome, 10), 10) as b, count(*)::int as n, sum(q.stake) as stake
        from predictions q where q.pool_id = p.id group by 1) h on h.b = g.i))
) from pools p where p.id = $1)))::text as body`;

/** The user profile's floor ($1 the user): 20 newest predictions with pool and reward, 10 newest pools created, both counts. */
const userProfileFloorSql = `
select json_build_object('data', json_build_object('user', (select json_build_object(
  'id', u.id, 'username', u.username, 'createdAt', ${iso('u.created_at')}, 'twitterUsername', u.twitter_username,
  'avatar', (select json_build_object('id', i.id, 'url', i.url) from images i where i.id = u.avatar_id),
  'predictions', json_build_object(
    'totalCount', (select count(*)::int from predictions c where c.user_id = u.id),
    'nodes', (select ${aggregate(`json_build_object('id', x.id, 'createdAt', ${iso('x.created_at')}, 'stake', ${tokens('x.stake', 'x.decimals')},
      'prediction', x.prediction::float8,
      'pool', (select json_build_object('id', pl.id, 'title', pl.title, 'status', pl.status) from pools pl where pl.id = x.pool_id),
      'reward', ${rewardObject('w', 'x.id')})`)}
      from ${newest('predictions', 'user_id', 'u.id', 20)})),
  'pools', json_build_object(
    'totalCount', (select count(*)::int from pools c where c.created_by = u.id),
    'nodes', (select ${aggregate(`json_build_object('id', x.id, 'title', x.title, 'totalVolume', ${tokens('x.total_volume', 'x.decimals')},
      'predictionEndDate', ${iso('x.prediction_end_date')})`)}
      from ${newest('pools', 'created_by', 'u.id', 10)}))
) from users u where u.id = $1)))::text as body`;

/**
 * A user's largest stakes in resolved pools ($1 the user): 20 predictions whose pool has a
 * resolution, by stake then id, each with its pool and reward, and their count.
 */
const userStakesFloorSql = `
select json_build_object('data', json_build_object('user', (select json_build_object(
  'id', u.id, 'username', u.username,
  'predictions', json_build_object(
    'totalCount', (select count(*)::int from predictions c where c.user_id = u.id and exists (select 1 from resolutions r where r.pool_id = c.pool_id)),
    'nodes', (select ${aggregate(
      `json_build_object('id', x.id, 'stake', ${tokens('x.stake', 'x.decimals')}, 'prediction', x.prediction::float8,
      'pool', (select json_build_object('id', pl.id, 'title', pl.title) from pools pl where pl.id = x.pool_id),
      'reward', ${rewardObject('w', 'x.id')})`,
      'x.stake desc, x.id desc',
    )}
      from (select * from predictions c where c.user_id = u.id and exists (select 1 from resolutions r where r.pool_id = c.pool_id)
        order by stake desc, id desc limit 20) x))
) from users u where u.id = $1)))::text as body`;

/**
 * The viewer page's floor ($1 the session id of the bearer token, which the route verifies
 * as the app does): the session must be open, as the app checks per request; then the
 * portfolio (money.service.ts: predictions by whether their pool is resolved, stakes and
 * payouts summed in base units), 10 newest notifications, the unread count, 10 newest
 * predictions with their pools and rewards.
 */
const viewerFloorSql = `
select json_build_object('data', json_build_object('viewer', json_build_object(
  'id', u.id, 'username', u.username,
  'portfolio', (select json_build_object(
      'activeCount', f.active_n, 'activeStake', ${tokens('f.active_stake', 'f.decimals')},
      'totalStaked', ${tokens('(f.active_stake + f.resolved_stake)', 'f.decimals')},
      'resolvedCount', f.resolved_n, 'resolvedStake', ${tokens('f.resolved_stake', 'f.decimals')},
      'totalPayout', ${tokens('f.paid', 'f.decimals')}, 'realizedPnl', ${tokens('(f.paid - f.resolved_stake)', 'f.decimals')})
    from (select count(*) filter (where res.id is null)::int as active_n, coalesce(sum(q.stake) filter (where res.id is null), 0) as active_stake,
                 count(*) filter (where res.id is not null)::int as resolved_n, coalesce(sum(q.stake) filter (where res.id is not null), 0) as resolved_stake,
                 coalesce(sum(r.amount) filter (where res.id is not null), 0) as paid, coalesce(max(q.decimals), 0) as decimals
          from predictions q left join resolutions res on res.pool_id = q.pool_id left join rewards r on r.prediction_id = q.id
          where q.user_id = u.id) f),
  'notifications', json_build_object('nodes', (select ${aggregate(`json_build_object('id', x.id, 'createdAt', ${iso('x.created_at')},
      'type', x.type, 'title', x.title, 'message', x.message, 'readAt', ${iso('x.read_at')})`)}
    from ${newest('notifications', 'user_id', 'u.id', 10)})),
  'predictions', json_build_object('nodes', (select ${aggregate(`json_build_object('id', x.id, 'stake', ${tokens('x.stake', 'x.decimals')},
      'prediction', x.prediction::float8,
      'pool', (select json_build_object('id', pl.id, 'title', pl.title) from pools pl where pl.id = x.pool_id),
      'reward', ${rewardObject('w', 'x.id')})`)}
    from ${newest('predictions', 'user_id', 'u.id', 10)}))
), 'unreadNotificationCount', (select count(*)::int from notifications n where n.user_id = u.id and n.read_at is null)))::text as body
from refresh_tokens t join users u on u.id = t.user_id where t.id = $1 and t.revoked_at is null`;

/** The viewer's feed's floor (lib/query.ts, VIEWER_POOLS_PAGE): the largest pools, each with its creator and the session's user's prediction in it. */
const viewerPoolsFloorSql = `
select json_build_object('data', json_build_object('pools', json_build_object('nodes', (select ${aggregate(
  `json_build_object('id', x.id, 'title', x.title, 'totalVolume', ${tokens('x.total_volume', 'x.decimals')},
    'user', ${userObject('u', 'x.created_by')},
    'viewerPrediction', (select json_build_object('id', v.id, 'stake', ${tokens('v.stake', 'v.decimals')}, 'prediction', v.prediction::float8)
      from predictions v where v.pool_id = x.id and v.user_id = t.user_id))`,
  'x.total_volume desc, x.id desc',
)}
    from (select * from pools order by total_volume desc, id desc limit ${POOLS_PER_PAGE}) x))))::text as body
from refresh_tokens t where t.id = $1 and t.revoked_at is null`;

/**
 * A leaderboard's floor: the first 20 by payout (leaderboard.service.ts: ties share a rank,
 * ordered by user id), read from the payout index of the board's kept rows (`rows`, the ALL
 * board's or a window's, built by the warm-up's reads); the board's size as kept (`size`);
 * each user with avatar. On the board's first page a tie's rank is its first position there.
 */
const leaderboardFloorSql = (rows: string, size: string) => `
with numbered as (
  select user_id, payout, staked, (score_sum / scored_count)::float8 as precision, scored_count::int as n, decimals,
         row_number() over (order by payout desc, user_id)::int as position
  from (select * from ${rows} order by payout desc, user_id limit 20) t),
ranked as (select numbered.*, min(position) over (partition by payout)::int as rank from numbered)
select json_build_object('data', json_build_object('leaderboard', json_build_object('totalCount', ${size}, 'nodes', ${aggregate(
  `json_build_object('rank', r.rank, 'payout', ${tokens('r.payout', 'r.decimals')}, 'staked', ${tokens('r.staked', 'r.decimals')},
    'precision', r.precision, 'predictionCount', r.n,
    'user', (select json_build_object('id', u.id, 'username', u.username,
      'avatar', (select json_build_object('id', i.id, 'url', i.url) from images i where i.id = u.avatar_id)) from users u where u.id = r.user_id))`,
  'r.position',
)})))::text as body
from ranked r`;

/**
 * The deep nested page's floor ($1 the pool, $2 and $3 the cursor's created_at and id): the
 * 20 predictions after the cursor, walking the (pool_id, created_at, id) index from it.
 */
const deepCursorFloorSql = `
select json_build_object('data', json_build_object('pool', (select json_build_object(
  'id', p.id, 'title', p.title,
  'predictions', json_build_object('nodes', (select ${aggregate(`json_build_object('id', x.id, 'createdAt', ${iso('x.created_at')},
      'stake', ${tokens('x.stake', 'x.decimals')}, 'prediction', x.prediction::float8,
      'user', ${userObject('xu', 'x.user_id')}, 'reward', ${rewardObject('w', 'x.id')})`)}
    from (select * from predictions where pool_id = p.id and (created_at, id) < ($2, $3)
          order by created_at desc, id desc limit 20) x))
) from pools p where p.id = $1)))::text as body`;

/**
 * The deep creator page's floor ($1 the creator, $2 the rows skipped): as DEEP_OFFSET's, the
 * page's keys chosen first, by the (created_by, created_at, id) index alone, then only its
 * rows read and written.
 */
const deepCreatorFloorSql = poolsPageSql(
  'created_at desc, id desc',
  `(select pl.* from (select id from pools where created_by = $1 order by created_at desc, id desc limit ${POOLS_PER_PAGE} offset $2) k
    join pools pl on pl.id = k.id) p`,
  PREDICTIONS_PER_POOL,
);

/** A Relay refetch's floor ($1 a pool's id): the hand-written endpoint knows the type. */
const nodeFloorSql = `
select json_build_object('data', json_build_object('node', (select json_build_object(
  '__typename', 'Pool', 'id', p.id, 'title', p.title, 'status', p.status, 'totalVolume', ${tokens('p.total_volume', 'p.decimals')},
  'predictionEndDate', ${iso('p.prediction_end_date')}, 'user', ${userObject('u', 'p.created_by')},
  'image', (select json_build_object('id', i.id, 'url', i.url) from images i where i.id = p.image_id),
  'resolution', (select json_build_object('id', r.id, 'result', r.result::float8) from resolutions r where r.pool_id = p.id)
) from pools p where p.id = $1)))::text as body`;

/** The pages with a floor of their own, and the types of their parameters. */
const FLOORS: Record<NonNullable<BenchShape['floor']>, { text: string; types: string[] }> = {
  POOL_DETAIL: { text: poolDetailFloorSql, types: ['uuid'] },
  DEEP_CURSOR: { text: deepCursorFloorSql, types: ['uuid', 'timestamptz', 'uuid'] },
  DEEP_CREATOR_OFFSET: { text: deepCreatorFloorSql, types: ['uuid', 'int'] },
  USER_PROFILE: { text: userProfileFloorSql, types: ['uuid'] },
  USER_STAKES: { text: userStakesFloorSql, types: ['uuid'] },
  STREAKS: { text: streaksFloorSql, types: [] },
  VIEWER: { text: viewerFloorSql, types: ['uuid'] },
  VIEWER_POOLS: { text: viewerPoolsFloorSql, types: ['uuid'] },
  LEADERBOARD: { text: leaderboardFloorSql('leaderboard_totals', '(select users from leaderboard_size)'), types: [] },
  LEADERBOARD_MONTH: {
    text: leaderboardFloorSql(
      "leaderboard_window_totals where period = 'MONTH'",
      "(select users from leaderboard_windows where period = 'MONTH')",
    ),
    types: [],
  },
  NODE: { text: nodeFloorSql, types: ['uuid'] },
};

/** The floor statement of a shape and its parameter types; null for `{ __typename }`. */
function floorOf(shape: BenchShape): { text: string; types: string[] } | null {
  if (shape.poolOrder) return { text: floorSql(shape.poolOrder, shape.offset), types: shape.offset ? ['int'] : [] };
  return shape.floor ? FLOORS[shape.floor] : null;
}

/** What a hand-written endpoint reads of the request: the page's variable `id`, or the verified session of its bearer token. */
export async function paramsOf(shape: BenchShape, request: FastifyRequest, secret: Uint8Array): Promise<unknown[]> {
  if (shape.poolOrder) return shape.offset ? [shape.offset] : [];
  if (shape.signedIn) {
    const token = request.headers.authorization?.replace(/^Bearer /, '') ?? '';
    return [(await verifyAccessToken(secret, token, new Date())).sessionId];
  }
  if (shape.floor === 'DEEP_CURSOR') {
    // The cursor as the app writes it (pagination.ts, encodeCursor): base64url of [sort, key, id].
    const { id, after } = (request.body as { variables: { id: string; after: string } }).variables;
    const [, createdAt, predictionId] = JSON.parse(Buffer.from(after, 'base64url').toString('utf8')) as [string, string, string];
    return [id, createdAt, predictionId];
  }
  if (shape.floor === 'DEEP_CREATOR_OFFSET') {
    const { id, offset } = (request.body as { variables: { id: string; offset: number } }).variables;
    return [id, offset];
  }
  if (shape.discover) return [(request.body as { variables: { id: string } }).variables.id];
  return [];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** A parameter written into PGlite's EXECUTE: numbers as they are, UUIDs (checked) quoted. */
function literal(value: unknown): string {
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  if (typeof value === 'string' && (UUID.test(value) || ISO_DATE.test(value))) return `'${value}'`;
  throw new Error(`a floor parameter must be an integer, a UUID or an ISO date, got ${JSON.stringify(value)}`);
}

/**
 * A statement prepared once per connection and planned once: postgres.js sends one without
 * parameters as a simple query (planned at every execution) unless told otherwise (`simple`,
 * which its types leave out).
 */
export const PREPARED = { prepare: true, simple: false };

/** `{ __typename }` needs no statement: its floor is the constant answer. */
const TYPENAME_BODY = JSON.stringify({ data: { __typename: 'Query' } });

/**
 * Runs a shape's floor statement prepared, as a hand-written endpoint would: postgres.js
 * prepares it once per connection (its own pool of 10, the app's size); PGlite is one
 * session, so one PREPARE serves every request.
 */
export async function floorQuery(
  database: Database,
  databaseUrl: string | null,
  /** Its connections' application_name: the bench reads their Postgres CPU by it. */
  applicationName = 'poolgraph_bench_floor',
): Promise<{ run(shape: BenchShape, params: unknown[]): Promise<string>; close(): Promise<void> }> {
  const bodyOf = (row: { body: string } | undefined) => {
    if (!row) throw new Error('the floor statement found nothing');
    return row.body;
  };
  if (databaseUrl) {
    const client = postgres(databaseUrl, {
      max: 10,
      fetch_types: false,
      onnotice: () => {},
      connection: { application_name: applicationName },
    });
    return {
      run: async (shape, params) => {
        const [row] = await client.unsafe<Array<{ body: string }>>(floorOf(shape)!.text, params as string[], PREPARED);
        return bodyOf(row);
      },
      close: () => client.end({ timeout: 5 }),
    };
  }
  const client = (database.db as unknown as { $client: PGlite }).$client;
  for (const shape of SHAPES) {
    const floor = floorOf(shape);
    if (floor)
      await client.exec(
        `PREPARE floor_${shape.name.toLowerCase()}${floor.types.length ? `(${floor.types.join(', ')})` : ''} AS ${floor.text}`,
      );
  }
  return {
    run: async (shape, params) => {
      const result = await client.query<{ body: string }>(
        `EXECUTE floor_${shape.name.toLowerCase()}${params.length ? `(${params.map(literal).join(', ')})` : ''}`,
      );
      return bodyOf(result.rows[0]);
    },
    close: async () => {},
  };
}

/**
 * The floor server: plain fastify, one route per shape, one statement, the JSON text sent
 * as is. `authSecret` is the GraphQL server's (the bench gives both the same), so the
 * viewer page's route verifies the bearer token as the app does.
 */
export async function createFloorApp(database: Database, databaseUrl: string | null, authSecret: Uint8Array): Promise<FastifyInstance> {
  const query = await floorQuery(database, databaseUrl);
  const app = Fastify({ logger: false });
  app.addHook('onClose', () => query.close());
  for (const shape of SHAPES) {
    const send = floorOf(shape)
      ? async (request: FastifyRequest) => query.run(shape, await paramsOf(shape, request, authSecret))
      : async () => TYPENAME_BODY;
    app.post(`/floor/${shape.name}`, async (request, reply) => reply.type('application/json; charset=utf-8').send(await send(request)));
  }
  return app;
}
