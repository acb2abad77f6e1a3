import type { StatementScope } from '../db/statement-scope.js';

/** What {@link TimeBudget.run} resolves to when the budget ran out first. */
export const TIMED_OUT: unique symbol = Symbol('timed out');

/**
 * How long a request past its budget waits for its cancelled statements to end before it
 * answers (a cancel is a message to the server; the statement ends when the server acts on
 * it, usually within milliseconds). Bounded, for a server that no longer answers at all.
 */
const CANCEL_WAIT_MS = 1000;

/**
 * An operation under its budget, in the list of those running, in order of arrival: linked
 * through its own fields, and unlinked (its links cleared) when it ends or runs out.
 */
class Running {
  previous: Running | null = null;
  next: Running | null = null;
  linked = true;

  constructor(
    readonly deadline: number,
    /** What running out does: settles the operation's promise (TIMED_OUT) once its statements have ended. */
    readonly expire: () => void,
  ) {}
}

/**
 * The time budget of a server's operations: {@link TimeBudget.run} gives `work`'s result,
 * or {@link TIMED_OUT} once `budgetMs` have passed without one. Running out of budget
 * cancels the database statements the work's `scope` has running (Postgres cancels them on
 * the server; on PGlite the worker is freed) and refuses the ones it starts later, from the
 * deadline on even when the timer runs late on a busy event loop; the answer waits (briefly)
 * for the cancelled statements to end, so that no statement of an answered request is left
 * running. graphql-js itself cannot abandon an execution, so its late result or failure is
 * dropped.
 *
 * One timer serves every operation in flight, armed for the earliest deadline: every
 * operation has the same budget, so the first of them in order of arrival is the first to
 * run out. A timer of its own per operation cost `{ __typename }` about 8 % of its rate.
 * An operation that ends leaves the timer armed: a later one's deadline is later, so the
 * timer fires before it and is armed again for what then runs, or rests when nothing does.
 * Cleared at every end and armed at every start, it cost a busy server as many timer-list
 * insertions as requests (2.5 % of `{ __typename }`'s CPU), where now it fires once a budget.
 * It never keeps the process alive (unref): only the work it times out does.
 *
 * The operations in flight are a list linked through themselves, not a Set: a Set that
 * lives as long as the server is in V8's old generation, and when it grows or compacts its
 * table (every few dozen additions) the table it leaves keeps its entries, which young-
 * generation collections then take for live until the next full collection. Each entry
 * holds its operation's promise, and so its whole request: about a third of the requests
 * were copied and promoted that way (NODE: 8 KB promoted a request against 3 KB).
 */
export class TimeBudget {
  /** The operations running, oldest first. */
  private first: Running | null = null;
  private last: Running | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly reason: string;

  constructor(readonly budgetMs: number) {
    this.reason = `The statement was cancelled: its request ran past its time budget of ${budgetMs} ms`;
  }

  run<T>(work: Promise<T>, scope?: StatementScope): Promise<T | typeof TIMED_OUT> {
    if (this.budgetMs <= 0) return work;
    const deadline = performance.now() + this.budgetMs;
    scope?.expireAt(deadline, this.reason);
    return new Promise<T | typeof TIMED_OUT>((resolve, reject) => {
      const running = new Running(deadline, () => {
        // The work's late result or failure settles nothing now (nor while its statements end): it is dropped.
        if (!scope) return resolve(TIMED_OUT);
        scope.cancel(this.reason);
        void scope.ended(CANCEL_WAIT_MS).then(() => resolve(TIMED_OUT));
      });
      if (this.last) {
        this.last.next = running;
        running.previous = this.last;
      } else this.first = running;
      this.last = running;
      // Armed, it fires by an earlier deadline than this one; unarmed, nothing else runs.
      this.timer ??= this.arm(this.budgetMs);
      work.then(
        (value) => {
          if (this.ended(running)) resolve(value);
        },
        (error: unknown) => {
          if (this.ended(running)) reject(error);
        },
      );
    });
  }

  /** False if the operation's time had run out already. */
  private ended(running: Running): boolean {
    if (!running.linked) return false;
    this.unlink(running);
    return true;
  }

  private unlink(running: Running): void {
    const { previous, next } = running;
    if (previous) previous.next = next;
    else this.first = next;
    if (next) next.previous = previous;
    else this.last = previous;
    running.previous = running.next = null;
    running.linked = false;
  }

  /** Ends the operations whose time is up, then waits for the next deadline (none: the timer rests). */
  private readonly expire = (): void => {
    this.timer = null;
    const now = performance.now();
    for (let running = this.first; running; running = this.first) {
      if (running.deadline > now) {
        this.timer = this.arm(running.deadline - now);
        return;
      }
      this.unlink(running);
      running.expire();
    }
  };

  private arm(ms: number): NodeJS.Timeout {
    return setTimeout(this.expire, Math.ceil(ms)).unref();
  }
}
