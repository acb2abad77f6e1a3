/**
 * The database behind every read and write: `openDatabase` opens PGlite (embedded, in a
 * directory or in memory) or Postgres (postgres.js) behind one `Database` interface with
 * Drizzle, the raw read path (`readQueryOf`), statement counting and time bounds,
 * migrations, singletons across replicas, and the error tests the rest of the code uses
 * (`isConnectionError`, `isUniqueViolation`).
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import { type SQL, sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import type postgres from 'postgres';
import * as schema from '../../schema/index.js';
import { type EventChannel, inProcessEventChannel, postgresEventChannel } from './event-channel.js';
import { postgresClient } from './hosts.js';
import type { DatabaseLoad } from './load.js';
import { LargeReadQueue } from './large-read-queue.js';
import { PgliteWorkerClient } from './pglite-client.js';
import { trackPostgresStatements } from './postgres-statements.js';
import type { FirstStatementCheck, StatementScope } from './statement-scope.js';

export type Schema = typeof schema;
/** The one Drizzle type every module codes against, whichever backend is underneath. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../schema/migrations', import.meta.url));

/** `statementTimeoutMs`: longest a statement may run (0, the default, = no limit; the server passes DATABASE_STATEMENT_TIMEOUT_MS). */
export type DatabaseOptions =
  | {
      kind: 'postgres';
      url: string;
      maxConnections?: number;
      connectTimeoutSeconds?: number;
      applicationName?: string;
      statementTimeoutMs?: number;
    }
  | {
      kind: 'pglite';
      dataDir?: string;
      statementTimeoutMs?: number;
      /** A tarball of {@link Database.dumpDataDir} to start from, instead of an empty cluster (tests: a fresh database in a second, not ten). */
      loadDataDir?: string;
    };

/**
 * A database handle: the Drizzle instance plus what the server needs around it.
 * `statementCount` counts every statement that reaches the driver, so tests and
 * metrics can check that a request's statements depend on its shape alone.
 */
