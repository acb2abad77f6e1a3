// Over 300 lines: the queue, transactions, timeouts and restarts share one state machine; split, each part would need the others' internals.
import { Worker } from 'node:worker_threads';
import type { QueryOptions, Results } from '@electric-sql/pglite';
import type { DatabaseLoad } from './load.js';
import { statementCancelledError, type StatementScope } from './statement-scope.js';

/**
 * PGlite in a worker thread, behind an object shaped like PGlite where Drizzle's PGlite
 * driver uses it (`query`, `exec`, `transaction`). PGlite is one session that runs one
 * statement at a time, so statements queue here, on this thread, and go to the worker one
 * by one: this thread always knows which statement runs and which wait, so it can time
 * them out, cancel them and report the queue for load shedding.
 *
 * A transaction holds the worker from BEGIN to COMMIT: statements from outside it wait
 * until it ends. A statement that runs past the statement timeout, or whose request's time
 * budget ran out, is failed with Postgres's query_canceled code; on a database kept in a
 * directory the worker is terminated and reopened on the same files (Postgres recovers as
 * after a crash; PGlite ignores statement_timeout, having no timer signals), which frees it
 * at once. An in-memory database would be lost that way, so there the statement is failed
 * but runs to its end before the next one starts (in-memory databases serve tests).
 */
export interface PgliteClientOptions {
  /** A directory, or undefined / memory:// for an in-memory database. */
  dataDir?: string;
  /** A tarball of {@link PgliteWorkerClient.dumpDataDir} the first start loads instead of creating an empty cluster. */
  loadDataDir?: string;
  /** Longest a statement may run, in milliseconds; 0 = no limit. */
  statementTimeoutMs: number;
  /** Called with each statement sent to the worker (statement counting). */
  onStatement?: () => void;
}

type Operation =
  | { op: 'query'; sql: string; params: unknown[]; rowMode: 'array' | 'object'; textTypes: number[]; prepared?: boolean }
  | { op: 'exec'; sql: string }
  | { op: 'dump'; file: string }
  | { op: 'close' };
type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: WorkerError };
type WorkerError = { name: string; message: string; fields: Record<string, unknown> };

interface Job {
  operation: Operation;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  queuedAt: number;
  untrack?: () => void;
}

/** A transaction's hold on the worker; its statements queue on it, not on the client. */
interface Hold {
  jobs: Job[];
  /** The worker generation its BEGIN ran in: a restarted worker has lost the transaction. */
  generation: number;
}

export class PgliteWorkerClient {
  private worker!: Worker;
  private generation = 0;
  private readonly queue: Array<Job | { acquire: Hold; resolve(): void; queuedAt: number }> = [];
  private hold: Hold | null = null;
  private running: { job: Job; id: number; timer?: NodeJS.Timeout } | null = null;
  private nextId = 0;
  private starting: Promise<void> | null = null;
  private closed = false;
  private unbounded = 0;
  private readonly persistent: boolean;

  private constructor(private readonly options: PgliteClientOptions) {
    this.persistent = !!options.dataDir && !options.dataDir.startsWith('memory://');
  }

  static async open(options: PgliteClientOptions): Promise<PgliteWorkerClient> {
    const client = new PgliteWorkerClient(options);
    await client.start();
    return client;
  }

  /** `scope`: the operation's statement scope, which may cancel the statement (see {@link scopedTo}). */
  query<T>(sql: string, params: unknown[] = [], options: QueryOptions = {}, scope: StatementScope | null = null): Promise<Results<T>> {
    return this.enqueue(
      { op: 'query', sql, params, rowMode: options.rowMode ?? 'object', textTypes: textTypesOf(options) },
      null,
      scope,
    ) as Promise<Results<T>>;
  }

  /**
   * A statement of the read path: its text, a statement shape's, is parsed and planned once
   * as a named prepared statement of the worker's session, then only bound and executed.
   */
  preparedQuery<T>(sql: string, params: unknown[], scope: StatementScope | null = null): Promise<Results<T>> {
    return this.enqueue({ op: 'query', sql, params, rowMode: 'object', textTypes: [], prepared: true }, null, scope) as Promise<Results<T>>;
  }

  exec(sql: string, scope: StatementScope | null = null): Promise<Results[]> {
    return this.enqueue({ op: 'exec', sql }, null, scope) as Promise<Results[]>;
  }

  /** This client as Drizzle uses it, with every statement registered in `scope` (an operation's). */
  scopedTo(scope: StatementScope): Pick<PgliteWorkerClient, 'query' | 'exec' | 'transaction'> {
    return {
      query: (sql, params, options) => this.query(sql, params, options, scope),
      exec: (sql) => this.exec(sql, scope),
      transaction: (callback) => this.transaction(callback, scope),
    };
  }

