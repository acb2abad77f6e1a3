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
 * A statement parameter standing for the signed-in user's id (null signed out). A read's
 * statement text and parameters are made once per operation and shape and kept for all its
 * requests (read/nested-read.ts), whoever asks; what depends on the asker is this marker among
 * the kept parameters, bound by the request's scoped database ({@link StatementScope.bind})
 * when the statement runs. A statement run outside a request's scope fails on it.
 */
export const VIEWER_USER_ID: unique symbol = Symbol('the signed-in user id');

/** A statement parameter standing for the request's clock (its one `now`), bound as {@link VIEWER_USER_ID} is. */
export const REQUEST_NOW: unique symbol = Symbol("the request's now");

/**
 * A check of the request (a signed-in request's session) read by the operation's first read
 * statement: the row it reads and the condition on it (on `g`), numbering their parameters
 * with `param(type)`, the values of those, and the judgment of the row read (undefined where
 * none was found), which throws the request's refusal. See {@link StatementScope.checkWithFirstStatement}.
 */
export interface FirstStatementCheck {
  write(param: (type: string) => string): { row: string; holds: string };
  values: readonly unknown[];
  judge(row: Record<string, unknown> | undefined): Promise<void>;
}

/**
 * The statements one operation has running, so it can be cancelled as a whole when its
 * time budget runs out. The operation's context holds it, and every statement goes
 * through the context's database, a view scoped to it ({@link Database.scopedTo}), which
 * registers the statement here. It is passed explicitly, not found in async context: with
 * an AsyncLocalStorage in use, Node 20 runs a hook at every promise the process creates,
 * about a fifth of a small request's cost. Once cancelled, a scope refuses new statements,
 * so resolvers still running stop at their next one instead of spending the database on an
 * answer nobody waits for. It names its request (`requestId`), which the errors of its
 * statements carry ({@link requestIdOf}), so a failure found later names the request.
 */
export class StatementScope {
  private running: Set<() => void> | null = null;
  private cancelledBecause: string | null = null;
  /** Statements registered and not yet ended (cancelled ones included, until they end). */
  private live = 0;
  private whenIdle: Array<() => void> | null = null;
  /** When (performance.now()) the scope's time runs out, and what a statement refused then is told. */
  private deadline = Infinity;
  private deadlineReason = '';

  /** Statements the operation has started through the scope (a transaction's BEGIN and COMMIT are the client's own, not among them). */
  started = 0;

  /**
   * The operation's answer is estimated large (LARGE_ANSWER_BYTES): its read statements wait
   * their turn behind other large reads (LargeReadQueue). Set by the checks before it runs.
   */
  large = false;

  constructor(
    readonly requestId: string | null = null,
    /** The signed-in user's id (null signed out): what {@link VIEWER_USER_ID} stands for in this operation's statements. */
    readonly viewerUserId: string | null = null,
    /** The request's clock: what {@link REQUEST_NOW} stands for. */
    readonly now: Date | null = null,
  ) {}

  /** A check waiting for the operation's first read statement to carry it. */
  private firstStatementCheck: FirstStatementCheck | null = null;
  /** While the first read statement carries the check and until it is judged: the later read statements wait for it (and fail with it). */
  judgment: Promise<unknown> | null = null;

  /**
   * Folds `check` into the operation's next read statement (db/client.ts, ScopedDatabase):
   * that statement computes its own rows only where the check holds, and answers only once
   * its row is judged; read statements started meanwhile wait for the judgment. Null drops a
   * check not yet carried (a read that fell back confirms its session alone).
   */
  checkWithFirstStatement(check: FirstStatementCheck | null): void {
    this.firstStatementCheck = check;
    this.judgment = null;
  }

  /** The check the next read statement carries (once), or null. */
  takeFirstStatementCheck(): FirstStatementCheck | null {
    const check = this.firstStatementCheck;
    this.firstStatementCheck = null;
    return check;
  }

  /** `params` with this request's values in place of the markers that stand for them ({@link VIEWER_USER_ID}, {@link REQUEST_NOW}). */
  bind(params: readonly unknown[]): readonly unknown[] {
    if (!params.includes(VIEWER_USER_ID) && !params.includes(REQUEST_NOW)) return params;
    return params.map((value) => (value === VIEWER_USER_ID ? this.viewerUserId : value === REQUEST_NOW ? this.now : value));
  }

  get cancelled(): boolean {
    return this.cancelledBecause !== null;
  }

  /**
   * From `at` (a `performance.now()` time) on, the scope is cancelled with `reason` the
   * moment anything asks it, whether or not the timer that cancels it has fired: a busy
   * event loop runs timers late, and a statement must not start after its request's time.
   */
  expireAt(at: number, reason: string): void {
    this.deadline = at;
    this.deadlineReason = reason;
  }

  /** Registers a running statement's cancel function; returns its unregistration, called once the statement has ended. */
  track(cancel: () => void): () => void {
    if (this.cancelledBecause !== null) {
      cancel();
      return () => {};
    }
    const stopWatching = this.watch(cancel);
    this.live++;
    this.started++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      stopWatching();
      if (--this.live === 0 && this.whenIdle) for (const resolve of this.whenIdle.splice(0)) resolve();
    };
  }

  /**
   * Calls `cancel` when the scope is cancelled (at once if it already is), for something the
   * operation waits on before its statement starts: not a statement, so neither counted nor
   * waited for by {@link ended}. Returns its unregistration.
   */
  watch(cancel: () => void): () => void {
    if (this.cancelledBecause !== null) {
      cancel();
      return () => {};
    }
    const running = (this.running ??= new Set());
    running.add(cancel);
    return () => {
      running.delete(cancel);
      // An empty set is not kept: a subscription's scope lives for hours after its last statement.
      if (running.size === 0 && this.running === running) this.running = null;
    };
  }

  /** Throws the cancellation error if the scope was cancelled, or its time is up (before a statement starts). */
  throwIfCancelled(): void {
    if (this.cancelledBecause === null && this.deadline !== Infinity && performance.now() >= this.deadline)
      this.cancel(this.deadlineReason);
    if (this.cancelledBecause !== null) throw statementCancelledError(this.cancelledBecause);
  }

  /** Cancels every running statement and refuses later ones; returns how many were running. */
  cancel(reason: string): number {
    this.cancelledBecause ??= reason;
    const running = [...(this.running ?? [])];
    this.running?.clear();
    for (const cancel of running) cancel();
    return running.length;
  }

  /**
   * Resolves once none of the scope's statements is running any more (cancelled ones have
   * ended on the server, their driver told so), or after `atMostMs`, whichever is first.
   */
  ended(atMostMs: number): Promise<void> {
    if (this.live === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, atMostMs);
      (this.whenIdle ??= []).push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Marks a failure of one of this scope's statements as its request's (see {@link requestIdOf}). */
  claim(error: unknown): void {
    if (this.requestId !== null && error !== null && typeof error === 'object' && !(REQUEST in error))
      Object.defineProperty(error, REQUEST, { value: this.requestId });
  }
}

const REQUEST = Symbol('poolgraph.requestId');

/** The request whose statement failed with `error` (or an error it wraps), if a scope claimed it; else null. */
export function requestIdOf(error: unknown): string | null {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const id = (e as { [REQUEST]?: string })[REQUEST];
    if (id !== undefined) return id;
    // Drivers and Drizzle wrap errors in `cause`, graphql-js in `originalError`.
    e = (e as { cause?: unknown }).cause ?? (e as { originalError?: unknown }).originalError;
  }
  return null;
}
