import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The SQLSTATE of a statement cancelled for taking too long (Postgres `query_canceled`);
 * both backends fail a statement stopped by the statement timeout or by its request's time
 * budget with it, so one check ({@link isStatementCancelled}) maps either to OPERATION_TIMEOUT.
 */
export const QUERY_CANCELED = '57014';

/** An error as Postgres gives a cancelled statement. */
export function statementCancelledError(message: string): Error & { code: string } {
  return Object.assign(new Error(message), { code: QUERY_CANCELED });
}

/** True when an error (or one it wraps) is a statement cancelled by a timeout or a time budget. */
export function isStatementCancelled(error: unknown): boolean {
  return hasSqlState(error, QUERY_CANCELED);
}

/** True when an error, or one it wraps (drivers and drizzle wrap them), carries the SQLSTATE `state`. */
export function hasSqlState(error: unknown, state: string): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === state) return true;
  }
  return false;
}

/**
 * The statements one piece of work (an HTTP request) has running, so that work can be
 * cancelled as a whole when its time budget runs out. It names the request it belongs to
 * (`requestId`), so the one async context a request's work carries serves logs too: each
 * AsyncLocalStorage in use costs every promise created a copy of its store. The database drivers register every
 * statement they start in the scope current in async context ({@link currentStatementScope});
 * once cancelled, a scope refuses new statements, so resolvers still running stop at their
 * next one instead of spending the database on an answer nobody waits for.
 */
export class StatementScope {
  private readonly running = new Set<() => void>();
  private cancelledBecause: string | null = null;

  constructor(readonly requestId: string | null = null) {}

  get cancelled(): boolean {
    return this.cancelledBecause !== null;
  }

  /** Registers a running statement's cancel function; returns its unregistration. */
  track(cancel: () => void): () => void {
    if (this.cancelledBecause !== null) {
      cancel();
      return () => {};
    }
    this.running.add(cancel);
    return () => this.running.delete(cancel);
  }

  /** Throws the cancellation error if the scope was cancelled (before a statement starts). */
  throwIfCancelled(): void {
    if (this.cancelledBecause !== null) throw statementCancelledError(this.cancelledBecause);
  }

  /** Cancels every running statement and refuses later ones; returns how many were running. */
  cancel(reason: string): number {
    this.cancelledBecause ??= reason;
    const running = [...this.running];
    this.running.clear();
    for (const cancel of running) cancel();
    return running.length;
  }
}

const storage = new AsyncLocalStorage<StatementScope>();

/** Runs `work` with `scope` current: everything it starts, however late it settles, runs in it. */
export function runInScope<T>(scope: StatementScope, work: () => T): T {
  return storage.run(scope, work);
}

/** Runs `work` with a fresh statement scope (of the current request) current; returns the scope and the work's promise. */
export function runInStatementScope<T>(work: () => Promise<T>): { scope: StatementScope; result: Promise<T> } {
  const scope = new StatementScope(storage.getStore()?.requestId ?? null);
  return { scope, result: storage.run(scope, work) };
}

/** The scope of the work running now, if any. */
export function currentStatementScope(): StatementScope | undefined {
  return storage.getStore();
}
