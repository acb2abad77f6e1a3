/**
 * `npm run bench:apollo`: what Apollo Server alone costs a request. Two minimal servers on
 * the same fastify, neither of them poolgraph: one answers `POST /graphql` with the constant
 * `{"data":{"__typename":"Query"}}` (the floor nested-read.ts measures `{ __typename }`
 * against), the other hands the request to a default Apollo Server 4 (a one-field schema, no
 * plugin of its own, no context) through `executeHTTPGraphQLRequest`, as poolgraph's route
 * does. Rounds alternate the two; reported: each one's rate and CPU per request, and Apollo's
 * rate as a share of the floor's. This is the most any app executing its operations in Apollo
 * Server can reach on `{ __typename }`. See bench/README.md.
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ApolloServer, HeaderMap } from '@apollo/server';
import Fastify from 'fastify';
import { buildSchema } from 'graphql';
import { runLoad } from './lib/load.js';
import { machineFacts, resultsFile, writeResults } from './lib/results.js';

type Target = 'floor' | 'apollo';
const TARGETS: Target[] = ['floor', 'apollo'];
const BODY = JSON.stringify({ query: '{ __typename }' });

/** A child process: one of the two servers, on `port`. */
async function serve(target: Target, port: number): Promise<void> {
  const app = Fastify({ logger: false });
  if (target === 'floor') {
    const answer = JSON.stringify({ data: { __typename: 'Query' } });
    app.post('/graphql', (_request, reply) => {
      reply.type('application/json; charset=utf-8').send(answer);
    });
  } else {
    const apollo = new ApolloServer({ schema: buildSchema('type Query { hello: String }') });
    await apollo.start();
    app.post('/graphql', async (request, reply) => {
      const headers = new HeaderMap();
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers.set(name, value);
      const response = await apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest: { method: 'POST', headers, search: '', body: request.body },
        context: () => Promise.resolve({}),
      });
      if (response.body.kind !== 'complete') throw new Error('Apollo Server answered incrementally');
      for (const [name, value] of response.headers) reply.header(name, value);
      return reply.code(response.status ?? 200).send(response.body.string);
    });
  }
  await app.listen({ port, host: '127.0.0.1' });
  process.send!('ready');
}

if (process.env.BENCH_APOLLO_TARGET) {
  await serve(process.env.BENCH_APOLLO_TARGET as Target, Number(process.env.BENCH_APOLLO_PORT));
} else {
  const settings = {
    connections: Number(process.env.BENCH_CONNECTIONS || 16),
    warmupSeconds: Number(process.env.BENCH_WARMUP_S || 2),
    durationSeconds: Number(process.env.BENCH_DURATION_S || 5),
    rounds: Number(process.env.BENCH_ROUNDS || 3),
    label: process.env.BENCH_LABEL || null,
  };
  const file = resultsFile('apollo-overhead', settings.label);
  const start = (target: Target, port: number) =>
    new Promise<{ pid: number; kill(): void }>((resolve, reject) => {
      const child = fork(fileURLToPath(import.meta.url), [], {
        env: { ...process.env, BENCH_APOLLO_TARGET: target, BENCH_APOLLO_PORT: String(port) },
        execArgv: ['--import', 'tsx/esm'],
      });
      child.once('message', () => resolve({ pid: child.pid!, kill: () => child.kill() }));
      child.once('exit', (code) => reject(new Error(`the ${target} server exited (${code})`)));
    });
  /** A process's CPU time so far in ms (utime + stime, in clock ticks of 10 ms). */
  const cpuMs = (pid: number) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  };
  const ports: Record<Target, number> = { floor: 4391, apollo: 4392 };
  const servers = { floor: await start('floor', ports.floor), apollo: await start('apollo', ports.apollo) };
  const measure = async (target: Target, seconds: number) => {
    const before = cpuMs(servers[target].pid);
    const load = await runLoad({
      port: ports[target],
      path: '/graphql',
      bodies: [BODY],
      connections: settings.connections,
      durationMs: seconds * 1000,
    });
    if (load.non2xx || load.errors) throw new Error(`${target}: ${load.non2xx} non-2xx answers, ${load.errors} errors`);
    return { requestsPerSecond: load.requestsPerSecond, cpuMsPerRequest: (cpuMs(servers[target].pid) - before) / load.requests };
  };
  const rounds: Array<Record<Target, { requestsPerSecond: number; cpuMsPerRequest: number }>> = [];
  try {
    for (const target of TARGETS) await measure(target, settings.warmupSeconds);
    for (let round = 0; round < settings.rounds; round++) {
      const measured = {} as (typeof rounds)[number];
      // Alternated: each round starts with the other target.
      for (const target of round % 2 ? [...TARGETS].reverse() : TARGETS) measured[target] = await measure(target, settings.durationSeconds);
      rounds.push(measured);
      const ratio = measured.apollo.requestsPerSecond / measured.floor.requestsPerSecond;
      console.log(
        `round ${round + 1}: ${TARGETS.map((t) => `${t} ${measured[t].requestsPerSecond.toFixed(0)} req/s, CPU ${measured[t].cpuMsPerRequest.toFixed(3)} ms/req`).join(' | ')} | apollo/floor ${ratio.toFixed(2)}x`,
      );
    }
  } finally {
    for (const server of Object.values(servers)) server.kill();
  }
  const ratios = rounds.map((r) => r.apollo.requestsPerSecond / r.floor.requestsPerSecond).sort((a, b) => a - b);
  const median = ratios[Math.floor(ratios.length / 2)]!;
  console.log(`apollo/floor: median ${median.toFixed(2)}x (rounds ${ratios.map((r) => r.toFixed(2)).join(', ')})`);
  writeResults(file, {
    benchmark: 'apollo-overhead',
    date: new Date().toISOString(),
    node: process.version,
    machine: machineFacts(),
    settings,
    rounds,
    median,
  });
}
