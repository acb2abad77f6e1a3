/**
 * `npm run bench:transports`: one read over each transport, on one server, and REST against a
 * floor of its own. The pools list as REST serves it (`GET /pools` with the nested read's
 * relations: user, image, streak, resolution, 10 predictions each with user and reward; 20
 * pools) in both sorts; the same URL answered by REST's floor (lib/rest-floor.ts: one
 * hand-written statement writing the route's body, in a minimal server of its own); the same
 * operation over `POST /graphql` (the REST route's own document and variables, so every
 * transport asks the database the same and differs only in what Node does around it); and
 * the same operation over graphql-ws, each socket sending its next query when the last
 * completes. Rounds alternate the four; the answers are checked first: the floor's body
 * byte-equal to the route's (and its paging and cache headers equal), GraphQL's data
 * JSON-equal to REST's in snake_case with connections as arrays, graphql-ws's equal to
 * HTTP's. With BENCH_BASELINE_SRC (another commit's built `dist`), the same URL is also asked
 * of that app, beside this one on the same database, in the same rounds ("baseline", its body
 * checked byte-equal): REST before and after a change, neither run's floor in between. See
 * bench/README.md.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import postgres from 'postgres';
import { LIST_POOLS } from '../src/server/rest/documents.js';
import { includeVariables } from '../src/server/rest/mapping.js';
import { restResources } from '../src/server/rest/resources.js';
import { getSchema } from '../src/server/schema.js';
import { fetchOnce, type LoadResult, runLoad } from './lib/load.js';
import { backendCpu, cpuBetween } from './lib/postgres-cpu.js';
import { BENCH_NODE_FLAGS, type ServerProcess, startAppOnScratchDatabase } from './lib/processes.js';
import { REST_FLOOR_INCLUDES, startRestFloor } from './lib/rest-floor.js';
import { machineFacts, resultsFile, writeResults } from './lib/results.js';
import { runSocketLoad, socketOnce } from './lib/socket-load.js';
import { BENCH_SEED, POOLS_PER_PAGE, PREDICTIONS_PER_POOL } from './lib/query.js';

const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));
const number = (name: string, fallback: number) => Number(process.env[name] || fallback);
const settings = {
  databaseUrl: process.env.BENCH_DATABASE_URL || null,
  connections: number('BENCH_CONNECTIONS', 16),
  warmupSeconds: number('BENCH_WARMUP_S', 5),
  durationSeconds: number('BENCH_DURATION_S', 8),
  rounds: number('BENCH_ROUNDS', 3),
  src: process.env.BENCH_SRC === '.' ? null : process.env.BENCH_SRC || 'dist',
  /** Another commit's built `dist`: its REST route measured as the target "baseline". */
  baselineSrc: process.env.BENCH_BASELINE_SRC || null,
  /** `rest`, `floor`, `graphql`, `socket` or `baseline`: a .cpuprofile of its server during that target's first round (results/profiles/). */
  cpuProfile: process.env.BENCH_CPU_PROF || null,
  label: process.env.BENCH_LABEL || null,
};
const backend = settings.databaseUrl ? 'postgres' : 'pglite';
const file = resultsFile(`transports-${backend}`, settings.label);
const SORTS = ['CREATION_DATE', 'VOLUME_HIGH'] as const;
const INCLUDES = REST_FLOOR_INCLUDES;

/** The REST request and its GraphQL twin: the route's document, completed as the route completes it. */
async function pagesOf(sort: (typeof SORTS)[number]) {
  const query = restResources(await getSchema({ devTokens: false })).completeDocument(LIST_POOLS);
  const variables = { first: POOLS_PER_PAGE, sort, filter: {}, ...includeVariables([...INCLUDES], PREDICTIONS_PER_POOL) };
  return {
    rest: `/pools?sort_by=${sort}&includes=${INCLUDES.join(',')}&limit=${POOLS_PER_PAGE}&predictions_limit=${PREDICTIONS_PER_POOL}`,
    graphql: JSON.stringify({ query, operationName: 'RestListPools', variables }),
  };
}

/** GraphQL's answer in REST's names (written apart from the app's mapping, which is under test). */
function restShape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(restShape);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  if (entries.length === 1 && entries[0]![0] === 'nodes') return restShape(entries[0]![1]);
  return Object.fromEntries(entries.map(([key, inner]) => [key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), restShape(inner)]));
}

async function getOnce(port: number, path: string) {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}

/** The headers of REST's answer the floor must set alike: the paging metadata and the cache policy. */
const COMPARED_HEADERS = ['content-type', 'cache-control', 'x-total-count', 'x-next-cursor', 'link'];

