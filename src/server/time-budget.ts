import type { StatementScope } from '../db/statement-scope.js';

/** What {@link withinBudget} resolves to when the budget ran out first. */
export const TIMED_OUT: unique symbol = Symbol('timed out');

/**
 * How long a request past its budget waits for its cancelled statements to end before it
 * answers (a cancel is a message to the server; the statement ends when the server acts on
 * it, usually within milliseconds). Bounded, for a server that no longer answers at all.
 */
const CANCEL_WAIT_MS = 1000;

/**
 * `work`'s result, or {@link TIMED_OUT} once `budgetMs` have passed without one. Running out
 * of budget cancels the database statements the work's `scope` has running (Postgres
 * cancels them on the server; on PGlite the worker is freed) and refuses the ones it starts
 * later, from the deadline on even when the timer runs late on a busy event loop; the
 * answer waits (briefly) for the cancelled statements to end, so that no statement of an
 * answered request is left running. graphql-js itself cannot abandon an execution, so its
 * late result or failure is dropped.
 *
 * Every request passes here: one promise settled by whichever comes first, the work or
 * the timer, rather than an async function racing a promise of the timer.
 */
export function withinBudget<T>(budgetMs: number, work: Promise<T>, scope?: StatementScope): Promise<T | typeof TIMED_OUT> {
  if (budgetMs <= 0) return work;
  const reason = `The statement was cancelled: its request ran past its time budget of ${budgetMs} ms`;
  scope?.expireAt(performance.now() + budgetMs, reason);
  return new Promise<T | typeof TIMED_OUT>((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      // The work's late result or failure settles nothing now (nor while its statements end): it is dropped.
      late = true;
      if (!scope) return resolve(TIMED_OUT);
      scope.cancel(reason);
      void scope.ended(CANCEL_WAIT_MS).then(() => resolve(TIMED_OUT));
    }, budgetMs);
    work.then(
      (value) => {
        clearTimeout(timer);
        if (!late) resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (!late) reject(error);
      },
    );
  });
}