  /** Runs `callback` in a transaction that holds the worker until it commits or rolls back. */
  async transaction<T>(callback: (tx: PgliteWorkerTransaction) => Promise<T>, scope: StatementScope | null = null): Promise<T> {
    scope?.throwIfCancelled();
    const hold: Hold = { jobs: [], generation: -1 };
    await new Promise<void>((resolve) => {
      this.queue.push({ acquire: hold, resolve, queuedAt: performance.now() });
      this.pump();
    });
    let done = false;
    const run = (operation: Operation, internal = false) => {
      if (done) return Promise.reject(new Error('The transaction has ended'));
      if (hold.generation !== this.generation) {
        return Promise.reject(Object.assign(new Error('The transaction was lost when the embedded database restarted'), { code: '40003' }));
      }
      return this.enqueue(operation, hold, internal ? null : scope);
    };
    try {
      hold.generation = this.generation;
      await run({ op: 'exec', sql: 'BEGIN' }, true);
      const tx: PgliteWorkerTransaction = {
        query: (sql, params = [], options = {}) =>
          run({ op: 'query', sql, params, rowMode: options.rowMode ?? 'object', textTypes: textTypesOf(options) }) as never,
        exec: (sql) => run({ op: 'exec', sql }) as never,
        rollback: async () => {
          await run({ op: 'exec', sql: 'ROLLBACK' }, true);
          done = true;
        },
        get closed() {
          return done;
        },
      };
      const result = await callback(tx);
      if (!done) await run({ op: 'exec', sql: 'COMMIT' }, true);
      return result;
    } catch (error) {
      if (!done && hold.generation === this.generation) await run({ op: 'exec', sql: 'ROLLBACK' }, true).catch(() => {});
      throw error;
    } finally {
      done = true;
      if (this.hold === hold) this.hold = null;
      this.pump();
    }
  }

  /** Runs `work` (migrations) with no statement timeout. */
  async withoutStatementTimeout<T>(work: () => Promise<T>): Promise<T> {
    this.unbounded++;
    try {
      return await work();
    } finally {
      this.unbounded--;
    }
  }

  /**
   * Writes the database's files to `file` as a tarball (PGlite's dumpDataDir), for `loadDataDir`.
   * Not compressed: a start from it then skips the gunzip, a third of its CPU (about 0.2 s of
   * 0.65; the test suites start a database from one many times a run).
   */
  async dumpDataDir(file: string): Promise<void> {
    await this.enqueue({ op: 'dump', file }, null, null);
  }

  /** Statements waiting for the worker, and the longest wait. */
  load(now = performance.now()): DatabaseLoad {
    const waiting = this.queue.length + (this.hold?.jobs.length ?? 0);
    const heads = [this.queue[0]?.queuedAt, this.hold?.jobs[0]?.queuedAt].filter((t): t is number => t !== undefined);
    return { capacity: 1, busy: this.running || this.hold ? 1 : 0, waiting, oldestWaitMs: heads.length ? now - Math.min(...heads) : 0 };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.enqueue({ op: 'close' }, null, null).catch(() => {});
    this.closed = true;
    await this.worker.terminate();
  }

  /** `scope`: the statement's operation's, null for the client's own statements (BEGIN, COMMIT, dumps) and those of no operation. */
  private enqueue(operation: Operation, hold: Hold | null, scope: StatementScope | null): Promise<unknown> {
    if (this.closed) return Promise.reject(Object.assign(new Error('The embedded database is closed'), { code: 'CONNECTION_ENDED' }));
    scope?.throwIfCancelled();
    return new Promise((resolve, reject) => {
      const fail = scope
        ? (error: unknown) => {
            scope.claim(error);
            reject(error);
          }
        : reject;
      const job: Job = { operation, resolve, reject: fail, queuedAt: performance.now() };
      if (scope) job.untrack = scope.track(() => this.cancel(job, 'The statement was cancelled: its request ran out of time'));
      (hold ? hold.jobs : this.queue).push(job);
      this.pump();
    });
  }

  /** Sends the next statement when the worker is free: the holding transaction's, else the queue's. */
  private pump(): void {
    while (!this.running && !this.starting) {
      if (this.hold) {
        const job = this.hold.jobs.shift();
        if (!job) return;
        this.send(job);
        return;
      }
      const next = this.queue.shift();
      if (!next) return;
      if ('acquire' in next) {
        this.hold = next.acquire;
        next.resolve();
        continue;
      }
      this.send(next);
      return;
    }
  }

  private send(job: Job): void {
    const id = ++this.nextId;
    const running: { job: Job; id: number; timer?: NodeJS.Timeout } = { job, id };
    const { statementTimeoutMs } = this.options;
    if (statementTimeoutMs > 0 && !this.unbounded && (job.operation.op === 'query' || job.operation.op === 'exec')) {
      running.timer = setTimeout(
        () => this.cancel(job, `The statement was cancelled: it ran past the statement timeout of ${statementTimeoutMs} ms`),
        statementTimeoutMs,
      );
    }
    this.running = running;
    this.worker.ref();
    if (job.operation.op === 'query' || job.operation.op === 'exec') this.options.onStatement?.();
    this.worker.postMessage({ id, ...job.operation });
  }

