import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import postgres from 'postgres';
import { inject } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { type SeedOptions, type SeedSummary, seedDemoData, TEST_SIZE } from '../../src/seed/index.js';
import type { BackendTemplates } from '../setup/database-templates.js';
import { type Config, loadConfig } from '../../src/config.js';
import { createApp } from '../../src/server/app.js';
import type { ChainRuntime } from '../../src/chain/runtime.js';
import { syncCustodyAccounts } from '../../src/modules/transactions/custody-sync.js';
import { type Seed, seedBuilders } from './fixtures/builders.js';

export type BackendKind = 'pglite' | 'postgres';

/** The domain test sign-in messages name. */
export const TEST_AUTH_DOMAIN = 'poolgraph.test';

/** Configuration of a test server: test mode, defaults for everything else, overrides on top. */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ POOLGRAPH_MODE: 'test', AUTH_DOMAIN: TEST_AUTH_DOMAIN, ...env });
}

/** Every integration suite runs on PGlite, and on Postgres too when TEST_DATABASE_URL is set. */
export const backends: BackendKind[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

/**
 * The sum of the samples of metric `name` whose labels include `labels`, in a Prometheus
 * text exposition (all of its samples when no labels are given); 0 when there are none.
 */
export function metricSample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = /\{(.*)\}/.exec(line)?.[1] ?? '';
    if (wanted.every((pair) => labelText.split(',').includes(pair))) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** Queries `app`'s renderer has left to the executor so far, by reason (its poolgraph_graphql_render_fallbacks_total). */
export async function renderFallbacks(app: FastifyInstance): Promise<Record<string, number>> {
  const response = await app.inject({ url: '/metrics' });
  const counts: Record<string, number> = {};
  for (const [, reason, value] of response.body.matchAll(/^poolgraph_graphql_render_fallbacks_total\{reason="([^"]+)"\} (\S+)$/gm))
    counts[reason!] = Number(value);
  return counts;
}

/** Queries `app` has answered by rendered reads so far (its poolgraph_graphql_rendered_reads_total). */
export async function renderedReadsServed(app: FastifyInstance): Promise<number> {
  const response = await app.inject({ url: '/metrics' });
  return metricSample(response.body, 'poolgraph_graphql_rendered_reads_total');
}

export interface TestDatabase {
  database: Database;
  /** Connection string of the database (Postgres only). */
  url: string | null;
  drop(): Promise<void>;
}

/** Connection string of `database` on the server of TEST_DATABASE_URL. */
export function urlOfDatabase(name: string): string {
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}

/** What a test database starts with: migrated and empty, or with the TEST_SIZE demo data too. */
export type TestDatabaseStart = 'empty' | 'demo';

/** The run's starting databases of `kind` (test/setup/database-templates.ts), if the run made them. */
function templatesOf(kind: BackendKind): BackendTemplates | null {
  const templates = inject('databaseTemplates');
  return (kind === 'pglite' ? templates?.pglite : templates?.postgres) ?? null;
}

/**
 * A fresh, migrated database: in-memory PGlite, or a new database on the Postgres server
 * of TEST_DATABASE_URL (dropped afterwards), so test files never share state. It starts as
 * a copy of the run's template (a PGlite tarball, a Postgres template database), which
 * skips initdb, the migrations and, for 'demo', the seeding; without templates it is made
 * from scratch.
 */
export async function createTestDatabase(kind: BackendKind, start: TestDatabaseStart = 'empty'): Promise<TestDatabase> {
  const template = templatesOf(kind)?.[start];
  if (!template && start === 'demo') throw new Error('createTestDatabase: no demo template in this run');
  if (kind === 'pglite') {
    const database = await openDatabase({ kind: 'pglite', loadDataDir: template });
    await database.migrate();
    return { database, url: null, drop: () => database.close() };
  }
  const name = `poolgraph_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
  await admin.unsafe(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  const url = urlOfDatabase(name);
  const database = await openDatabase({ kind: 'postgres', url, applicationName: name });
  await database.migrate();
  return {
    database,
    url,
    async drop() {
      await database.close();
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/**
 * Fills the PGlite data directory `dataDir` (made if missing) with the run's migrated
 * template, as a server process finds it after its first start: the process then skips
 * initdb and the migrations (without a template the directory is migrated from scratch).
 */
export async function preparePgliteDataDir(dataDir: string, start: TestDatabaseStart = 'empty'): Promise<void> {
  const database = await openDatabase({ kind: 'pglite', dataDir, loadDataDir: templatesOf('pglite')?.[start] });
  try {
    await database.migrate();
  } finally {
    await database.close();
  }
}

export interface GraphQLResponse<TData = any> {
  status: number;
  data?: TData;
  errors?: Array<{
    message: string;
    path?: string[];
    locations?: Array<{ line: number; column: number }>;
    extensions?: Record<string, any>;
  }>;
}

export interface TestApp extends TestDatabase {
  app: FastifyInstance;
  /** What the demo seeder wrote; null when the suite started empty (`seed: false`). */
  seeded: SeedSummary | null;
  /** Chained builders writing into this app's database: `t.seed.user().withPool().withPrediction()`. */
  seed: Seed;
  /** POSTs one operation to /graphql (through fastify's inject, no socket). */
  gql<TData = any>(
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<GraphQLResponse<TData> & { headers: Record<string, unknown> }>;
  /** Statements that reached the database while `work` ran. */
  countStatements(work: () => Promise<unknown>): Promise<number>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Demo data to seed first (default TEST_SIZE); false starts empty, for suites built with `t.seed` builders. */
  seed?: SeedOptions | false;
  config?: Config;
  clock?: () => Date;
  /** The chain transactions go to; its custody accounts are created for the seeded pools and streaks. */
  chain?: ChainRuntime;
}

/**
 * A server on a fresh database with no demo data: the suite writes what it asserts on with
 * `t.seed` builders (small fixtures start faster and say what each test depends on).
 */
export function startEmptyTestApp(kind: BackendKind, options: Omit<TestAppOptions, 'seed'> = {}): Promise<TestApp> {
  return startTestApp(kind, { ...options, seed: false });
}

function isTestSize(options: SeedOptions): boolean {
  return (
    options === TEST_SIZE ||
    (options.users === TEST_SIZE.users &&
      options.pools === TEST_SIZE.pools &&
      options.streaks === TEST_SIZE.streaks &&
      options.seed === undefined &&
      options.now === undefined)
  );
}

/** POSTs one operation to `app`'s /graphql through fastify's inject (no socket): a TestApp's `gql`. */
export function gqlOf(app: FastifyInstance): TestApp['gql'] {
  return async (query, variables, headers) => {
    const response = await app.inject({ method: 'POST', url: '/graphql', payload: { query, variables }, headers });
    return { status: response.statusCode, headers: response.headers, ...(response.json() as object) };
  };
}

export async function startTestApp(kind: BackendKind, options: TestAppOptions = {}): Promise<TestApp> {
  const { seed = TEST_SIZE, config = testConfig(), clock, chain } = options;
  // The TEST_SIZE demo data comes ready in the run's template; other sizes are seeded here.
  const fromTemplate = seed !== false && isTestSize(seed) && templatesOf(kind) !== null;
  const testDatabase = await createTestDatabase(kind, fromTemplate ? 'demo' : 'empty');
  const { database } = testDatabase;
  const seeded = seed === false ? null : fromTemplate ? templatesOf(kind)!.demoSummary : await seedDemoData(database, seed);
  if (chain) await syncCustodyAccounts(database, chain);
  const app = await createApp({ config, database, clock, chain });
  await app.ready();
  return {
    ...testDatabase,
    app,
    seeded,
    seed: seedBuilders(database),
    gql: gqlOf(app),
    async countStatements(work) {
      // The event hub's outbox reads run when a NOTIFY arrives, before or after `work` ends.
      const before = database.statementCount - app.events.backgroundStatements;
      await work();
      return database.statementCount - app.events.backgroundStatements - before;
    },
    async close() {
      await app.close();
      await testDatabase.drop();
    },
  };
}
