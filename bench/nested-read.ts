// Over 300 lines: one bench run (build the reference database, start the servers, check equal answers, alternate rounds, report), its steps sharing the run state.
/**
 * `npm run bench`: a corpus of frontend pages (lib/query.ts: the pools list in two sorts, a
 * pool's detail, a user's profile, the streaks, the signed-in viewer's page, the leaderboard,
 * a Relay refetch) and `{ __typename }`, GraphQL against each page's floor (one hand-written
 * statement building the page's JSON, served by plain fastify) and, with the `apollo` target,
 * against the same statement behind a default Apollo Server (lib/apollo-floor.ts). See
 * bench/README.md for what it measures, its settings and the latest figures.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import postgres from 'postgres';
import { fetchOnce, type LoadResult, runLoad } from './lib/load.js';
import { backendCpu, type CpuSnapshot, cpuBetween } from './lib/postgres-cpu.js';
import { BENCH_SCALE, BENCH_SEED, type BenchShape, bodyOf, SHAPES } from './lib/query.js';
import { BENCH_NODE_FLAGS, prepareDatabase, type ServerProcess, startServer } from './lib/processes.js';
import { resultsFile, writeResults } from './lib/results.js';
import { type Role, ROLES } from './lib/roles.js';

const TARGET_RATIO = 0.7;
const PROFILES_DIR = fileURLToPath(new URL('./results/profiles/', import.meta.url));
const pathOf = (role: Role, shape: BenchShape) => (role === 'floor' ? `/floor/${shape.name}` : '/graphql');

function envNumber(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`${name} must be a positive number, got "${value}"`);
  return parsed;
}

const settings = {
  databaseUrl: process.env.BENCH_DATABASE_URL || null,
  connections: Math.round(envNumber('BENCH_CONNECTIONS', 16)),
  warmupSeconds: envNumber('BENCH_WARMUP_S', 10),
  /** Length of one measured round; rounds alternate floor and graphql. */
  durationSeconds: envNumber('BENCH_DURATION_S', 10),
  rounds: Math.round(envNumber('BENCH_ROUNDS', 3)),
  /**
   * How many records a page of one record (a pool, a profile, a refetch) is asked for in
   * turn: a frontend asks for many, and a server that keeps something per id must show it.
   */
  ids: Math.max(1, Math.round(envNumber('BENCH_IDS', 32))),
  targets: (process.env.BENCH_TARGETS ?? (process.env.BENCH_BASELINE_SRC ? 'floor,graphql,baseline' : 'floor,graphql'))
    .split(',')
    .map((t) => t.trim()) as Role[],
  /** Profile this server (floor | graphql) during its first round; that round's figures then carry the profiler's cost. */
  cpuProfile: (process.env.BENCH_CPU_PROF || null) as Role | null,
  nodeFlags: BENCH_NODE_FLAGS,
  /** Modules the GraphQL server imports first (prototypes that monkeypatch, in scratch/). */
  graphqlImports: (process.env.BENCH_GRAPHQL_IMPORT ?? '').split(',').filter(Boolean),
  /**
   * Where the GraphQL server's app comes from: `dist` by default, this checkout compiled
   * (`npm run bench` builds it first), as production runs it (`npm run start:prod`): under
   * tsx every closure is named as it is made, which costs pages that make many. `.` runs
   * the source under tsx, as `npm start` does; another path, a copy (src/ and schema/, or
   * its own build) of another commit, a prototype in scratch/.
   */
  src: process.env.BENCH_SRC === '.' ? null : process.env.BENCH_SRC || 'dist',
  /**
   * A copy of an older commit (src/ and schema/, in scratch/) run as a third server, "baseline",
   * in the same rounds: its rate is the "before" of a ratio measured in one run.
   */
  baselineSrc: process.env.BENCH_BASELINE_SRC || null,
  /** The shapes (pages) to run, comma-separated (lib/query.ts, SHAPES); all by default. */
  shapes: (process.env.BENCH_SHAPES ?? SHAPES.map((s) => s.name).join(',')).split(',').map((name) => {
    const shape = SHAPES.find((s) => s.name === name.trim());
    if (!shape) throw new Error(`BENCH_SHAPES lists ${SHAPES.map((s) => s.name).join(', ')}, got "${name}"`);
    return shape;
  }),
  /**
   * The committed results file nested-read-<backend>-<label>.json to write; without a label
   * the figures go to results/latest/ (not committed), so a run never replaces recorded
   * figures unless asked. An existing labelled file is kept unless BENCH_OVERWRITE=1.
   */
  label: process.env.BENCH_LABEL || null,
};
for (const target of settings.targets) {
  if (!ROLES.includes(target)) throw new Error(`BENCH_TARGETS lists some of ${ROLES.join(', ')}, got "${target}"`);
  if (target === 'baseline' && !settings.baselineSrc)
    throw new Error('BENCH_TARGETS lists baseline: set BENCH_BASELINE_SRC to the checkout it runs');
}
if (settings.cpuProfile && !ROLES.includes(settings.cpuProfile)) {
  throw new Error(`BENCH_CPU_PROF must be one of ${ROLES.join(', ')}, got "${settings.cpuProfile}"`);
}
const backend = settings.databaseUrl ? 'postgres' : 'pglite';
/** One secret for every server, so the floor verifies the viewer's token as the app does. */
const authSecret = randomBytes(32).toString('hex');