  private settle(job: Job): void {
    job.untrack?.();
    if (this.running?.job === job) {
      clearTimeout(this.running.timer);
      this.running = null;
    }
  }

  private onReply(reply: Reply): void {
    const running = this.running;
    if (!running || running.id !== reply.id) return; // the reply of a statement already failed (in memory)
    this.settle(running.job);
    if (reply.ok) running.job.resolve(reply.result);
    else running.job.reject(Object.assign(new Error(reply.error.message), reply.error.fields, { name: reply.error.name }));
    this.pump();
    // Idle, the thread keeps nothing alive: a script that forgets close() still exits.
    if (!this.running) this.worker.unref();
  }

  /** Fails a statement that waits, or frees the worker from one that runs (see the class comment). */
  private cancel(job: Job, reason: string): void {
    const queue = this.hold?.jobs.includes(job) ? this.hold.jobs : this.queue;
    const index = queue.indexOf(job);
    if (index >= 0) {
      queue.splice(index, 1);
      job.untrack?.();
      job.reject(statementCancelledError(reason));
      return;
    }
    if (this.running?.job !== job) return;
    clearTimeout(this.running.timer);
    job.untrack?.();
    job.reject(statementCancelledError(reason));
    if (!this.persistent) {
      // Keep `running` so nothing else starts before the worker answers; its reply is dropped.
      this.running = { ...this.running, job: { ...job, resolve: () => {}, reject: () => {} } };
      return;
    }
    this.running = null;
    // What the holding transaction had queued belongs to a session that is about to end.
    if (this.hold) {
      for (const queued of this.hold.jobs.splice(0)) {
        queued.untrack?.();
        queued.reject(Object.assign(new Error('The transaction was lost when the embedded database restarted'), { code: '40003' }));
      }
    }
    const worker = this.worker;
    worker.removeAllListeners();
    void worker.terminate();
    this.start().catch((error: unknown) => this.fail(error));
  }

  /** Fails everything waiting and refuses later statements: the worker is gone for good. */
  private fail(error: unknown): void {
    this.closed = true;
    const lost = Object.assign(new Error(`The embedded database stopped: ${(error as Error)?.message ?? error}`), {
      code: 'CONNECTION_CLOSED',
    });
    if (this.running) this.running.job.reject(lost);
    this.running = null;
    for (const job of [...this.queue.splice(0), ...(this.hold?.jobs.splice(0) ?? [])]) if (!('acquire' in job)) job.reject(lost);
  }

  private start(): Promise<void> {
    this.generation++;
    // Only the first start loads the tarball: a restart reopens the files the first one wrote.
    const loadDataDir = this.generation === 1 ? this.options.loadDataDir : undefined;
    const worker = new Worker(new URL('./pglite-worker.mjs', import.meta.url), {
      workerData: { dataDir: this.options.dataDir, loadDataDir },
    });
    this.worker = worker;
    this.starting = new Promise<void>((resolve, reject) => {
      worker.once('message', (message: { type: 'ready' } | { type: 'failed'; error: WorkerError }) => {
        if (message.type === 'failed') return reject(Object.assign(new Error(message.error.message), message.error.fields));
        worker.on('message', (reply: Reply) => this.onReply(reply));
        worker.unref();
        resolve();
      });
      worker.on('error', reject);
    }).finally(() => {
      this.starting = null;
      this.pump();
    });
    worker.on('exit', (code) => {
      // The worker died on its own (out of memory, a WebAssembly abort): what ran is lost.
      if (this.worker === worker && !this.closed) this.fail(new Error(`its thread exited with code ${code}`));
    });
    return this.starting;
  }
}

/** The transaction object {@link PgliteWorkerClient.transaction} hands its callback, shaped like PGlite's. */
export interface PgliteWorkerTransaction {
  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(sql: string): Promise<Results[]>;
  rollback(): Promise<void>;
  readonly closed: boolean;
}

const textTypeCache = new WeakMap<object, number[]>();

/**
 * The type oids whose `parsers` entry keeps the column's text. Functions cannot cross to
 * the worker, and keeping the text is the only use Drizzle makes of parsers, so that is the
 * only kind taken; any other parser is refused rather than silently ignored.
 */
function textTypesOf(options: QueryOptions): number[] {
  const { parsers } = options;
  if (options.serializers || options.blob || options.paramTypes)
    throw new Error('PGlite in a worker takes no serializers, blob or paramTypes');
  if (!parsers) return [];
  let oids = textTypeCache.get(parsers);
  if (!oids) {
    oids = Object.entries(parsers).map(([oid, parse]) => {
      const probe = 'text';
      if (parse(probe, Number(oid)) !== probe) throw new Error(`PGlite in a worker only keeps text; the parser of type ${oid} does more`);
      return Number(oid);
    });
    textTypeCache.set(parsers, oids);
  }
  return oids;
}
