/**
 * What the benches share: the scratch database a run builds (the reference data, or
 * BENCH_SCALE times it) and the server processes it measures (lib/server.ts, one child
 * process per server, so the load generator never shares their event loop).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { openDatabase } from '../../src/db/client.js';
import { type SeedProgress, seedDemoData } from '../../src/seed/index.js';
import { BENCH_SEED } from './query.js';
import type { Role } from './roles.js';
import type { ChildMessage, ParentMessage, ServerStats, ViewerSession } from './server.js';

const SERVER_ENTRY = fileURLToPath(new URL('./server.ts', import.meta.url));

/** BENCH_NODE_FLAGS: extra Node flags of the server processes, e.g. "--max-semi-space-size=32" or "--trace-gc". */
export const BENCH_NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);

export interface BenchDatabase {
  /** What the servers connect to; null for PGlite (each server seeds its own in memory). */
  url: string | null;
  drop(): Promise<void>;
}

/** A line per table the seeder finishes (the ten-times database takes minutes). */
function seedProgress({ stage, done, total }: SeedProgress): void {
  if (done >= total) console.log(`  seeded ${stage}: ${total}`);
}

/** A scratch database on `databaseUrl`'s server, migrated and seeded (null: PGlite, which each server seeds itself). */
export async function prepareDatabase(databaseUrl: string | null, seedNow: Date): Promise<BenchDatabase> {
  if (!databaseUrl) return { url: null, drop: async () => {} };
  const name = `poolgraph_bench_${randomBytes(4).toString('hex')}`;
  const admin = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  const drop = async () => {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  };
  try {
    const database = await openDatabase({ kind: 'postgres', url: url.toString(), applicationName: name });
    try {
      await database.migrate();
      await seedDemoData(database, { ...BENCH_SEED, now: seedNow, onProgress: seedProgress });
      // Planner statistics now, not whenever autovacuum gets to the fresh tables.
      await database.rows(sql`analyze`);
    } finally {
      await database.close();
    }
  } catch (error) {
    await drop();
    throw error;
  }
  return { url: url.toString(), drop };
}

export interface ServerProcess {
  role: Role;
  port: number;
  /** The viewer session a GraphQL server issued at start. */
  viewer: ViewerSession | null;
  child: ChildProcess;
  stats(): Promise<ServerStats>;
  /** PGlite: gives this server's own database the viewer's session row. */
  adoptSession(session: ViewerSession): Promise<void>;
  /** Starts the V8 profiler in the server; the returned function stops it and writes `file`. */
  profile(file: string): Promise<() => Promise<void>>;
  stop(): Promise<void>;
}

export interface ServerOptions {
  databaseUrl: string | null;
  seedNow: Date;
  /** One secret for every server of a run, so the floor verifies the viewer's token as the app does. */
  authSecret: string;
  /** The app the GraphQL server loads (lib/server.ts): `dist` unless told otherwise; null for the source under tsx. */
  src: string | null;
  /** Extra Node flags, and modules the GraphQL server imports first. */
  nodeFlags?: string[];
  graphqlImports?: string[];
}

export function startServer(role: Role, options: ServerOptions): Promise<ServerProcess> {
  const { databaseUrl, seedNow, authSecret } = options;
  // As `npm start` runs the server: tsx's ESM loader only (what the app loads is ESM), so no
  // require() of a dependency (Apollo's createHash requires crypto per request) goes through tsx's resolver.
  const execArgv = [...(options.nodeFlags ?? [])];
  execArgv.push('--import', 'tsx/esm');
  if (role === 'graphql') for (const module of options.graphqlImports ?? []) execArgv.push('--import', module);
  const child = fork(SERVER_ENTRY, [], {
    execArgv,
    env: {
      ...process.env,
      BENCH_ROLE: role,
      // The app the server loads (lib/server.ts): the settled choice, `dist` unless told otherwise.
      BENCH_SRC: options.src ?? '',
      BENCH_DB_URL: databaseUrl ?? '',
      BENCH_SEED_NOW: seedNow.toISOString(),
      BENCH_AUTH_SECRET: authSecret,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return serverProcess(role, child);
}

/**
 * A server child process speaking lib/server.ts's messages (stats, profiles, stop), once it
 * says it is ready: a server of startServer, or the REST floor (lib/rest-floor.ts), which
 * gives `adoptSession` as it has it.
 */
export function serverProcess(
  role: Role,
  child: ChildProcess,
  own: Partial<Pick<ServerProcess, 'adoptSession'>> = {},
): Promise<ServerProcess> {
  const next = (type: ChildMessage['type']) =>
    new Promise<ChildMessage>((resolve, reject) => {
      const onMessage = (message: ChildMessage) => {
        if (message.type !== type) return;
        cleanup();
        resolve(message);
      };
      const onExit = (code: number | null) => {
        cleanup();
        reject(new Error(`the ${role} server exited (code ${code}) before "${type}"`));
      };
      const cleanup = () => {
        child.off('message', onMessage);
        child.off('exit', onExit);
      };
      child.on('message', onMessage);
      child.on('exit', onExit);
    });
  const ask = (message: ParentMessage) => child.send(message);
  return next('ready').then((ready) => ({
    role,
    port: (ready as { port: number }).port,
    viewer: (ready as { viewer?: ViewerSession | null }).viewer ?? null,
    child,
    async stats() {
      const reply = next('stats');
      ask({ type: 'stats' });
      return (await reply) as ServerStats;
    },
    adoptSession:
      own.adoptSession ??
      (async (session) => {
        const adopted = next('session-adopted');
        ask({ type: 'adopt-session', session });
        await adopted;
      }),
    async profile(file) {
      const started = next('profile-started');
      ask({ type: 'profile-start' });
      await started;
      return async () => {
        const written = next('profile-written');
        ask({ type: 'profile-stop', file });
        await written;
      };
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      ask({ type: 'stop' });
      await exited;
    },
  }));
}

/**
 * One GraphQL server of this checkout's app (or `src`'s) on a fresh scratch database: what the
 * single-server benches measure; with `baselineSrc`, a second server of that built app beside it
 * on the same database (the "baseline", another commit measured in the same rounds).
 */
export async function startAppOnScratchDatabase(databaseUrl: string | null, src: string | null, baselineSrc: string | null = null) {
  const seedNow = new Date();
  const database = await prepareDatabase(databaseUrl, seedNow);
  const options = { databaseUrl: database.url, seedNow, authSecret: randomBytes(32).toString('hex'), nodeFlags: BENCH_NODE_FLAGS };
  const started: ServerProcess[] = [];
  try {
    const server = await startServer('graphql', { ...options, src });
    started.push(server);
    const baseline = baselineSrc ? await startServer('baseline', { ...options, src: baselineSrc }) : null;
    return { database, server, baseline };
  } catch (error) {
    await Promise.all(started.map((server) => server.stop()));
    await database.drop();
    throw error;
  }
}
