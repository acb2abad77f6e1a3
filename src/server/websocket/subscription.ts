import { createSourceEventStream, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { ScopedEvent } from '../../modules/events/event-stream.js';
import type { GraphQLContext } from '../context.js';
import type { PreparedOperation } from '../pipeline/documents.js';

/**
 * A subscription's events, each executed through the operation's compiled path with a
 * context of its own: the subscription's viewer and transport, with the loaders and time of
 * the event the item came from. Loaders thus never serve one event's rows to a later one,
 * every subscriber of one event shares one batch of reads, and subscribers whose
 * operation, variables and viewer are the same share one execution.
 */
export async function scopedSubscribe(
  args: ExecutionArgs,
  operation: PreparedOperation,
  onCount?: (delta: 1 | -1) => void,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!isAsyncIterable(source)) return source;
  const iterator = source[Symbol.asyncIterator]();
  const base = args.contextValue as GraphQLContext;
  const variables = (args.variableValues ?? undefined) as Record<string, unknown> | undefined;
  // The operation object is one per cached document and operation name: its identity stands for the text.
  const sharedKey = `${base.viewer?.userId ?? 'anonymous'}\u0000${operationIdOf(operation)}\u0000${JSON.stringify(variables ?? {})}`;
  let open = true;
  onCount?.(1);
  const closed = () => {
    if (!open) return;
    open = false;
    onCount?.(-1);
  };
  const mapped: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      let step: IteratorResult<unknown>;
      try {
        step = await iterator.next();
      } catch (error) {
        closed();
        throw error;
      }
      if (step.done) {
        closed();
        return { value: undefined, done: true };
      }
      const item = step.value;
      if (!(item instanceof ScopedEvent)) throw new Error('a subscription source yielded an item without its event scope');
      let results = resultsByEvent.get(item.scope);
      if (!results) resultsByEvent.set(item.scope, (results = new Map()));
      // Subscribers of one event with the same operation, variables and viewer get the same
      // result: it is executed once for all of them (the root is part of the key too, since
      // one event can yield different roots to different subscribers).
      const key = `${sharedKey}\u0000${rootKey(item.root)}`;
      let result = results.get(key);
      if (!result) {
        const contextValue: GraphQLContext = { ...base, loaders: item.scope.loaders, now: item.scope.now };
        results.set(key, (result = Promise.resolve(operation.run(item.root, contextValue, variables))));
      }
      return { value: await result, done: false };
    },
    async return() {
      closed();
      await iterator.return?.();
      return { value: undefined, done: true };
    },
    async throw(error: unknown) {
      closed();
      await iterator.return?.();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return mapped;
    },
  };
  return mapped;
}

/** Results of the events being delivered now, per event; dropped with the event. */
const resultsByEvent = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();

const operationIds = new WeakMap<PreparedOperation, number>();
let nextOperationId = 0;
function operationIdOf(operation: PreparedOperation): number {
  let id = operationIds.get(operation);
  if (id === undefined) operationIds.set(operation, (id = ++nextOperationId));
  return id;
}

/** Identifies a subscription item's root: an id, a number, or a row (by its id). */
function rootKey(root: unknown): string {
  if (typeof root === 'string' || typeof root === 'number') return String(root);
  if (root && typeof root === 'object') {
    const { id, signature, status } = root as { id?: unknown; signature?: unknown; status?: unknown };
    if (typeof id === 'string') return id;
    if (typeof signature === 'string') return `${signature}:${String(status)}`;
  }
  return Math.random().toString(36); // unknown shape: never shared
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