/** Requires the floor's answer to be the route's: the same bytes, the same compared headers. */
function checkFloor(sort: string, rest: Awaited<ReturnType<typeof getOnce>>, floor: Awaited<ReturnType<typeof getOnce>>) {
  if (floor.status !== 200) throw new Error(`${sort}: the floor answered ${floor.status} ${floor.body.toString().slice(0, 300)}`);
  if (!rest.body.equals(floor.body)) {
    let at = 0;
    while (rest.body[at] === floor.body[at]) at++;
    const around = (body: Buffer) => body.subarray(Math.max(0, at - 80), at + 80).toString();
    throw new Error(
      `${sort}: the floor's body differs from REST's at byte ${at}:\nREST  ${around(rest.body)}\nfloor ${around(floor.body)}`,
    );
  }
  for (const name of COMPARED_HEADERS)
    if (rest.headers.get(name) !== floor.headers.get(name))
      throw new Error(`${sort}: header ${name}: REST ${rest.headers.get(name)}, the floor ${floor.headers.get(name)}`);
}

interface Measured {
  load: LoadResult;
  /** CPU milliseconds per request of the server process (the app's for rest, graphql and socket; the floor's own). */
  cpuMsPerRequest: number;
  /** ... and of its Postgres backends (/proc; null where unreadable). */
  postgresCpuMsPerRequest: number | null;
}

const TARGETS = ['rest', 'floor', 'graphql', 'socket', 'baseline'] as const;
type Target = (typeof TARGETS)[number];
/** Each server's Postgres backends, by the application name its pool connects with (lib/server.ts, lib/rest-floor-server.ts). */
const APPLICATION_NAME = { app: 'poolgraph_bench_graphql', floor: 'poolgraph_bench_rest_floor', baseline: 'poolgraph_bench_baseline' };

let admin: postgres.Sql | null = null;
const postgresCpu = (target: Target) =>
  admin ? backendCpu(admin, APPLICATION_NAME[target === 'floor' || target === 'baseline' ? target : 'app']) : Promise.resolve(null);
const perRequest = (ms: number, requests: number) => Math.round((ms / Math.max(1, requests)) * 1000) / 1000;

