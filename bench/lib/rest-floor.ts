/**
 * REST's floor for bench:transports: `GET /pools` with the bench's includes (user, image,
 * streak, resolution, predictions.user, predictions.reward) answered by a minimal server, the
 * body the route answers (the interface's snake_case JSON array, its bytes) written by ONE
 * hand-written statement, and the paging headers the route sets (`X-Total-Count`,
 * `X-Next-Cursor`, `Link`) and its `Cache-Control`. Plain fastify in a process of its own
 * (lib/rest-floor-server.ts), as lib/floor.ts's floors are; bench/transports.ts checks its
 * answer byte-equal to the route's before it measures either.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import postgres from 'postgres';
import { writeNumbersAsJavaScript } from '../../src/read/columns.js';
import { PREPARED } from './floor.js';
import { type ServerProcess, serverProcess } from './processes.js';

/** What the floor answers, and nothing else: the bench's includes, one sort of two, no filter, no offset or cursor. */
export const REST_FLOOR_INCLUDES = ['user', 'image', 'streak', 'resolution', 'predictions.user', 'predictions.reward'] as const;

/** Each sort's order and the key its cursor carries (pagination.ts, encodeCursor: [sort, key, id]). */
const SORTS = {
  CREATION_DATE: {
    order: 'created_at desc, id desc',
    key: `to_char(p.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  },
  VOLUME_HIGH: { order: 'total_volume desc, id desc', key: 'p.total_volume::text' },
} as const;
type Sort = keyof typeof SORTS;

/**
 * A column as JSON text, by kind: u a uuid, t a timestamp (as Date.toISOString() writes it), s
 * text, e an enum, i an integer, b a boolean, f a float (Postgres' shortest round-trip digits,
 * an exponent form marked for writeNumbersAsJavaScript, as the app's rendered reads do), $ a
 * token amount in whole tokens (base units and the row's `decimals`: the float8 input of
 * `<units>e-<decimals>`); `?` after the kind: nullable.
 */
function value(alias: string, column: string, kind: string): string {
  const c = `${alias}.${column}`;
  const text = {
    u: `'"' || ${c}::text || '"'`,
    t: `'"' || to_char(${c} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'`,
    s: `to_json(${c})::text`,
    e: `'"' || ${c}::text || '"'`,
    i: `${c}::text`,
    b: `${c}::text`,
    f: `replace(${c}::float8::text, 'e', E'\\x01e')`,
    $: `replace((${c}::text || 'e-' || ${alias}.decimals::text)::float8::text, 'e', E'\\x01e')`,
  }[kind[0]!];
  if (!text) throw new Error(`unknown column kind ${kind}`);
  return kind.endsWith('?') ? `coalesce(${text}, 'null')` : text;
}

/** `{"column":value,...}` of `alias`'s row: the columns in the route's order (the GraphQL type's), then any members written by SQL. */
function object(alias: string, columns: string, members: Array<[string, string]> = []): string {
  const entries = columns
    .trim()
    .split(/\s+/)
    .map((spec): [string, string] => {
      const [column, kind] = spec.split(':') as [string, string];
      return [column, value(alias, column, kind)];
    });
  const all = [...entries, ...members];
  return `concat(${all.map(([key, sql], i) => `'${i ? ',' : '{'}"${key}":', ${sql}`).join(', ')}, '}')`;
}

const POOL =
  'id:u created_at:t updated_at:t created_by:u image_id:u? streak_id:u? title:s description:s pool_account:s resolution_source:s ' +
  'unit:e max_roi:f stake_token_mint:s decimals:i min_outcome:f max_outcome:f precision:i step:f prediction_start_date:t ' +
  'prediction_end_date:t reference_date:t status:e is_closed:b indexed_prediction_update_count:i platform_fee_rate:f ' +
  'min_stake:$ max_stake:$ total_volume:$';
const USER =
  'id:u created_at:t updated_at:t last_seen_at:t? username:s has_seen_tour:b role:e wallet_address:s avatar_id:u? twitter_username:s?';
const RESOLUTION = 'id:u created_at:t updated_at:t pool_id:u result:f median:f protocol_fee:$ leftover:$';
const IMAGE = 'id:u created_at:t updated_at:t user_id:u url:s';
const STREAK =
  'id:u created_at:t updated_at:t last_processed_pool_id:u? streak_accumulator_account:s title:s fee_percentage:f ' +
  'payout_percentage:f bump:i streak_count_required:i min_precision_score_required:f last_sync_at:t? total_accumulated:$ ' +
  'available_balance:$ onchain_balance:$';
const PREDICTION =
  'id:u created_at:t updated_at:t pool_id:u user_id:u pool_account:s predictor_account:s prediction_account:s prediction:f ' +
  'precision:i stake_token_mint:s decimals:i last_applied_value_revision:i last_applied_stake_revision:i is_fee_payer:b ' +
  'is_closed:b bump:i last_sync_at:t? stake:$';
const REWARD = 'id:u created_at:t updated_at:t prediction_id:u precision_score:f is_claimed:b type:e amount:$';

/** The row of `table` whose `column` is `key`, as JSON text (`null` where there is none): an index lookup. */
const one = (table: string, alias: string, column: string, key: string, columns: string) =>
  `coalesce((select ${object(alias, columns)} from ${table} ${alias} where ${alias}.${column} = ${key}), 'null')`;

/**
 * JSON text of an array: the texts of `rows` joined as JSON.stringify joins them, in the
 * order `rows` (an ordered subquery) gives them. Aggregated without an ORDER BY of their own,
 * the texts are not sorted again (which cost the large page a tenth of its statement's time);
 * Postgres aggregates a sorted subquery's rows in their order, and the bench checks the bytes.
 */
const array = (element: string, rows: string) => `(select '[' || coalesce(string_agg(${element}, ','), '') || ']' from ${rows})`;

/**
 * The page (`limit` pools, each with its `predictionsLimit` newest predictions) as the route's
 * body, its rows' count in all (X-Total-Count) and the last row's key and id (its cursor), in
 * one statement. The limits are written into it, as the app writes its own: a limit passed as a
 * parameter keeps Postgres on custom plans, planning this statement (about a millisecond) at
 * every execution.
 */
function pageSql(sort: Sort, limit: number, predictionsLimit: number): string {
  const { order, key } = SORTS[sort];
  const pool = object('p', POOL, [
    ['user', one('users', 'u', 'id', 'p.created_by', USER)],
    ['resolution', one('resolutions', 'r', 'pool_id', 'p.id', RESOLUTION)],
    ['image', one('images', 'i', 'id', 'p.image_id', IMAGE)],
    ['streak', one('streaks', 's', 'id', 'p.streak_id', STREAK)],
    [
      'predictions',
      array(
        object('x', PREDICTION, [
          ['user', one('users', 'xu', 'id', 'x.user_id', USER)],
          ['reward', one('rewards', 'w', 'prediction_id', 'x.id', REWARD)],
        ]),
        `(select * from predictions where pool_id = p.id order by created_at desc, id desc limit ${predictionsLimit}) x`,
      ),
    ],
  ]);
  const inPage = order.replace(/(^|, )/g, '$1p.');
  return `
select (select count(*)::int from pools) as total, (array_agg(page.key))[count(*)] as last_key,
  (array_agg(page.id))[count(*)] as last_id, '[' || coalesce(string_agg(page.json, ','), '') || ']' as body
from (
  select ${pool} as json, ${key} as key, p.id::text as id
  from (select * from pools order by ${order} limit ${limit}) p order by ${inPage}
) page`;
}

/** A querystring parameter's values: repeated, `name[]=`, or comma-separated, as the route reads them. */
function listOf(query: Record<string, unknown>, name: string): string[] {
  const raw = query[name] ?? query[`${name}[]`];
  return (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).flatMap((v) => String(v).split(','));
}

/** The floor's app: `GET /pools?sort_by=…&includes=<REST_FLOOR_INCLUDES>&limit=…&predictions_limit=…`, anything else 400. */
export function createRestFloorApp(databaseUrl: string, applicationName: string): FastifyInstance {
  // As lib/floor.ts's: its own pool of 10 (the app's size), each statement prepared once per connection.
  const client = postgres(databaseUrl, {
    max: 10,
    fetch_types: false,
    onnotice: () => {},
    connection: { application_name: applicationName },
  });
  // One statement per sort and limits (postgres.js prepares each once per connection).
  const statements = new Map<string, string>();
  const statementOf = (sort: Sort, limit: number, predictionsLimit: number) => {
    const name = `${sort} ${limit} ${predictionsLimit}`;
    let text = statements.get(name);
    if (text === undefined) statements.set(name, (text = pageSql(sort, limit, predictionsLimit)));
    return text;
  };
  const app = Fastify({ logger: false });
  app.addHook('onClose', () => client.end({ timeout: 5 }));
  app.get('/pools', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const sort = query.sort_by as Sort;
    const limit = Number(query.limit);
    const predictionsLimit = Number(query.predictions_limit);
    const includes = listOf(query, 'includes');
    if (
      !Object.hasOwn(SORTS, sort) ||
      !(Number.isSafeInteger(limit) && limit >= 1 && limit <= 100) ||
      !(Number.isSafeInteger(predictionsLimit) && predictionsLimit >= 1 && predictionsLimit <= 100) ||
      includes.join() !== REST_FLOOR_INCLUDES.join() ||
      Object.keys(query).some((name) => !['sort_by', 'limit', 'predictions_limit', 'includes', 'includes[]'].includes(name))
    )
      return reply.code(400).send({ error: { code: 'BAD_USER_INPUT', message: 'the floor answers only the bench read' } });
    const [row] = await client.unsafe<Array<{ total: number; last_key: string | null; last_id: string | null; body: string }>>(
      statementOf(sort, limit, predictionsLimit),
      [],
      PREPARED,
    );
    const { total, last_key: lastKey, last_id: lastId, body } = row!;
    reply.header('x-total-count', String(total));
    // The route's next page: only this read's (no offset, no cursor), so there is one when the count is past it.
    if (total > limit && lastKey !== null && lastId !== null) {
      const cursor = Buffer.from(JSON.stringify([sort, lastKey, lastId])).toString('base64url');
      reply.header('x-next-cursor', cursor);
      const next = new URL(request.url, 'http://host');
      next.searchParams.set('cursor', cursor);
      reply.header('link', `<${next.pathname}${next.search}>; rel="next"`);
    }
    // A public read (the app's cache hints give the pools list 60 s).
    reply.header('cache-control', 'max-age=60, public');
    return reply.type('application/json; charset=utf-8').send(writeNumbersAsJavaScript(body));
  });
  return app;
}

const SERVER_ENTRY = fileURLToPath(new URL('./rest-floor-server.ts', import.meta.url));

/**
 * Starts the floor in a child process (lib/rest-floor-server.ts) speaking lib/server.ts's
 * messages, so the bench measures and profiles it as it does a server of lib/processes.ts.
 */
export function startRestFloor(databaseUrl: string, nodeFlags: string[] = []): Promise<ServerProcess> {
  const child: ChildProcess = fork(SERVER_ENTRY, [], {
    execArgv: [...nodeFlags, '--import', 'tsx/esm'],
    env: { ...process.env, BENCH_DB_URL: databaseUrl },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return serverProcess('floor', child, {
    adoptSession: () => Promise.reject(new Error('the REST floor reads Postgres only')),
  });
}