/** A shape with its requests: the bodies (one per set of variables the shape's discovery found) and the headers (the viewer's session). */
interface PageRequest {
  shape: BenchShape;
  bodies: string[];
  headers: Record<string, string>;
}

async function requestOf(shape: BenchShape, graphql: ServerProcess): Promise<PageRequest> {
  const headers: Record<string, string> = {};
  if (shape.signedIn) headers.authorization = `Bearer ${graphql.viewer!.accessToken}`;
  if (!shape.discover) return { shape, bodies: [bodyOf(shape)], headers };
  const found = await fetchOnce(graphql.port, '/graphql', JSON.stringify({ query: shape.discover.query }));
  const { data, errors } = JSON.parse(found.text) as { data?: unknown; errors?: unknown };
  if (errors || !data) throw new Error(`${shape.name}: discovery answered ${found.text.slice(0, 500)}`);
  return { shape, bodies: shape.discover.variables(data, settings.ids).map((variables) => bodyOf(shape, variables)), headers };
}

// ---------------------------------------------------------------------------------------
// Machine CPU (Linux /proc/stat; null elsewhere)

function machineTicks(): { busy: number; total: number } | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = fields.reduce((sum, n) => sum + n, 0);
    const idle = fields[3]! + fields[4]!;
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

const busyPercent = (before: ReturnType<typeof machineTicks>, after: ReturnType<typeof machineTicks>) =>
  before && after && after.total > before.total ? round1((100 * (after.busy - before.busy)) / (after.total - before.total)) : null;

const round1 = (n: number) => Math.round(n * 10) / 10;
const mb = (bytes: number) => round1(bytes / 1024 / 1024);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------
// Checks and measurement

/** The first path where two JSON values differ, for the error message. */
function firstDifference(a: unknown, b: unknown, path = '$'): string | null {
  if (isDeepStrictEqual(a, b)) return null;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) {
      const found = firstDifference((a as any)[key], (b as any)[key], `${path}.${key}`);
      if (found) return found;
    }
  }
  return `${path}: floor ${JSON.stringify(a)?.slice(0, 200)} vs graphql ${JSON.stringify(b)?.slice(0, 200)}`;
}

/** How many objects a response holds (rows of any type, for the log: a page that found nothing shows 0). */
const objectsIn = (value: unknown): number =>
  Array.isArray(value)
    ? value.reduce((sum: number, item) => sum + objectsIn(item), 0)
    : value && typeof value === 'object'
      ? ('id' in value ? 1 : 0) + Object.values(value).reduce((sum: number, item) => sum + objectsIn(item), 0)
      : 0;

/**
 * Fetches each of the page's bodies from every server and requires the floor's JSON to
 * equal each GraphQL server's `data`; each server's response length per body.
 */
