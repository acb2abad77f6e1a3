import { AsyncLocalStorage } from 'node:async_hooks';

/** What is known of the request whose work is running: kept across awaits, timers and callbacks it started. */
interface RequestScope {
  requestId: string;
}

const scope = new AsyncLocalStorage<RequestScope>();

/** Runs `work` as the work of request `requestId`: everything it starts, however late it settles, belongs to that request. */
export function withinRequest<T>(requestId: string, work: () => T): T {
  return scope.run({ requestId }, work);
}

/**
 * The id of the request whose work is running; null outside any. Node emits
 * `unhandledRejection` in the async context the promise was created in, so there it names
 * the request that created the rejected promise.
 */
export function currentRequestId(): string | null {
  return scope.getStore()?.requestId ?? null;
}
