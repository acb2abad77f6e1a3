/**
 * `npm run bench:healthz`: what the costliest read allowed does to everyone else on the same
 * process. BENCH_CLIENTS (default 2) clients loop the largest pools read the cost and size
 * budgets allow (BENCH_MAX_QUERY_BYTES: another size budget), every relation included, 100
 * pools, as many predictions each as the budgets let through, over REST (`GET /pools`) and
 * then over GraphQL (the REST route's own document), while a probe asks `/healthz` every
 * 10 ms; reported: the probe's p50, p99 and max, the readers' rate and response size, and
 * `/healthz` with no load first. See bench/README.md.
 */
import { mkdirSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { MAX_PAGE_SIZE } from '../src/modules/common/pagination.js';
import { LIST_POOLS } from '../src/server/rest/documents.js';
import { INCLUDABLE, includeVariables } from '../src/server/rest/mapping.js';
import { restResources } from '../src/server/rest/resources.js';
import { getSchema } from '../src/server/schema.js';
import { fetchOnce, runLoad } from './lib/load.js';
import { startAppOnScratchDatabase } from './lib/processes.js';

const run = promisify(execFile);
const PROFILES_DIR = fileURLToPath(new URL('./results/profiles/', import.meta.url));
const settings = {
  databaseUrl: process.env.BENCH_DATABASE_URL || null,
  clients: Number(process.env.BENCH_CLIENTS || 2),
  durationSeconds: Number(process.env.BENCH_DURATION_S || 10),
  src: process.env.BENCH_SRC === '.' ? null : process.env.BENCH_SRC || 'dist',
};

const restPath = (predictions: number) =>
  `/pools?sort_by=VOLUME_HIGH&limit=${MAX_PAGE_SIZE}&includes=${INCLUDABLE.join(',')}&predictions_limit=${predictions}`;

/**
 * `/healthz` asked every 10 ms (one at a time) for `ms`: its latencies, sorted. The probe is
 * a process of its own: in this one it would also wait on the loading clients' event loop
 * (receiving megabytes a second), and measure that as the server's.
 */
async function probe(port: number, ms: number): Promise<number[]> {
  const script = `
    const { performance } = require('node:perf_hooks');
    (async () => {
      const latencies = [];
      const ends = performance.now() + ${ms};
      while (performance.now() < ends) {
        const started = performance.now();
        const response = await fetch('http://127.0.0.1:${port}/healthz');
        await response.arrayBuffer();
        latencies.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      process.stdout.write(JSON.stringify(latencies));
    })();`;
  const { stdout } = await run(process.execPath, ['-e', script], { maxBuffer: 64 * 1024 * 1024 });
  return (JSON.parse(stdout) as number[]).sort((a, b) => a - b);
}

const at = (sorted: number[], q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 10) / 10;
const summary = (sorted: number[]) =>
  `p50 ${at(sorted, 0.5)} ms, p99 ${at(sorted, 0.99)} ms, max ${at(sorted, 1)} ms (${sorted.length} probes)`;

mkdirSync(PROFILES_DIR, { recursive: true });
const { database, server } = await startAppOnScratchDatabase(settings.databaseUrl, settings.src);
try {
  // The most predictions per pool the cost limit lets through.
  let predictions = MAX_PAGE_SIZE;
  let rest = { status: 0, text: '' };
  while (predictions > 1) {
    const response = await fetch(`http://127.0.0.1:${server.port}${restPath(predictions)}`);
    rest = { status: response.status, text: await response.text() };
    if (rest.status === 200) break;
    predictions--;
  }
  if (rest.status !== 200) throw new Error(`no pools read was allowed: ${rest.text.slice(0, 300)}`);
  const query = restResources(await getSchema({ devTokens: false })).completeDocument(LIST_POOLS);
  const variables = { first: MAX_PAGE_SIZE, sort: 'VOLUME_HIGH', filter: {}, ...includeVariables([...INCLUDABLE], predictions) };
  const graphqlBody = JSON.stringify({ query, operationName: 'RestListPools', variables });
  const graphql = await fetchOnce(server.port, '/graphql', graphqlBody);
  console.log(
    `the costliest pools read allowed: ${MAX_PAGE_SIZE} pools, ${predictions} predictions each, every relation: ` +
      `REST ${(rest.text.length / 1e6).toFixed(1)} MB, GraphQL ${(graphql.text.length / 1e6).toFixed(1)} MB`,
  );
  console.log(`/healthz alone: ${summary(await probe(server.port, 3000))}`);
  for (const target of ['rest', 'graphql'] as const) {
    // BENCH_CPU_PROF=rest|graphql: a .cpuprofile of the server while that target loops (results/profiles/).
    const profiling = process.env.BENCH_CPU_PROF === target;
    const stop = profiling ? await server.profile(`${PROFILES_DIR}healthz-${target}-${Date.now()}.cpuprofile`) : null;
    const [load, latencies] = await Promise.all([
      runLoad({
        port: server.port,
        path: '/graphql',
        bodies: [graphqlBody],
        ...(target === 'rest' ? { getPaths: [restPath(predictions)] } : {}),
        connections: settings.clients,
        durationMs: settings.durationSeconds * 1000,
      }),
      probe(server.port, settings.durationSeconds * 1000),
    ]);
    await stop?.();
    console.log(
      `/healthz while ${settings.clients} clients loop it over ${target}: ${summary(latencies)}; ` +
        `the reads: ${load.requestsPerSecond} req/s, ${load.non2xx + load.errors} failed`,
    );
  }
} finally {
  await server.stop();
  await database.drop();
}
