import { createSourceEventStream, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { WebSocket } from 'ws';
import type { Viewer } from '../../modules/auth/viewer.js';
import { ScopedEvent } from '../../modules/events/event-stream.js';
import { createLoaders, type Loaders } from '../../modules/loaders.js';
import type { GraphQLContext } from '../context.js';
import type { PreparedOperation } from '../pipeline/documents.js';

/** Where a subscription's results go: its socket, under its id. */
export interface SubscriptionTarget {
  socket: WebSocket;
  id: string;
}

/**
 * Bytes a socket may have queued (written but not yet taken by the kernel) before its
 * subscriptions wait for them to drain: a client that stops reading then falls behind
 * its events until SUBSCRIBER_TOO_SLOW drops it, instead of growing the server's memory.
 */
const SEND_BUFFER_LIMIT = 1 << 20;

/**
 * One event's result for a group of subscribers: executed once, and serialized once when
 * it has no errors (then every subscriber of the group gets the same bytes with only its
 * id spliced in). A result with errors is not shared as bytes: its errors are formatted per
 * subscriber (they carry the subscription's request id).
 */
interface SharedResult {
  result: ExecutionResult;
  payload: string | null;
}

/**
 * A subscription's events, each executed through the operation's compiled path with a
 * context of its own: the subscription's viewer and transport, with the loaders and time of
 * the event the item came from. Loaders thus never serve one event's rows to a later one,
 * and every subscriber of one event shares one batch of reads. Subscribers who would get the
 * same result (same operation, variables, viewer and role, and item) share one execution
 * and one serialization, and each gets it written to its socket as a pre-framed `next`
 * message. The iterator returned to graphql-ws thus yields only results with errors (which
 * graphql-ws formats and sends); it ends when the source ends, and throws what the source
 * throws (SUBSCRIBER_TOO_SLOW), so completion and errors keep graphql-ws's protocol.
 */
export async function scopedSubscribe(
  args: ExecutionArgs,
  operation: PreparedOperation,
  target: SubscriptionTarget,
  onCount?: (delta: 1 | -1) => void,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const base = args.contextValue as GraphQLContext;
  const source = await createSourceEventStream({ ...args, contextValue: subscribeContext(base) });
  if (!isAsyncIterable(source)) return source;
  const iterator = source[Symbol.asyncIterator]();
  const variables = (args.variableValues ?? undefined) as Record<string, unknown> | undefined;
  // The operation object is one per cached document and operation name: its identity stands for the text.
  const sharedKey = `${viewerKey(base.viewer)}\u0000${operationIdOf(operation)}\u0000${JSON.stringify(variables ?? {})}`;
  const framePrefix = `{"id":${JSON.stringify(target.id)},"type":"next","payload":`;
  let open = true;
  onCount?.(1);
  const closed = () => {
    if (!open) return;
    open = false;
    onCount?.(-1);
  };
  const sharedResultOf = (item: ScopedEvent<unknown>): Promise<SharedResult> => {
    let results = resultsByEvent.get(item.scope);
    if (!results) resultsByEvent.set(item.scope, (results = new Map()));
    // The root is part of the key too: one event can yield different roots to different subscribers.
    const key = `${sharedKey}\u0000${rootKey(item.root)}`;
    let shared = results.get(key);
    if (!shared) {
      const contextValue: GraphQLContext = { ...base, loaders: item.scope.loaders, now: item.scope.now };
      results.set(key, (shared = Promise.resolve(operation.run(item.root, contextValue, variables)).then((result) => ({ result, payload: result.errors ? null : JSON.stringify(result) }))));
    }
    return shared;
  };
  const mapped: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      for (;;) {
        let step: IteratorResult<unknown>;
        try {
          step = await iterator.next();
        } catch (error) {
          closed();
          throw error;
        }
        if (step.done || !open) {
          closed();
          return { value: undefined, done: true };
        }
        const item = step.value;
        if (!(item instanceof ScopedEvent)) throw new Error('a subscription source yielded an item without its event scope');
        const { result, payload } = await sharedResultOf(item);
        if (payload === null) return { value: result, done: false };
        // Completed (by the client, or the socket closed) while the result was being made: nothing more is sent.
        if (!open || target.socket.readyState !== target.socket.OPEN) continue;
        const frame = `${framePrefix}${payload}}`;
        if (target.socket.bufferedAmount < SEND_BUFFER_LIMIT) target.socket.send(frame);
        else await new Promise<void>((resolve) => target.socket.send(frame, () => resolve()));
      }
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

/**
 * The context the subscription's source is set up with. Its loaders (a source may read
 * once, to check the pool exists, say) are dropped once the set-up is done: a subscription
 * lives for hours, and each event's reads use that event's loaders, so holding a set of
 * loaders (and the rows they cached) per subscription only cost memory.
 */
function subscribeContext(base: GraphQLContext): GraphQLContext {
  let loaders: Loaders | null = null;
  const context = Object.create(base) as GraphQLContext;
  Object.defineProperty(context, 'loaders', {
    get: () => (loaders ??= createLoaders(base.database.db)),
  });
  // After the set-up's reads are done (at the latest once the stream is made), later reads start afresh.
  setImmediate(() => (loaders = null));
  return context;
}

/** Results of the events being delivered now, per event; dropped with the event. */
const resultsByEvent = new WeakMap<object, Map<string, Promise<SharedResult>>>();

/**
 * What a viewer may see: their user (their own private data) and role (an ADMIN sees
 * everyone's). Results are shared only between subscribers whose key is the same.
 */
function viewerKey(viewer: Viewer | null): string {
  return viewer ? `${viewer.userId}:${viewer.role}` : 'anonymous';
}

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
