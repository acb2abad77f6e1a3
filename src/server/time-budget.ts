import { runInStatementScope } from '../db/statement-scope.js';

/** What {@link withinBudget} resolves to when the budget ran out first. */
export const TIMED_OUT: unique symbol = Symbol('timed out');

/**
 * `work`'s result, or {@link TIMED_OUT} once `budgetMs` have passed without one. Given as a
 * function, the work runs in a statement scope of its own, and running out of budget
 * cancels the database statements it has running (Postgres cancels them on the server; on
 * PGlite the worker is freed) and fails the ones it starts later; graphql-js itself cannot
 * abandon an execution, so its late result or failure is dropped. Given as a promise
 * (work already started), it is only no longer waited for.
 */
export async function withinBudget<T>(budgetMs: number, work: Promise<T> | (() => Promise<T>)): Promise<T | typeof TIMED_OUT> {
  const { result, cancel } = startWork(work);
  if (budgetMs <= 0) return result;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(resolve, budgetMs, TIMED_OUT);
  });
  try {
    const outcome = await Promise.race([result, deadline]);
    if (outcome === TIMED_OUT) {
      result.catch(() => {});
      cancel(`The statement was cancelled: its request ran past its time budget of ${budgetMs} ms`);
    }
    return outcome;
  } finally {
    clearTimeout(timer);
  }
}

function startWork<T>(work: Promise<T> | (() => Promise<T>)): { result: Promise<T>; cancel(reason: string): void } {
  if (typeof work !== 'function') return { result: work, cancel: () => {} };
  const { scope, result } = runInStatementScope(work);
  return { result, cancel: (reason) => scope.cancel(reason) };
}
