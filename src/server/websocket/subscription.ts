import { createSourceEventStream, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { WebSocket } from 'ws';
import type { Viewer } from '../../modules/auth/viewer.js';
import { AppError } from '../../errors.js';
import { isEventStream, MAX_PENDING_EVENTS, type ScopedEvent } from '../../modules/events/event-stream.js';
import { createLoaders, type Loaders } from '../../modules/loaders.js';
import type { GraphQLContext } from '../context.js';
import type { PreparedOperation } from '../pipeline/documents.js';

/** Where a subscription's results go: its socket, under its id, with its errors formatted for it. */
export interface SubscriptionTarget {
  socket: WebSocket;
  id: string;
  /** Formats a result's errors as the pipeline does (they carry the subscription's request id). */
  formatErrors(errors: readonly unknown[]): unknown[];
}

/**
 * Bytes a socket may have queued (written but not yet taken by the kernel): past them its
 * client has stopped reading, and the subscription is dropped with SUBSCRIBER_TOO_SLOW
 * rather than grow the server's memory by every event.
 */
export const SEND_BUFFER_LIMIT = 1 << 20;

/**
 * One event's result for a group of subscribers: executed once, and serialized once when
 * it has no errors (then every subscriber of the group gets the same bytes with only its
 * id spliced in). A result with errors is not shared as bytes: its errors are formatted per
 * subscriber. `ready` holds the subscriptions waiting for it, told synchronously when it is made.
 */
interface SharedResult {
  result: ExecutionResult | null;
  payload: string | null;
  ready: Array<() => void>;
}

/**
 * A subscription's events, each executed through the operation's compiled path with a
 * context of its own: the subscription's viewer and transport, with the loaders and time of
 * the event the item came from. Loaders thus never serve one event's rows to a later one,
 * and every subscriber of one event shares one batch of reads. Subscribers who would get the
 * same result (same operation, variables, viewer and role, and item) share one execution
 * and one serialization: when it is made, it is written to each of their sockets in one
 * synchronous pass, as a pre-framed `next` message (no promise, no serialization per
 * subscriber). The iterator returned to graphql-ws yields nothing: it ends when the source
 * ends (graphql-ws sends `complete`) and throws what ends it otherwise (graphql-ws sends
 * `error`), so completion and errors keep graphql-ws's protocol.
 */
export async function scopedSubscribe(
  args: ExecutionArgs,
  operation: PreparedOperation,
  target: SubscriptionTarget,
  onCount?: (delta: 1 | -1) => void,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const base = args.contextValue as GraphQLContext;
  const source = await createSourceEventStream({ ...args, contextValue: subscribeContext(base) });
  if (!isEventStream(source)) {
    if (Symbol.asyncIterator in source) throw new Error('a subscription source must be an event stream');
    return source as ExecutionResult;
  }
  const variables = (args.variableValues ?? undefined) as Record<string, unknown> | undefined;
  const { socket, id } = target;
  // The operation object is one per cached document and operation name: its identity stands for the text.
  const sharedKey = `${viewerKey(base.viewer)}\u0000${operationIdOf(operation)}\u0000${JSON.stringify(variables ?? {})}`;
  const framePrefix = `{"id":${JSON.stringify(id)},"type":"next","payload":`;

  let open = true;
  onCount?.(1);
  let finish!: (outcome: { error: unknown } | null) => void;
  const ended = new Promise<IteratorResult<ExecutionResult>>((resolve, reject) => {
    finish = (outcome) => {
      if (!open) return;
      open = false;
      onCount?.(-1);
      if (outcome) reject(outcome.error);
      else resolve({ value: undefined, done: true });
    };
  });
  ended.catch(() => {});
  const fail = (error: unknown) => {
    finish({ error });
    void source.return?.();
  };

  // Results made but not yet written, in event order (one event's result may be made
  // before an earlier one's): usually empty, the result of the event being delivered.
  const pending: SharedResult[] = [];
  let ending = false;
  const write = ({ result, payload }: SharedResult) => {
    if (!open || socket.readyState !== socket.OPEN) return;
    try {
      if (payload !== null) socket.send(`${framePrefix}${payload}}`);
      else socket.send(JSON.stringify({ id, type: 'next', payload: { ...result, errors: target.formatErrors(result!.errors ?? []) } }));
    } catch (error) {
      // One socket's failure ends its subscription only: the pass goes on to the others.
      return fail(error);
    }
    if (socket.bufferedAmount > SEND_BUFFER_LIMIT) fail(new AppError('SUBSCRIBER_TOO_SLOW', 'The subscriber fell too far behind; subscribe again to resume'));
  };
  const flush = () => {
    while (pending.length > 0 && pending[0]!.result) write(pending.shift()!);
    if (ending && pending.length === 0) finish(null);
  };
  source.consume({
    item(item) {
      if (!open) return;
      const shared = sharedResultOf(item, sharedKey, () => ({ ...base, loaders: item.scope.loaders, now: item.scope.now }), operation, variables);
      if (pending.length === 0 && shared.result) return write(shared);
      if (pending.length >= MAX_PENDING_EVENTS) return fail(new AppError('SUBSCRIBER_TOO_SLOW', 'The subscriber fell too far behind; subscribe again to resume'));
      pending.push(shared);
      if (!shared.result) shared.ready.push(flush);
    },
    end() {
      ending = true;
      flush();
    },
    fail: (error) => finish({ error }),
  });

  const iterator: AsyncIterableIterator<ExecutionResult> = {
    next: () => ended,
    async return() {
      finish(null);
      await source.return?.();
      return { value: undefined, done: true };
    },
    async throw(error: unknown) {
      finish(null);
      await source.return?.();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/** The shared result of `item` for the subscribers of `sharedKey`: made by the first of them to get the item, found by the others. */
function sharedResultOf(
  item: ScopedEvent<unknown>,
  sharedKey: string,
  contextOf: () => GraphQLContext,
  operation: PreparedOperation,
  variables: Record<string, unknown> | undefined,
): SharedResult {
  let results = resultsByEvent.get(item.scope);
  if (!results) resultsByEvent.set(item.scope, (results = new Map()));
  // The root is part of the key too: one event can yield different roots to different subscribers.
  const key = `${sharedKey}\u0000${rootKey(item.root)}`;
  let shared = results.get(key);
  if (!shared) {
    const made: SharedResult = (shared = { result: null, payload: null, ready: [] });
    results.set(key, made);
    void Promise.resolve()
      .then(() => operation.run(item.root, contextOf(), variables))
      .catch((error: unknown) => ({ errors: [error] }) as unknown as ExecutionResult)
      .then((result) => {
        made.payload = result.errors ? null : JSON.stringify(result);
        made.result = result;
        for (const ready of made.ready.splice(0)) ready();
      });
  }
  return shared;
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
const resultsByEvent = new WeakMap<object, Map<string, SharedResult>>();

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