export interface Database {
  readonly kind: 'postgres' | 'pglite';
  readonly db: Db;
  readonly statementCount: number;
  /** Wake-ups of every process on this database after an event outbox write (LISTEN/NOTIFY; in process on PGlite). */
  readonly events: EventChannel;
  /** Runs raw SQL and returns its rows, normalised across drivers (no column mapping). */
  rows<T extends Record<string, unknown>>(query: SQL): Promise<T[]>;
  /** The read path's statements: see {@link ReadQuery}. */
  readonly query: ReadQuery;
  /** Resolves when the database answers within `timeoutMs`, rejects otherwise. */
  ping(timeoutMs?: number): Promise<void>;
  /** How busy its connections are now, and how long statements wait for one (load shedding). */
  load(): DatabaseLoad;
  /** Applies the pending migrations; on Postgres under a lock, so replicas starting together apply each once. */
  migrate(): Promise<void>;
  /**
   * Runs `work` as the only process of the cluster doing `name` (demo seeding, custody sync):
   * on Postgres under a session advisory lock held on a connection of its own (released if
   * the process dies), so a replica that starts while another does the work waits, then finds
   * it done. PGlite has one process per data directory: `work` simply runs.
   */
  singleton<T>(name: SingletonName, work: () => Promise<T>): Promise<T>;
  /**
   * This database as one operation uses it: a view whose every statement is registered in
   * `scope` (see StatementScope), so the operation's time budget cancels what it has
   * running. It shares everything else with this handle: connections, counts, events.
   */
  scopedTo(scope: StatementScope): Database;
  /** The handle a scoped view belongs to; a handle's own is itself. */
  readonly shared: Database;
  /** PGlite only: writes the database's files to `file` as a tarball, for `loadDataDir`. */
  dumpDataDir?(file: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * A {@link Database.scopedTo} view. Its client and Drizzle instance are made on first use
 * (a rendered read needs only `query`, `{ __typename }` nothing), and its Drizzle instance
 * is the handle's with the session swapped: query builders take the session from the
 * instance they start from, so one made per operation costs one object, not a schema walk.
 * Drizzle's relational queries (`db.query`) keep the handle's session; nothing uses them.
 */
class ScopedDatabase implements Database {
  private scopedQuery: ReadQuery | undefined;
  private drizzle: Db | undefined;

  constructor(
    readonly shared: Database,
    private readonly scope: StatementScope,
    private readonly clientFor: (scope: StatementScope) => unknown,
  ) {}

  get kind(): Database['kind'] {
    return this.shared.kind;
  }
  get statementCount(): number {
    return this.shared.statementCount;
  }
  get events(): EventChannel {
    return this.shared.events;
  }
  get query(): ReadQuery {
    return (this.scopedQuery ??= <T>(text: string, params: readonly unknown[]) => {
      const bound = this.scope.bind(params);
      const check = this.scope.takeFirstStatementCheck();
      if (check) {
        const read = checkedRead<T>(this.shared.query, text, bound, this.scope, check);
        this.scope.judgment = read;
        return read;
      }
      const judgment = this.scope.judgment;
      if (!judgment) return this.shared.query<T>(text, bound, this.scope);
      return judgment.then(() => this.shared.query<T>(text, bound, this.scope));
    });
  }
  get db(): Db {
    if (!this.drizzle) {
      this.drizzle = withSession(this.shared.db, this.clientFor(this.scope));
      readQueries.set(this.drizzle, this.query);
    }
    return this.drizzle;
  }
  async rows<T extends Record<string, unknown>>(query: SQL): Promise<T[]> {
    return resultRows<T>(await this.db.execute(query));
  }
  ping(timeoutMs?: number): Promise<void> {
    return this.shared.ping(timeoutMs);
  }
  load(): DatabaseLoad {
    return this.shared.load();
  }
  migrate(): Promise<void> {
    return this.shared.migrate();
  }
  singleton<T>(name: SingletonName, work: () => Promise<T>): Promise<T> {
    return this.shared.singleton(name, work);
  }
  scopedTo(scope: StatementScope): Database {
    return this.shared.scopedTo(scope);
  }
  /** A view closes nothing: its handle's owner does. */
  async close(): Promise<void> {}
}

/**
 * `text` run with `check` folded in (StatementScope.checkWithFirstStatement): the check's row
 * is read beside the statement, whose rows are computed only where the check holds (a
 * one-time filter: nothing of them where it fails); the row is judged before any row is
 * returned. The statement's rows keep their order (one outer row, joined laterally).
 */
async function checkedRead<T>(
  query: ReadQuery,
  text: string,
  params: readonly unknown[],
  scope: StatementScope,
  check: FirstStatementCheck,
): Promise<T[]> {
  const rows = await query<Record<string, unknown>>(checkedText(text, check.write, params.length), [...params, ...check.values], scope);
  const checked = rows[0]?.$check;
  await check.judge(typeof checked === 'string' ? (JSON.parse(checked) as Record<string, unknown>) : undefined);
  // Where the statement found no row, the one row there is carries the check's alone.
  if (rows[0]?.$row === null) return [];
  // The last column first: deleting a row's last property keeps its shape (a copy without them costs a row each).
  for (const row of rows) {
    delete row.$check;
    delete row.$row;
  }
  return rows as T[];
}

/**
 * The texts checkedRead ran, by statement text: a kept plan runs its statement's one text at
 * every request, whose checked text is then not written, flattened and hashed again. Cleared
 * when full: a process runs as many texts as it has plans.
 */
const checkedTexts = new Map<string, { write: FirstStatementCheck['write']; params: number; text: string }>();
const CHECKED_TEXTS = 512;

function checkedText(text: string, write: FirstStatementCheck['write'], params: number): string {
  const kept = checkedTexts.get(text);
  if (kept?.write === write && kept.params === params) return kept.text;
  let next = params;
  const { row, holds } = write((type) => `$${++next}::${type}`);
  const checked =
    `SELECT q.*, to_json(g)::text AS "$check" FROM (SELECT 1) one LEFT JOIN LATERAL (${row}) g ON true ` +
    `LEFT JOIN LATERAL (SELECT o.*, true AS "$row" FROM (${text}) o WHERE ${holds}) q ON true`;
  if (checkedTexts.size >= CHECKED_TEXTS) checkedTexts.clear();
  checkedTexts.set(text, { write, params, text: checked });
  return checked;
}

interface DrizzleSession {
  dialect: unknown;
  schema: unknown;
  options: unknown;
}

/** `db` running its statements on `client` instead: the same dialect, schema and options, a new session of the same driver. */
function withSession(db: Db, client: unknown): Db {
  const session = (db as unknown as { session: DrizzleSession }).session;
  const Session = session.constructor as new (client: unknown, dialect: unknown, schema: unknown, options: unknown) => DrizzleSession;
  return Object.create(db, { session: { value: new Session(client, session.dialect, session.schema, session.options) } }) as Db;
}

/** The cluster-wide jobs that one process at a time may run. */
export type SingletonName = 'migrate' | 'seed' | 'custodySync';

/**
 * Advisory lock keys of the singletons: one 64-bit key space per database, shared with any
 * other program using advisory locks, hence a prefix ('pg' 'gr' = poolgraph) in the high bits.
 */
const SINGLETON_LOCK_KEYS: Record<SingletonName, bigint> = {
  migrate: 0x70677200_00000001n,
  seed: 0x70677200_00000002n,
  custodySync: 0x70677200_00000003n,
};

/**
 * Holds the advisory lock of `name` on a connection of its own (no statement timeout: the
 * wait for another replica's migrations, and the migrations, may be long) while `work` runs
 * with that connection; released by unlocking, or by the connection's end if the process dies.
 */
async function underSessionLock<T>(
  options: { url: string; connectTimeoutSeconds?: number; applicationName: string },
  name: SingletonName,
  work: (session: postgres.Sql) => Promise<T>,
): Promise<T> {
  const session = postgresClient(options.url, {
    max: 1,
    connect_timeout: options.connectTimeoutSeconds ?? 3,
    onnotice: () => {},
    connection: { application_name: `${options.applicationName}:${name}`, statement_timeout: 0 },
    fetch_types: false,
  });
  try {
    await session`SELECT pg_advisory_lock(${SINGLETON_LOCK_KEYS[name].toString()}::bigint)`;
    return await work(session);
  } finally {
    // Ending the session releases the lock; an explicit unlock first keeps it short if end() stalls.
    await session`SELECT pg_advisory_unlock(${SINGLETON_LOCK_KEYS[name].toString()}::bigint)`.catch(() => {});
    await session.end({ timeout: 5 });
  }
}

// ---- The read path's query method ------------------------------------------------------
/**
 * Runs one statement of the read path: a fixed SQL text with positional parameters ($1 ...),
 * its rows as the driver returns them (columns named by their `AS "alias"`; int2/int4 and
 * float8 as numbers, bool, json/jsonb parsed, int8 and numeric as text; timestamptz as text
 * on postgres.js, whose date parser Drizzle's driver replaces, and as Date on PGlite), no ORM
 * in between. Counted in `statementCount` like every statement; registered in `scope`, the
 * operation's (a scoped view's `query` passes its own), so its time budget can cancel it.
 *
 * The text is built once per statement shape, never with values in it, so a backend can keep
 * it prepared: postgres.js prepares each text once per connection (named statement, then
 * Bind/Execute only); on PGlite the worker keeps a named prepared statement per text
 * (pglite-worker.mjs), so there too a text is parsed and planned once.
 * A parameter that is an array (the keys of a batch) goes as ONE text parameter, a Postgres
 * array literal, so the statement casts it (`= ANY($1::uuid[])`) and no driver needs to
 * know array type OIDs (postgres.js runs without fetch_types).
 * A backend implements only this (e.g. in a worker thread, sending text and params over).
 */
export type ReadQuery = <T>(text: string, params: readonly unknown[], scope?: StatementScope) => Promise<T[]>;

const readQueries = new WeakMap<Db, ReadQuery>();

/**
 * The read-path query method of the database a `Db` belongs to: loaders are created from
 * the `Db` of a context in many places, so they find the method here rather than each of
 * those places passing the `Database` too.
 */
export function readQueryOf(db: Db): ReadQuery {
  const query = readQueries.get(db);
  if (!query) throw new Error('this Db was not opened by openDatabase');
  return query;
}

/** A handle as openDatabase returns it: its Drizzle instance's read-path method known, and its scoped views made by `clientFor`. */
function handle(database: Omit<Database, 'scopedTo' | 'shared'>, clientFor: (scope: StatementScope) => unknown): Database {
  const opened = database as Database;
  // Of `this`, so that an object made from the handle (Object.create, as tests wrap it) is the one its views use.
  Object.defineProperties(opened, {
    shared: {
      get(this: Database) {
        return this;
      },
    },
    scopedTo: {
      value(this: Database, scope: StatementScope) {
        return new ScopedDatabase(this, scope, clientFor);
      },
    },
  });
  readQueries.set(opened.db, opened.query);
  return opened;
}

/**
 * `simple: false`: postgres.js sends a statement without parameters by the simple query
 * protocol, parsed and planned at every call, unless told otherwise; a page of an unfiltered
 * list (its size written into the text) has none, and is prepared like the rest.
 */
const PREPARED = { prepare: true, simple: false } as postgres.UnsafeQueryOptions;

function postgresReadQuery(tracking: ReturnType<typeof trackPostgresStatements>): ReadQuery {
  const largeReads = new LargeReadQueue();
  return <T>(text: string, params: readonly unknown[], scope?: StatementScope) => {
    const run = () => tracking.unsafe(scope ?? null, text, params.map(readParam) as never[], PREPARED) as unknown as Promise<T[]>;
    return scope?.large ? largeReads.run(scope, run) : run();
  };
}

function pgliteReadQuery(client: PgliteWorkerClient): ReadQuery {
  return async <T>(text: string, params: readonly unknown[], scope?: StatementScope) =>
    (await client.preparedQuery<T>(text, params.map(readParam), scope ?? null)).rows;
}

// Dates go as ISO text: Drizzle's postgres.js driver replaces the driver's date serializer.
const readParam = (value: unknown) => (Array.isArray(value) ? arrayLiteral(value) : value instanceof Date ? value.toISOString() : value);

/** `{"a","b"}`: every element quoted, so commas, braces and the word NULL stay text. One text parameter, cast by the statement. */
export function arrayLiteral(values: readonly unknown[]): string {
  return `{${values.map((v) => `"${String(v).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`;
}
// -----------------------------------------------------------------------------------------

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.kind === 'postgres' ? openPostgres(options) : openPglite(options);
}

function openPostgres(options: Extract<DatabaseOptions, { kind: 'postgres' }>): Database {
  const applicationName = options.applicationName ?? 'poolgraph';
  const maxConnections = options.maxConnections ?? 10;
  const statementTimeoutMs = options.statementTimeoutMs ?? 0;
  // Statements are tracked (tracking.load) and cancelled with their request (statement-scope.ts).
  const tracking = trackPostgresStatements(
    postgresClient(options.url, {
      max: maxConnections,
      // A database that is down must fail the request fast, not hang it.
      connect_timeout: options.connectTimeoutSeconds ?? 3,
      idle_timeout: 60,
      onnotice: () => {},
      // Every statement is bounded by the server too (0 = no limit), mapped to OPERATION_TIMEOUT.
      connection: { application_name: applicationName, statement_timeout: statementTimeoutMs },
      // The schema uses no custom array types, so a new connection needs no type lookup.
      fetch_types: false,
      // At most one statement written behind another on a busy connection (postgres.js
      // writes up to 100): the server runs such a statement whenever the one before ends,
      // its request's budget spent or not, and cancelling a row of them takes one cancel
      // round trip after another. Queued here instead, a cancelled statement is dropped
      // before it reaches the server. (Not 0: postgres.js then never reserves a connection
      // for `begin`. An option it reads but does not declare.)
      max_pipeline: 1,
    } as postgres.Options<{}>),
    maxConnections,
  );
  const client = tracking.client;
  const db = drizzlePostgres(client, { schema }) as unknown as Db;
  return handle(
    {
      kind: 'postgres',
      db,
      events: postgresEventChannel({ url: options.url, applicationName, connectTimeoutSeconds: options.connectTimeoutSeconds ?? 3 }),
      get statementCount() {
        return tracking.statements;
      },
      async rows<T extends Record<string, unknown>>(query: SQL) {
        return resultRows<T>(await db.execute(query));
      },
      query: postgresReadQuery(tracking),
      ping: (timeoutMs = 2000) => withTimeout(db.execute(sql`select 1`), timeoutMs).then(() => {}),
      load: () => tracking.load(),
      // Migrations are maintenance, not requests: an index built on a large table may take
      // longer than any statement timeout, so they run on the lock's connection, without one.
      // drizzle's migrator takes no lock itself: replicas starting together on an empty
      // database would each create its schema and apply every migration at once.
      migrate: () =>
        underSessionLock({ ...options, applicationName }, 'migrate', (session) =>
          migratePostgres(drizzlePostgres(session), { migrationsFolder: MIGRATIONS_FOLDER }),
        ),
      singleton: (name, work) => underSessionLock({ ...options, applicationName }, name, () => work()),
      close: () => client.end({ timeout: 5 }),
    },
    (scope) => tracking.scoped(scope),
  );
}

async function openPglite(options: Extract<DatabaseOptions, { kind: 'pglite' }>): Promise<Database> {
  if (options.dataDir && !options.dataDir.includes('://')) mkdirSync(options.dataDir, { recursive: true });
  let statementCount = 0;
  // PGlite runs in a worker thread (pglite-client.ts), so no statement blocks the event loop.
  const client = await PgliteWorkerClient.open({
    dataDir: options.dataDir,
    loadDataDir: options.loadDataDir,
    statementTimeoutMs: options.statementTimeoutMs ?? 0,
    onStatement: () => statementCount++,
  });
  const db = drizzlePglite(client as unknown as PGlite, { schema }) as unknown as Db;
  return handle(
    {
      kind: 'pglite',
      db,
      events: inProcessEventChannel(),
      get statementCount() {
        return statementCount;
      },
      async rows<T extends Record<string, unknown>>(query: SQL) {
        return resultRows<T>(await db.execute(query));
      },
      query: pgliteReadQuery(client),
      ping: (timeoutMs = 2000) => withTimeout(db.execute(sql`select 1`), timeoutMs).then(() => {}),
      load: () => client.load(),
      // Migrations are maintenance, not requests (see openPostgres): no statement timeout.
      migrate: () => client.withoutStatementTimeout(() => migratePglite(db as never, { migrationsFolder: MIGRATIONS_FOLDER })),
      singleton: (_name, work) => work(),
      dumpDataDir: (file) => client.dumpDataDir(file),
      close: () => client.close(),
    },
    (scope) => client.scopedTo(scope),
  );
}

/**
 * Rows a raw statement (`db.execute`) returned, across postgres.js (an array) and PGlite
 * ({ rows }); for statements run on a transaction's `Db`, where {@link Database.rows} is not at hand.
 */
export function resultRows<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}

/** Rows a raw statement wrote, across postgres.js (`count`) and PGlite (`affectedRows`). */
export function affectedRows(result: unknown): number {
  const r = result as { count?: number; affectedRows?: number };
  return r.count ?? r.affectedRows ?? 0;
}

export async function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`database did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EPIPE',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'NO_MATCHING_HOST', // a string of several hosts, none of them the role it asks for (a switch under way): hosts.ts
  '57P01', // admin_shutdown: the backend was terminated
  '57P02',
  '57P03', // cannot_connect_now: the server is starting or stopping
]);

/** True when an error (or one it wraps) means the database could not be reached. */
export function isConnectionError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) return true;
  }
  return false;
}

/** A Postgres unique violation (SQLSTATE 23505), wherever the driver nested it. */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === '23505') return true;
  }
  return false;
}