async function measure(server: ServerProcess, target: Target, page: { rest: string; graphql: string; restBytes: number }, seconds: number) {
  const before = await server.stats();
  const postgresBefore = await postgresCpu(target);
  const durationMs = seconds * 1000;
  const load =
    target === 'socket'
      ? await runSocketLoad({ port: server.port, payload: page.graphql, connections: settings.connections, durationMs })
      : await runLoad({
          port: server.port,
          path: '/graphql',
          bodies: [page.graphql],
          // REST and its floor: the same URL, the same bytes (a 200 of another length counts as unexpected).
          ...(target === 'graphql' ? {} : { getPaths: [page.rest], expectedBytes: [page.restBytes] }),
          connections: settings.connections,
          durationMs,
        });
  const after = await server.stats();
  const postgresAfter = await postgresCpu(target);
  const cpuMs = (after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system) / 1000;
  return {
    load,
    cpuMsPerRequest: perRequest(cpuMs, load.requests),
    postgresCpuMsPerRequest: postgresBefore && postgresAfter ? perRequest(cpuBetween(postgresBefore, postgresAfter), load.requests) : null,
  } satisfies Measured;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round2 = (n: number) => Math.round(n * 100) / 100;

console.log(`bench:transports on ${backend}: seeding ${BENCH_SEED.pools} pools, ${BENCH_SEED.users} users`);
const { database, server, baseline } = await startAppOnScratchDatabase(settings.databaseUrl, settings.src, settings.baselineSrc);
// REST's floor reads Postgres: on PGlite (each server's own database) there is none.
const floor = database.url
  ? await startRestFloor(database.url, BENCH_NODE_FLAGS).catch(async (error: unknown) => {
      await Promise.all([server.stop(), baseline?.stop()]);
      await database.drop();
      throw error;
    })
  : null;
if (settings.databaseUrl) admin = postgres(settings.databaseUrl, { max: 1, onnotice: () => {} });
const targets = TARGETS.filter((target) => (target === 'floor' ? floor : target === 'baseline' ? baseline : true));
const serverOf = (target: Target) => (target === 'floor' ? floor! : target === 'baseline' ? baseline! : server);
const results = [];
try {
  for (const sort of SORTS) {
    const page = await pagesOf(sort);
    const rest = await getOnce(server.port, page.rest);
    const graphql = await fetchOnce(server.port, '/graphql', page.graphql);
    if (rest.status !== 200 || graphql.status !== 200)
      throw new Error(`${sort}: REST ${rest.status} ${rest.body.toString().slice(0, 300)}; GraphQL ${graphql.status}`);
    if (floor) checkFloor(sort, rest, await getOnce(floor.port, page.rest));
    if (baseline && !(await getOnce(baseline.port, page.rest)).body.equals(rest.body))
      throw new Error(`${sort}: the baseline's REST body differs from this app's`);
    const { data } = JSON.parse(graphql.text) as { data: { pools: { nodes: unknown } } };
    if (!isDeepStrictEqual(JSON.parse(rest.body.toString()), restShape(data.pools.nodes)))
      throw new Error(`${sort}: REST and GraphQL answer different data`);
    if (!isDeepStrictEqual(JSON.parse(await socketOnce(server.port, page.graphql)), { data }))
      throw new Error(`${sort}: graphql-ws and HTTP answer different data`);
    console.log(
      `${sort}: ${floor ? "the floor's body is byte-equal to REST's (and its headers), " : ''}GraphQL's data JSON-equal to REST's, graphql-ws's to HTTP's`,
    );
    const measuredPage = { ...page, restBytes: rest.body.length };
    for (const target of targets) await measure(serverOf(target), target, measuredPage, settings.warmupSeconds);
    const rounds: Array<Partial<Record<Target, Measured>> & { ratios: Record<string, number> }> = [];
    for (let round = 0; round < settings.rounds; round++) {
      // Alternated, the order turned each round, so a drift of the machine falls on every target.
      const order = targets.map((_, i) => targets[(i + round) % targets.length]!);
      const measured = {} as Record<Target, Measured>;
      for (const target of order) {
        const profiling = round === 0 && settings.cpuProfile === target;
        if (profiling) mkdirSync(`${RESULTS_DIR}profiles/`, { recursive: true });
        const stop = profiling
          ? await serverOf(target).profile(`${RESULTS_DIR}profiles/transports-${target}-${sort}-${Date.now()}.cpuprofile`)
          : null;
        measured[target] = await measure(serverOf(target), target, measuredPage, settings.durationSeconds);
        await stop?.();
      }
      const of = (target: Target, base: Target) => round2(measured[target].load.requestsPerSecond / measured[base].load.requestsPerSecond);
      // GraphQL of REST's floor too: what of REST's distance to it every transport of the app pays.
      const ratios = {
        ...(floor ? { restOfFloor: of('rest', 'floor') } : {}),
        restOfGraphql: of('rest', 'graphql'),
        socketOfHttp: of('socket', 'graphql'),
        ...(floor ? { graphqlOfFloor: of('graphql', 'floor') } : {}),
        ...(baseline ? { restOfBaseline: of('rest', 'baseline') } : {}),
      };
      rounds.push({ ...measured, ratios });
      const line = (target: Target) =>
        `${target} ${Math.round(measured[target].load.requestsPerSecond)} req/s, p99 ${measured[target].load.latencyMs.p99} ms, ` +
        `CPU ${measured[target].cpuMsPerRequest} ms/req (Postgres ${measured[target].postgresCpuMsPerRequest ?? '-'}), ` +
        `${measured[target].load.non2xx + measured[target].load.errors + measured[target].load.unexpectedBodies} failed`;
      console.log(`${sort} round ${round + 1}: ${targets.map(line).join(' | ')}`);
      console.log(
        `${sort} round ${round + 1}: ${Object.entries(ratios)
          .map(([name, ratio]) => `${name} ${ratio}x`)
          .join(', ')}`,
      );
    }
    const ratios = Object.fromEntries(Object.keys(rounds[0]!.ratios).map((name) => [name, median(rounds.map((r) => r.ratios[name]!))]));
    results.push({
      sort,
      rest: page.rest,
      responseBytes: { rest: rest.body.length, graphql: Buffer.byteLength(graphql.text) },
      ratios,
      rounds,
    });
    console.log(
      `${sort}: ${Object.entries(ratios)
        .map(([name, ratio]) => `${name} ${ratio}x (rounds ${rounds.map((r) => r.ratios[name]).join(', ')})`)
        .join('; ')}`,
    );
  }
} finally {
  await Promise.all([server.stop(), floor?.stop(), baseline?.stop()]);
  await admin?.end();
  await database.drop();
}

writeResults(file, {
  benchmark: 'transports',
  backend,
  date: new Date().toISOString(),
  node: process.version,
  machine: machineFacts(),
  settings,
  results,
});