async function verify(page: PageRequest, servers: Partial<Record<Role, ServerProcess>>): Promise<Partial<Record<Role, number[]>>> {
  const { shape } = page;
  let answering = (Object.keys(servers) as Role[]).filter((role) => servers[role]);
  const bytes: Partial<Record<Role, number[]>> = Object.fromEntries(answering.map((role) => [role, []]));
  let objects = 0;
  for (const body of page.bodies) {
    const roles = answering;
    const responses = await Promise.all(roles.map((role) => fetchOnce(servers[role]!.port, pathOf(role, shape), body, page.headers)));
    const byRole = Object.fromEntries(roles.map((role, i) => [role, responses[i]!])) as Partial<Record<Role, (typeof responses)[number]>>;
    // The baseline may refuse a page (on PGlite, each server has its own database, so the viewer's session is only the GraphQL server's): it is left out below.
    for (const role of roles)
      if (role !== 'baseline' && byRole[role]!.status !== 200)
        throw new Error(`${role} answered ${byRole[role]!.status}: ${byRole[role]!.text.slice(0, 500)}`);
    const fromFloor = JSON.parse(byRole.floor!.text) as { data?: unknown };
    objects += objectsIn(fromFloor.data);
    answering = roles.filter((role) => {
      if (role === 'floor') return true;
      const fromGraphql = JSON.parse(byRole[role]!.text) as { data?: unknown; errors?: unknown };
      const difference = fromGraphql.errors
        ? `answered errors: ${JSON.stringify(fromGraphql.errors).slice(0, 500)}`
        : firstDifference(fromFloor.data, fromGraphql.data) &&
          `differs from the floor at ${firstDifference(fromFloor.data, fromGraphql.data)}`;
      if (!difference) return true;
      // An older checkout may not serve a page the corpus gained since: it sits this page out.
      if (role === 'baseline') {
        console.log(`${shape.name}: the baseline ${difference}; the page is measured without it`);
        return false;
      }
      throw new Error(`${shape.name}: ${role} ${difference}, for ${body.slice(0, 300)}`);
    });
    for (const role of answering) bytes[role]!.push(Buffer.byteLength(byRole[role]!.text));
  }
  const floorBytes = bytes.floor!;
  console.log(
    `${shape.name}: the floor's JSON equals ${answering.filter((r) => r !== 'floor').join(' and ')}'s data for ${page.bodies.length} ` +
      `bodies (${Math.round(objects / page.bodies.length)} objects, ${Math.round(mean(floorBytes))} bytes on average)`,
  );
  return Object.fromEntries(answering.map((role) => [role, bytes[role]!]));
}

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

interface Measurement {
  shape: BenchShape['name'];
  role: Role;
  round: number;
  load: LoadResult;
  server: {
    /** CPU time of the server process over the measured window, % of one core. */
    cpuPercent: number;
    /** Share of that CPU time spent in GC pauses (PerformanceObserver 'gc'). */
    gcPercentOfCpu: number;
    gcPauses: number;
    /** CPU milliseconds per completed request. */
    cpuMsPerRequest: number;
    rssMb: number;
    heapUsedMb: number;
  };
  /** CPU milliseconds per request of the Postgres backends serving the server (/proc); null on PGlite. */
  postgresCpuMsPerRequest: number | null;
  /** The load generator's own CPU, % of one core. */
  loadGeneratorCpuPercent: number;
  /** Whole machine, % of all cores: in the second before the run, and during it. */
  machineBusyPercent: { before: number | null; during: number | null };
}

const loadOf = (page: PageRequest, server: ServerProcess, responseBytes: number[], durationMs: number) =>
  runLoad({
    port: server.port,
    path: pathOf(server.role, page.shape),
    bodies: page.bodies,
    headers: page.headers,
    connections: settings.connections,
    durationMs,
    expectedBytes: responseBytes,
  });

async function warmUp(page: PageRequest, server: ServerProcess, responseBytes: number[]): Promise<void> {
  process.stdout.write(`${page.shape.name} ${server.role}: warm-up ${settings.warmupSeconds} s ... `);
  const result = await loadOf(page, server, responseBytes, settings.warmupSeconds * 1000);
  console.log(`${result.requestsPerSecond} req/s`);
}

/** The admin connection reading pg_stat_activity, on Postgres. */
let admin: postgres.Sql | null = null;
const postgresCpu = (role: Role): Promise<CpuSnapshot | null> =>
  admin ? backendCpu(admin, `poolgraph_bench_${role}`) : Promise.resolve(null);

