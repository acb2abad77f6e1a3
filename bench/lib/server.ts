/**
 * A server under test, run as a child process of bench/nested-read.ts so the load
 * generator never shares its event loop: BENCH_ROLE=floor serves the hand-written
 * statement (lib/floor.ts), BENCH_ROLE=graphql the real app of src/server/app.ts.
 *
 * The database is BENCH_DB_URL (already migrated and seeded by the parent) or, when it
 * is unset, an in-memory PGlite of this process, migrated and seeded here with the
 * parent's BENCH_SEED_NOW, so both servers' PGlite copies hold the same rows.
 *
 * Talks to the parent over IPC: sends {type: 'ready', port}; answers {type: 'stats'}
 * with CPU, RSS and GC time; closes and exits on {type: 'stop'}.
 */
import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Database } from '../../src/db/client.js';
import { seedDemoData } from '../../src/seed/index.js';
import { users } from '../../schema/index.js';
import type { AuthConfig } from '../../src/config.js';
import { answerParent, countGc } from './child.js';
import { createApolloFloorApp } from './apollo-floor.js';
import { createFloorApp } from './floor.js';
import { type Role, ROLES } from './roles.js';
import { BENCH_SEED, VIEWER_CHOICE_SQL } from './query.js';

export interface ServerStats {
  type: 'stats';
  /** process.cpuUsage(), microseconds, all threads of the process. */
  cpu: NodeJS.CpuUsage;
  rss: number;
  heapUsed: number;
  /** Sum of the durations of GC pauses observed, milliseconds. */
  gcMs: number;
  gcCount: number;
}

export type ParentMessage =
  | { type: 'stats' }
  | { type: 'stop' }
  | { type: 'profile-start' }
  | { type: 'profile-stop'; file: string }
  | { type: 'adopt-session'; session: ViewerSession };
/** The bench viewer's session, issued by the GraphQL server at start (the VIEWER page's bearer token). */
export interface ViewerSession {
  userId: string;
  accessToken: string;
  /** The session row's id (refresh_tokens): on PGlite the floor's own database is given the same row. */
  sessionId: string;
}

export type ChildMessage =
  | { type: 'ready'; port: number; viewer: ViewerSession | null }
  | ServerStats
  | { type: 'stopped' }
  | { type: 'profile-started' }
  | { type: 'profile-written' }
  | { type: 'session-adopted' };

const role = process.env.BENCH_ROLE as Role;
if (!ROLES.includes(role)) throw new Error(`BENCH_ROLE must be one of ${ROLES.join(', ')}, got ${role}`);
if (!process.send) throw new Error('lib/server.ts runs as a child of bench/nested-read.ts (IPC channel needed)');

/** The checkout whose app this server runs: this repository, or BENCH_SRC's / BENCH_BASELINE_SRC's copy. */
const appSrc = (role === 'baseline' ? process.env.BENCH_BASELINE_SRC : role === 'graphql' ? process.env.BENCH_SRC : undefined) || undefined;
const appRoot = appSrc ? `${pathToFileURL(resolve(appSrc)).href}/` : new URL('../../', import.meta.url).href;

async function openBenchDatabase(): Promise<Database> {
  const url = process.env.BENCH_DB_URL;
  if (url) {
    // Opened by the app's own copy of db/client.ts: its loaders find the read path's query
    // method in that module's registry (readQueryOf), which another copy's Database is not in.
    const client = (await import(new URL('src/db/client.js', appRoot).href)) as typeof import('../../src/db/client.js');
    return client.openDatabase({ kind: 'postgres', url, applicationName: `poolgraph_bench_${role}` });
  }
  // Opened by the app's own copy of db/client.ts too, so an older checkout measured as the
  // baseline talks to PGlite as that checkout did; seeded by this one, so every server's
  // copy holds the same rows.
  const client = (await import(new URL('src/db/client.js', appRoot).href)) as typeof import('../../src/db/client.js');
  const database = await client.openDatabase({ kind: 'pglite' });
  await database.migrate();
  await seedDemoData(database, { ...BENCH_SEED, now: new Date(process.env.BENCH_SEED_NOW ?? Date.now()) });
  // Planner statistics, as a database in service has them (PGlite runs no autovacuum).
  await database.rows(sql`analyze`);
  return database;
}

/** Shared by the servers (the parent generates it): the floor verifies the tokens the GraphQL server issues. */
const authSecret = process.env.BENCH_AUTH_SECRET || randomBytes(32).toString('hex');

