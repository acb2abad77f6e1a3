/**
 * `npm run bench:transports`: one read over each transport, on one server. The pools list as
 * REST serves it (`GET /pools` with the nested read's relations: user, image, streak,
 * resolution, 10 predictions each with user and reward; 20 pools) in both sorts; the same
 * operation over `POST /graphql` (the REST route's own document and variables, so every
 * transport asks the database the same and differs only in what Node does around it); and
 * the same operation over graphql-ws, each socket sending its next query when the last
 * completes. Rounds alternate the three on the same server; the answers are checked equal
 * first (REST's in snake_case with connections as arrays). See bench/README.md.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { LIST_POOLS } from '../src/server/rest/documents.js';
import { includeVariables } from '../src/server/rest/mapping.js';
import { restResources } from '../src/server/rest/resources.js';
import { getSchema } from '../src/server/schema.js';
import { fetchOnce, type LoadResult, runLoad } from './lib/load.js';
import { type ServerProcess, startAppOnScratchDatabase } from './lib/processes.js';
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
  /** `rest`, `graphql` or `socket`: a .cpuprofile of the server during that target's first round (results/profiles/). */
  cpuProfile: process.env.BENCH_CPU_PROF || null,
  label: process.env.BENCH_LABEL || null,
  overwrite: process.env.BENCH_OVERWRITE === '1',
};
const backend = settings.databaseUrl ? 'postgres' : 'pglite';
const SORTS = ['CREATION_DATE', 'VOLUME_HIGH'] as const;
const INCLUDES = ['user', 'image', 'streak', 'resolution', 'predictions.user', 'predictions.reward'] as const;

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

function getOnce(port: number, path: string): Promise<{ status: number; text: string }> {
  return fetch(`http://127.0.0.1:${port}${path}`).then(async (response) => ({ status: response.status, text: await response.text() }));
}

interface Measured {
  load: LoadResult;
  cpuMsPerRequest: number;
}

const TARGETS = ['rest', 'graphql', 'socket'] as const;
type Target = (typeof TARGETS)[number];

async function measure(server: ServerProcess, target: Target, page: { rest: string; graphql: string }, seconds: number) {
  const before = await server.stats();
  const durationMs = seconds * 1000;
  const load =
    target === 'socket'
      ? await runSocketLoad({ port: server.port, payload: page.graphql, connections: settings.connections, durationMs })
      : await runLoad({
          port: server.port,
          path: '/graphql',
          bodies: [page.graphql],
          ...(target === 'rest' ? { getPaths: [page.rest] } : {}),
          connections: settings.connections,
          durationMs,
        });
  const after = await server.stats();
  const cpuMs = (after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system) / 1000;
  return { load, cpuMsPerRequest: Math.round((cpuMs / Math.max(1, load.requests)) * 1000) / 1000 } satisfies Measured;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round2 = (n: number) => Math.round(n * 100) / 100;

console.log(`bench:transports on ${backend}: seeding ${BENCH_SEED.pools} pools, ${BENCH_SEED.users} users`);
const { database, server } = await startAppOnScratchDatabase(settings.databaseUrl, settings.src);
const results = [];
try {
  for (const sort of SORTS) {
    const page = await pagesOf(sort);
    const rest = await getOnce(server.port, page.rest);
    const graphql = await fetchOnce(server.port, '/graphql', page.graphql);
    if (rest.status !== 200 || graphql.status !== 200)
      throw new Error(`${sort}: REST ${rest.status} ${rest.text.slice(0, 300)}; GraphQL ${graphql.status}`);
    const { data } = JSON.parse(graphql.text) as { data: { pools: { nodes: unknown } } };
    if (!isDeepStrictEqual(JSON.parse(rest.text), restShape(data.pools.nodes)))
      throw new Error(`${sort}: REST and GraphQL answer different data`);
    if (!isDeepStrictEqual(JSON.parse(await socketOnce(server.port, page.graphql)), { data }))
      throw new Error(`${sort}: graphql-ws and HTTP answer different data`);
    for (const target of TARGETS) await measure(server, target, page, settings.warmupSeconds);
    const rounds: Array<Record<Target, Measured> & { restRatio: number; socketRatio: number }> = [];
    for (let round = 0; round < settings.rounds; round++) {
      // Alternated, the order turned each round, so a drift of the machine falls on every target.
      const order = TARGETS.map((_, i) => TARGETS[(i + round) % TARGETS.length]!);
      const measured = {} as Record<Target, Measured>;
      for (const target of order) {
        const profiling = round === 0 && settings.cpuProfile === target;
        const stop = profiling
          ? await server.profile(`${RESULTS_DIR}profiles/transports-${target}-${sort}-${Date.now()}.cpuprofile`)
          : null;
        measured[target] = await measure(server, target, page, settings.durationSeconds);
        await stop?.();
      }
      const of = (target: Target) => round2(measured[target].load.requestsPerSecond / measured.graphql.load.requestsPerSecond);
      rounds.push({ ...measured, restRatio: of('rest'), socketRatio: of('socket') });
      const line = (target: Target) =>
        `${target} ${Math.round(measured[target].load.requestsPerSecond)} req/s, p99 ${measured[target].load.latencyMs.p99} ms, ` +
        `${measured[target].cpuMsPerRequest} CPU ms/req, ${measured[target].load.non2xx + measured[target].load.errors} failed`;
      console.log(`${sort} round ${round + 1}: ${TARGETS.map(line).join(' | ')} | REST/HTTP ${of('rest')}x, socket/HTTP ${of('socket')}x`);
    }
    const restRatio = median(rounds.map((r) => r.restRatio));
    const socketRatio = median(rounds.map((r) => r.socketRatio));
    results.push({
      sort,
      rest: page.rest,
      responseBytes: { rest: rest.text.length, graphql: graphql.text.length },
      restRatio,
      socketRatio,
      rounds,
    });
    console.log(
      `${sort}: REST at ${restRatio}x of GraphQL over HTTP (rounds ${rounds.map((r) => r.restRatio).join(', ')}), ` +
        `graphql-ws at ${socketRatio}x (rounds ${rounds.map((r) => r.socketRatio).join(', ')})`,
    );
  }
} finally {
  await server.stop();
  await database.drop();
}

const file = settings.label
  ? `${RESULTS_DIR}transports-${backend}-${settings.label}.json`
  : `${RESULTS_DIR}latest/transports-${backend}.json`;
if (settings.label && existsSync(file) && !settings.overwrite)
  throw new Error(`${file} exists: choose another BENCH_LABEL, or set BENCH_OVERWRITE=1`);
mkdirSync(dirname(file), { recursive: true });
const machine = { cpus: os.cpus().length, model: os.cpus()[0]?.model, loadAverage: os.loadavg() };
writeFileSync(
  file,
  `${JSON.stringify({ benchmark: 'transports', backend, date: new Date().toISOString(), node: process.version, machine, settings, results }, null, 2)}\n`,
);
console.log(`written ${file}`);