async function measure(page: PageRequest, server: ServerProcess, responseBytes: number[], round: number): Promise<Measurement> {
  const { shape } = page;
  const idleBefore = machineTicks();
  await sleep(1000);
  const before = busyPercent(idleBefore, machineTicks());
  const statsBefore = await server.stats();
  const postgresBefore = await postgresCpu(server.role);
  const ticksBefore = machineTicks();
  const profiled = settings.cpuProfile === server.role && round === 1;
  const profileFile = `${PROFILES_DIR}${server.role}-${shape.name}-${backend}-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`;
  if (profiled) mkdirSync(PROFILES_DIR, { recursive: true });
  const stopProfile = profiled ? await server.profile(profileFile) : null;
  const ownCpuBefore = process.cpuUsage();
  process.stdout.write(`${shape.name} ${server.role}: round ${round}, ${settings.durationSeconds} s${profiled ? ' (profiled)' : ''} ... `);
  const result = await loadOf(page, server, responseBytes, settings.durationSeconds * 1000);
  if (stopProfile) await stopProfile();
  const ownCpu = process.cpuUsage(ownCpuBefore);
  const ticksAfter = machineTicks();
  const statsAfter = await server.stats();
  const postgresAfter = await postgresCpu(server.role);
  const cpuMicros = statsAfter.cpu.user + statsAfter.cpu.system - statsBefore.cpu.user - statsBefore.cpu.system;
  const gcMs = statsAfter.gcMs - statsBefore.gcMs;
  console.log(`${result.requestsPerSecond} req/s`);
  if (profiled) console.log(`  profile written: ${profileFile} (summary: npx tsx bench/profile-summary.ts <file>)`);
  if (result.errors || result.non2xx || result.unexpectedBodies) {
    console.warn(
      `  ${server.role}: ${result.errors} errors, ${result.non2xx} non-2xx, ${result.unexpectedBodies} responses of an unexpected length`,
    );
  }
  return {
    shape: shape.name,
    role: server.role,
    round,
    load: result,
    server: {
      cpuPercent: round1((cpuMicros / 1000 / result.durationMs) * 100),
      gcPercentOfCpu: round1((gcMs / (cpuMicros / 1000)) * 100),
      gcPauses: statsAfter.gcCount - statsBefore.gcCount,
      cpuMsPerRequest: Math.round((cpuMicros / 1000 / result.requests) * 1000) / 1000,
      rssMb: mb(statsAfter.rss),
      heapUsedMb: mb(statsAfter.heapUsed),
    },
    postgresCpuMsPerRequest:
      postgresBefore && postgresAfter ? Math.round((cpuBetween(postgresBefore, postgresAfter) / result.requests) * 1000) / 1000 : null,
    loadGeneratorCpuPercent: round1(((ownCpu.user + ownCpu.system) / 1000 / result.durationMs) * 100),
    machineBusyPercent: { before, during: busyPercent(ticksBefore, ticksAfter) },
  };
}