async function createServer(database: Database): Promise<FastifyInstance> {
  if (role === 'floor') return createFloorApp(database, process.env.BENCH_DB_URL || null, new TextEncoder().encode(authSecret));
  if (role === 'apollo') return createApolloFloorApp(database, process.env.BENCH_DB_URL || null, new TextEncoder().encode(authSecret));
  // The app of this repository, or of the copy under BENCH_SRC (a prototype in scratch/
  // with src/ and schema/ beside each other). Imported only here: type-graphql keeps its
  // decorators' metadata globally, so one process must load one copy of the resolvers.
  const root = appRoot;
  const { createApp } = (await import(new URL('src/server/app.js', root).href)) as typeof import('../../src/server/app.js');
  const { loadConfig } = (await import(new URL('src/config.js', root).href)) as typeof import('../../src/config.js');
  // Production settings; the per-client rate limit is off, as one client sends every
  // request here.
  const config = loadConfig({
    POOLGRAPH_MODE: 'production',
    AUTH_SECRET: authSecret,
    // The viewer's session outlives any run.
    ACCESS_TOKEN_TTL_SECONDS: String(24 * 3600),
    // The bench reads only; no chain is involved.
    EMBEDDED_CHAIN_IN_PRODUCTION: 'true',
    INTROSPECTION: 'false',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_QUERIES_PER_MINUTE: '0',
    // The load comes from one address: its ceiling would refuse most of it.
    RATE_LIMIT_QUERIES_PER_ADDRESS_PER_MINUTE: '0',
    // No load shedding: the bench measures what the server does under all the load it is given.
    LOAD_SHED_EVENT_LOOP_DELAY_MS: '0',
    LOAD_SHED_DATABASE_WAIT_MS: '0',
    // BENCH_MAX_QUERY_BYTES: another size budget than the default (bench:healthz's costliest read follows it).
    ...(process.env.BENCH_MAX_QUERY_BYTES ? { MAX_QUERY_BYTES: process.env.BENCH_MAX_QUERY_BYTES } : {}),
    // BENCH_RENDERED_READS=false: every operation executed (the executor's path, measured alone).
    ...(process.env.BENCH_RENDERED_READS ? { RENDERED_READS: process.env.BENCH_RENDERED_READS } : {}),
  });
  // From the same copy as the app (type-graphql keeps one copy's metadata per process).
  const { openSession } = (await import(new URL('src/modules/auth/session.service.js', root).href)) as SessionModule;
  viewerSession = await openViewerSession(database, config.auth, openSession);
  return createApp({ config: { ...config, mode: 'production', introspection: false, logLevel: 'silent' }, database });
}

let viewerSession: ViewerSession | null = null;

/**
 * Signs the bench viewer (lib/query.ts, VIEWER_CHOICE_SQL) in as the wallet sign-in does
 * once the signature is checked (session.service.ts openSession: a session row and its tokens).
 */
type SessionModule = typeof import('../../src/modules/auth/session.service.js');

async function openViewerSession(database: Database, auth: AuthConfig, openSession: SessionModule['openSession']): Promise<ViewerSession> {
  const [chosen] = await database.rows<{ user_id: string }>(sql.raw(VIEWER_CHOICE_SQL));
  if (!chosen) throw new Error('the bench database has no user with notifications');
  const [user] = await database.db.select().from(users).where(eq(users.id, chosen.user_id));
  const session = await openSession(database.db, auth, user!, new Date());
  const [row] = await database.rows<{ id: string }>(
    sql`SELECT id FROM refresh_tokens WHERE user_id = ${user!.id} ORDER BY created_at DESC LIMIT 1`,
  );
  return { userId: user!.id, accessToken: session.accessToken, sessionId: row!.id };
}

countGc();
const database = await openBenchDatabase();
const app = await createServer(database);
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
if (!address || typeof address === 'string') throw new Error('no TCP address');

answerParent({
  port: address.port,
  viewer: viewerSession,
  close: async () => {
    await app.close();
    await database.close();
  },
  // PGlite: each server has its own database, so the floor's is given the GraphQL server's
  // session row (the floor checks it per request, as the app does).
  adoptSession: async (session) => {
    await database.rows(
      sql`INSERT INTO refresh_tokens (id, user_id, version, expires_at) VALUES (${session.sessionId}, ${session.userId}, 'bench', now() + interval '1 day') ON CONFLICT DO NOTHING`,
    );
  },
});
