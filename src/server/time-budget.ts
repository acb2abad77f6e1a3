import type { StatementScope } from '../db/statement-scope.js';

/** What {@link withinBudget} resolves to when the budget ran out first. */
export const TIMED_OUT: unique symbol = Symbol('timed out');

/**
 * `work`'s result, or {@link TIMED_OUT} once `budgetMs` have passed without one. Running out
 * of budget cancels the database statements the work's `scope` has running (Postgres
 * cancels them on the server; on PGlite the worker is freed) and fails the ones it starts
 * later; graphql-js itself cannot abandon an execution, so its late result or failure is
 * dropped.
 *
 * Every request passes here: one promise settled by whichever comes first, the work or
 * the timer, rather than an async function racing a promise of the timer.
 */
export function withinBudget<T>(budgetMs: number, work: Promise<T>, scope?: StatementScope): Promise<T | typeof TIMED_OUT> {
  if (budgetMs <= 0) return work;
  return new Promise<T | typeof TIMED_OUT>((resolve, reject) => {
    const timer = setTimeout(() => {
      // The work's late result or failure settles nothing now: it is dropped.
      scope?.cancel(`The statement was cancelled: its request ran past its time budget of ${budgetMs} ms`);
      resolve(TIMED_OUT);
    }, budgetMs);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