/** The round with the median rate (the lower middle one of an even count). */
function medianRound(rounds: Measurement[]): Measurement {
  const sorted = [...rounds].sort((a, b) => a.load.requestsPerSecond - b.load.requestsPerSecond);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

interface ShapeResult {
  shape: BenchShape['name'];
  query: string;
  responseBytes: Partial<Record<Role, number>>;
  /** The median round of each server. */
  floor?: Measurement;
  apollo?: Measurement;
  graphql?: Measurement;
  baseline?: Measurement;
  /** graphql/floor of the median rounds, and of each round. */
  ratio: number | null;
  roundRatios: number[];
  medianRoundRatio: number | null;
  /** With a baseline: baseline/floor of the median rounds, and graphql/baseline of each round and their median. */
  baselineRatio?: number | null;
  overBaselineRoundRatios?: number[];
  overBaselineMedian?: number | null;
  /** With the apollo target: apollo/floor of each round and their median, and graphql/apollo of each round and their median. */
  apolloRoundRatios?: number[];
  apolloMedian?: number | null;
  overApolloRoundRatios?: number[];
  overApolloMedian?: number | null;
  rounds: Measurement[];
}

function printTable(results: ShapeResult[]): void {
  const header = [
    'shape',
    'server',
    'req/s',
    'p50 ms',
    'p99 ms',
    'CPU %',
    'CPU ms/req',
    'PG CPU ms/req',
    'GC % CPU',
    'RSS MB',
    'machine %',
    'before %',
    'bytes',
  ];
  const rows = results.flatMap((r) =>
    [r.floor, r.apollo, r.graphql, r.baseline]
      .filter((m): m is Measurement => m !== undefined)
      .map((m) => [
        r.shape,
        m.role + (settings.cpuProfile === m.role ? ' (profiled)' : ''),
        String(m.load.requestsPerSecond),
        String(m.load.latencyMs.p50),
        String(m.load.latencyMs.p99),
        String(m.server.cpuPercent),
        String(m.server.cpuMsPerRequest),
        String(m.postgresCpuMsPerRequest ?? '-'),
        String(m.server.gcPercentOfCpu),
        String(m.server.rssMb),
        String(m.machineBusyPercent.during ?? '-'),
        String(m.machineBusyPercent.before ?? '-'),
        String(r.responseBytes[m.role]),
      ]),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log();
  console.log(
    `nested read on ${backend}: ${settings.connections} connections, ${settings.warmupSeconds} s warm-up, ` +
      `${settings.rounds} rounds of ${settings.durationSeconds} s (the median round of each server shown)`,
  );
  const variant = [
    settings.src && `app of ${settings.src}`,
    settings.baselineSrc && `baseline: app of ${settings.baselineSrc}`,
    settings.nodeFlags.length && `node ${settings.nodeFlags.join(' ')}`,
    settings.graphqlImports.length && `imports ${settings.graphqlImports.join(',')}`,
    process.env.NODE_ENV && `NODE_ENV=${process.env.NODE_ENV}`,
  ].filter(Boolean);
  if (variant.length) console.log(`variant: ${variant.join('; ')}`);
  console.log(line(header));
  for (const row of rows) console.log(line(row));
  for (const r of results) {
    if (r.ratio === null) continue;
    console.log(
      `${r.shape}: graphql/floor ${r.ratio.toFixed(2)}x (target ${TARGET_RATIO}x); per round: ${r.roundRatios.map((x) => x.toFixed(2)).join(', ')}`,
    );
  }
  for (const r of results) {
    if (!r.overBaselineRoundRatios?.length) continue;
    console.log(
      `${r.shape}: baseline/floor ${r.baselineRatio?.toFixed(2) ?? '-'}x; graphql/baseline per round: ${r.overBaselineRoundRatios.map((x) => x.toFixed(2)).join(', ')} (median ${r.overBaselineMedian?.toFixed(2)}x)`,
    );
  }
  for (const r of results) {
    if (!r.apolloRoundRatios?.length) continue;
    console.log(
      `${r.shape}: apollo/floor per round ${r.apolloRoundRatios.map((x) => x.toFixed(2)).join(', ')} (median ${r.apolloMedian?.toFixed(2)}x); ` +
        `graphql/apollo per round ${r.overApolloRoundRatios!.map((x) => x.toFixed(2)).join(', ')} (median ${r.overApolloMedian?.toFixed(2) ?? '-'}x)`,
    );
  }
  const offset = results.find((r) => r.shape === 'DEEP_OFFSET');
  const keyset = results.find((r) => r.shape === 'DEEP_KEYSET');
  if (offset?.ratio && keyset?.ratio) {
    // Their floors are one statement: the ratio of their ratios is the offset's cost, free of the drift between their runs.
    console.log(
      `the offset's cost: DEEP_OFFSET answers at ${(offset.ratio / keyset.ratio).toFixed(2)}x the rate of DEEP_KEYSET, the same rows by cursor (each against their common floor)`,
    );
  }
  console.log(
    'CPU %: the server process, of one core; PG CPU: its Postgres backends (/proc); machine %: all cores during the round; before %: all cores in the second before it',
  );
  if (results.some((r) => r.rounds.some((m) => (m.machineBusyPercent.before ?? 0) > 20))) {
    console.log('warning: the machine was busy before a round (before % > 20): something else competes for the CPU');
  }
  console.log();
}

async function runShape(shape: BenchShape, servers: Partial<Record<Role, ServerProcess>>): Promise<ShapeResult> {
  const page = await requestOf(shape, (servers.graphql ?? servers.baseline)!);
  const bytes = await verify(page, servers);
  const targets = settings.targets.filter((role) => bytes[role] !== undefined);
  for (const role of targets) await warmUp(page, servers[role]!, bytes[role]!);
  // Rounds alternate the servers, so a burst of outside load hits both rather than one.
  const rounds: Measurement[] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    for (const role of targets) rounds.push(await measure(page, servers[role]!, bytes[role]!, round));
  }
  const byRole = Object.fromEntries(targets.map((role) => [role, medianRound(rounds.filter((m) => m.role === role))])) as Partial<
    Record<Role, Measurement>
  >;
  const rateOf = (role: Role, round: number) => rounds.find((m) => m.role === role && m.round === round)!.load.requestsPerSecond;
  const both = byRole.floor && byRole.graphql;
  /** `over`'s rate as a share of `under`'s, each round, where both were measured. */
  const perRound = (over: Role, under: Role) =>
    byRole[over] && byRole[under]
      ? Array.from({ length: settings.rounds }, (_, i) => Math.round((rateOf(over, i + 1) / rateOf(under, i + 1)) * 1000) / 1000)
      : [];
  const medianOf = (ratios: number[]) => (ratios.length ? Math.round(median(ratios) * 1000) / 1000 : null);
  const roundRatios = perRound('graphql', 'floor');
  const overBaseline = perRound('graphql', 'baseline');
  const apolloOfFloor = perRound('apollo', 'floor');
  const overApollo = perRound('graphql', 'apollo');
  const apollo = byRole.apollo
    ? {
        apolloRoundRatios: apolloOfFloor,
        apolloMedian: medianOf(apolloOfFloor),
        overApolloRoundRatios: overApollo,
        overApolloMedian: medianOf(overApollo),
      }
    : {};
  const baseline = byRole.baseline
    ? {
        baselineRatio: byRole.floor
          ? Math.round((byRole.baseline.load.requestsPerSecond / byRole.floor.load.requestsPerSecond) * 1000) / 1000
          : null,
        overBaselineRoundRatios: overBaseline,
        overBaselineMedian: medianOf(overBaseline),
      }
    : {};
  return {
    ...baseline,
    ...apollo,
    shape: shape.name,
    query: shape.query,
    // A page of several records: the mean of their responses' lengths.
    responseBytes: Object.fromEntries(Object.entries(bytes).map(([role, lengths]) => [role, Math.round(mean(lengths))])),
    ...byRole,
    ratio: both ? Math.round((byRole.graphql!.load.requestsPerSecond / byRole.floor!.load.requestsPerSecond) * 1000) / 1000 : null,
    roundRatios,
    medianRoundRatio: medianOf(roundRatios),
    rounds,
  };
}

// ---------------------------------------------------------------------------------------

const file = resultsFile(`nested-read-${backend}`, settings.label);
const seedNow = new Date();
console.log(
  `backend ${backend}; building the database (${BENCH_SEED.pools} pools, ${BENCH_SEED.users} users) and starting the servers ...`,
);
const database = await prepareDatabase(settings.databaseUrl, seedNow);
if (settings.databaseUrl) admin = postgres(settings.databaseUrl, { max: 1, onnotice: () => {} });
const servers: ServerProcess[] = [];
try {
  // The servers start in parallel (PGlite seeds in each); only the measured one is busy.
  const roles: Role[] = ['floor', 'graphql'];
  if (settings.baselineSrc) roles.push('baseline');
  if (settings.targets.includes('apollo')) roles.push('apollo');
  const started = await Promise.allSettled(
    roles.map((role) =>
      startServer(role, {
        databaseUrl: database.url,
        seedNow,
        authSecret,
        src: settings.src,
        nodeFlags: settings.nodeFlags,
        graphqlImports: settings.graphqlImports,
      }),
    ),
  );
  for (const outcome of started) if (outcome.status === 'fulfilled') servers.push(outcome.value);
  for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
  const byRoleServer = Object.fromEntries(servers.map((server) => [server.role, server])) as Partial<Record<Role, ServerProcess>>;
  // On PGlite the floor's database is its own: it is given the session the GraphQL server issued.
  const viewer = byRoleServer.graphql?.viewer;
  if (!database.url && viewer) for (const role of ['floor', 'apollo'] as const) await byRoleServer[role]?.adoptSession(viewer);
  const results: ShapeResult[] = [];
  for (const shape of settings.shapes) results.push(await runShape(shape, byRoleServer));
  printTable(results);
  const cpus = os.cpus();
  const report = {
    benchmark: 'nested-read',
    backend,
    date: new Date().toISOString(),
    node: process.version,
    machine: { cpus: cpus.length, model: cpus[0]?.model ?? null, totalMemoryMb: mb(os.totalmem()) },
    settings: {
      connections: settings.connections,
      warmupSeconds: settings.warmupSeconds,
      durationSeconds: settings.durationSeconds,
      rounds: settings.rounds,
      seed: BENCH_SEED,
      scale: BENCH_SCALE,
      cpuProfile: settings.cpuProfile,
      nodeFlags: settings.nodeFlags,
      graphqlImports: settings.graphqlImports,
      src: settings.src,
      baselineSrc: settings.baselineSrc,
      nodeEnv: process.env.NODE_ENV ?? null,
    },
    targetRatio: TARGET_RATIO,
    shapes: results,
  };
  writeResults(file, report);
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  await admin?.end();
  await database.drop();
}
