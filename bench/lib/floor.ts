import type { PGlite } from '@electric-sql/pglite';
import Fastify, { type FastifyInstance } from 'fastify';
import postgres from 'postgres';
import type { Database } from '../../src/db/client.js';
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
 * $1 pools, newest first, each with its $2 newest predictions (a subquery walking the
 * (pool_id, created_at, id) index that stops after the page); the one-to-one relations
 * are correlated subqueries (index lookups whatever the planner's statistics say).
 */
export const floorSql = (poolOrder: string) => `
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
      from (select * from predictions where pool_id = p.id order by created_at desc, id desc limit $2) x
    ))
  ) order by ${poolOrder.replace(/(^|, )/g, '$1p.')}), '[]'::json))))::text as body
from (select * from pools order by ${poolOrder} limit $1) p`;

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

/** The floor statement of a shape and its parameters; null for `{ __typename }`. */
function floorOf(shape: BenchShape): { text: string; params: number[] } | null {
  if (shape.poolOrder) return { text: floorSql(shape.poolOrder), params: [POOLS_PER_PAGE, PREDICTIONS_PER_POOL] };
  if (shape.floor === 'streaks') return { text: streaksFloorSql, params: [] };
  return null;
}

/** `{ __typename }` needs no statement: its floor is the constant answer. */
const TYPENAME_BODY = JSON.stringify({ data: { __typename: 'Query' } });

/**
 * Runs a shape's floor statement prepared, as a hand-written endpoint would: postgres.js
 * prepares it once per connection (its own pool of 10, the app's size); PGlite is one
 * session, so one PREPARE serves every request.
 */
async function floorQuery(
  database: Database,
  databaseUrl: string | null,
): Promise<{ run(shape: BenchShape): Promise<string>; close(): Promise<void> }> {
  if (databaseUrl) {
    const client = postgres(databaseUrl, {
      max: 10,
      fetch_types: false,
      onnotice: () => {},
      connection: { application_name: 'poolgraph_bench_floor' },
    });
    return {
      run: async (shape) => {
        const floor = floorOf(shape)!;
        const [row] = await client.unsafe<Array<{ body: string }>>(floor.text, floor.params, { prepare: true });
        return row!.body;
      },
      close: () => client.end({ timeout: 5 }),
    };
  }
  const client = (database.db as unknown as { $client: PGlite }).$client;
  for (const shape of SHAPES) {
    const floor = floorOf(shape);
    if (floor) await client.exec(`PREPARE floor_${shape.name.toLowerCase()}${floor.params.length ? '(int, int)' : ''} AS ${floor.text}`);
  }
  return {
    run: async (shape) => {
      const params = floorOf(shape)!.params;
      const result = await client.query<{ body: string }>(
        `EXECUTE floor_${shape.name.toLowerCase()}${params.length ? `(${params.join(', ')})` : ''}`,
      );
      return result.rows[0]!.body;
    },
    close: async () => {},
  };
}

/** The floor server: plain fastify, one route per shape, one statement, the JSON text sent as is. */
export async function createFloorApp(database: Database, databaseUrl: string | null): Promise<FastifyInstance> {
  const query = await floorQuery(database, databaseUrl);
  const app = Fastify({ logger: false });
  app.addHook('onClose', () => query.close());
  for (const shape of SHAPES) {
    const send = floorOf(shape) ? () => query.run(shape) : async () => TYPENAME_BODY;
    app.post(`/floor/${shape.name}`, async (_request, reply) => reply.type('application/json; charset=utf-8').send(await send()));
  }
  return app;
}
