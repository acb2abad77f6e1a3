import { currentStatementScope, runInScope, StatementScope } from '../db/statement-scope.js';

/**
 * Runs `work` as the work of request `requestId`: everything it starts, however late it
 * settles, belongs to that request. The request's async context is its statement scope
 * (db/statement-scope.ts), so a request carries one context, not two.
 */
export function withinRequest<T>(requestId: string, work: () => T): T {
  return runInScope(new StatementScope(requestId), work);
}

/**
 * The id of the request whose work is running; null outside any. Node emits
 * `unhandledRejection` in the async context the promise was created in, so there it names
 * the request that created the rejected promise.
 */
export function currentRequestId(): string | null {
  return currentStatementScope()?.requestId ?? null;
}
