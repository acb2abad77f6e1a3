import {
  createSourceEventStream,
  execute,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLError,
  type OperationDefinitionNode,
} from 'graphql';
import type { WebSocket } from 'ws';
import type { Viewer } from '../../modules/auth/viewer.js';
import { AppError } from '../../errors.js';
import {
  type EventStream,
  isEventStream,
  MAX_PENDING_EVENTS,
  type ScopedEvent,
  type StreamSink,
} from '../../modules/events/event-stream.js';
import { eventContext, forgetReads, type GraphQLContext } from '../context.js';

/** Where a subscription's results go: its socket, under its id; `format` formats errors as the pipeline does. */
export interface SubscriptionTarget {
  socket: WebSocket;
  id: string;
  /** The subscription's request id, which its formatted errors carry. */
  requestId: string;
  format(errors: readonly unknown[], requestId: string): unknown[];
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
 * subscriber. `waiting` holds the subscriptions to tell, synchronously, when it is made.
 */
interface SharedResult {
  result: ExecutionResult | null;
  payload: string | null;
  /**
   * The `next` message of `payload` as bytes, per subscription id: made for the first
   * subscriber with that id and written as is to every other (clients mostly number their
   * operations alike, so a group of thousands needs one or a few), instead of a string
   * concatenated and encoded per socket. Only ever shared within the group: the same viewer.
   */
  frames: Map<string, Buffer> | null;
  waiting: SocketSubscription[];
}

/** Text messages sent as bytes already encoded (ws sends a Buffer as is, with the text opcode). */
const TEXT = { binary: false } as const;

/**
 * A subscription's events, each executed by graphql-js with a context of its own: the subscription's viewer and transport, with the loaders and time of
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
  operation: OperationDefinitionNode,
  target: SubscriptionTarget,
  onCount?: (delta: 1 | -1) => void,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const base = args.contextValue as GraphQLContext;
  const source = await createSourceEventStream(args);
  // The set-up's reads are done: what they made is not held for the subscription's life.
  forgetReads(base);
  if (!isEventStream(source)) {
    if (Symbol.asyncIterator in source) throw new Error('a subscription source must be an event stream');
    return source as ExecutionResult;
  }
  const subscription = new SocketSubscription(source, args, operation, target, onCount);
  source.consume(subscription);
  return subscription;
}

/**
 * One subscription on one socket: the sink of its event stream, and the iterator graphql-ws
 * follows. A class, not closures: a subscription lives for hours, and ten thousand of them
 * should each hold a few fields, not a dozen functions and their scopes.
 */
class SocketSubscription implements StreamSink<unknown>, AsyncIterableIterator<ExecutionResult> {
  /** The operation, variables and what the viewer may see: subscribers with the same key share results. */
  private readonly sharedKey: string;
  private readonly framePrefix: string;
  /**
   * Results made but not yet written, in event order (one event's result may be made
   * before an earlier one's): usually empty, or the result of the event being delivered.
   */
  private readonly pending: SharedResult[] = [];
  private ending = false;
  private open = true;
  private readonly ended: Promise<IteratorResult<ExecutionResult>>;
  private settle!: (outcome: { error: unknown } | null) => void;

  constructor(
    private readonly source: EventStream<unknown>,
    private readonly args: ExecutionArgs,
    operation: OperationDefinitionNode,
    private readonly target: SubscriptionTarget,
    private readonly onCount: ((delta: 1 | -1) => void) | undefined,
  ) {
    // The operation is one per document Apollo parsed (its document store keeps one per text): its identity stands for
    // the text and operation name (a text parsed again, once the store has dropped it, makes a group of its own).
    const { viewer } = args.contextValue as GraphQLContext;
    this.sharedKey = `${viewerKey(viewer)}\u0000${operationIdOf(operation)}\u0000${JSON.stringify(args.variableValues ?? {})}`;
    this.framePrefix = nextFramePrefix(target.id);
    this.ended = new Promise((resolve, reject) => {
      this.settle = (outcome) => (outcome ? reject(outcome.error) : resolve({ value: undefined, done: true }));
    });
    this.ended.catch(() => {});
    onCount?.(1);
  }

  // The stream's sink.

  item(item: ScopedEvent<unknown>): void {
    if (!this.open) return;
    const shared = this.sharedResultOf(item);
    if (this.pending.length === 0 && shared.result) return this.write(shared);
    if (this.pending.length >= MAX_PENDING_EVENTS)
      return this.fail(new AppError('SUBSCRIBER_TOO_SLOW', 'The subscriber fell too far behind; subscribe again to resume'));
    this.pending.push(shared);
    if (!shared.result) shared.waiting.push(this);
  }

  end(): void {
    this.ending = true;
    this.flush();
  }

  fail(error: unknown): void {
    if (this.finish({ error })) void this.source.return();
  }

  /** Writes the results made so far, in order; completes once the stream has ended and all are written. */
  flush(): void {
    while (this.pending.length > 0 && this.pending[0]!.result) this.write(this.pending.shift()!);
    if (this.ending && this.pending.length === 0) this.finish(null);
  }

  // The iterator graphql-ws follows: it ends with the subscription.

  next(): Promise<IteratorResult<ExecutionResult>> {
    return this.ended;
  }

  async return(): Promise<IteratorResult<ExecutionResult>> {
    this.finish(null);
    await this.source.return();
    return { value: undefined, done: true };
  }

  async throw(error: unknown): Promise<IteratorResult<ExecutionResult>> {
    this.finish(null);
    await this.source.return();
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private finish(outcome: { error: unknown } | null): boolean {
    if (!this.open) return false;
    this.open = false;
    this.onCount?.(-1);
    this.settle(outcome);
    return true;
  }

  private write(shared: SharedResult): void {
    const { result, payload } = shared;
    const { socket, id } = this.target;
    if (!this.open || socket.readyState !== socket.OPEN) return;
    try {
      if (payload !== null) socket.send(this.frameOf(shared, payload), TEXT);
      else
        socket.send(
          JSON.stringify({
            id,
            type: 'next',
            payload: { ...result, errors: this.target.format(result!.errors ?? [], this.target.requestId) },
          }),
        );
    } catch (error) {
      // One socket's failure ends its subscription only: the pass goes on to the others.
      return this.fail(error);
    }
    if (socket.bufferedAmount > SEND_BUFFER_LIMIT)
      this.fail(new AppError('SUBSCRIBER_TOO_SLOW', 'The subscriber fell too far behind; subscribe again to resume'));
  }

  /** The `next` message of a shared payload under this subscription's id, encoded once per id and result. */
  private frameOf(shared: SharedResult, payload: string): Buffer {
    const frames = (shared.frames ??= new Map());
    let frame = frames.get(this.target.id);
    if (!frame) frames.set(this.target.id, (frame = Buffer.from(`${this.framePrefix}${payload}}`)));
    return frame;
  }

  /** The shared result of `item` for this subscription's group: made by the first of them to get the item, found by the others. */
  private sharedResultOf(item: ScopedEvent<unknown>): SharedResult {
    let groups = resultsByEvent.get(item.scope);
    if (!groups) resultsByEvent.set(item.scope, (groups = new Map()));
    let results = groups.get(this.sharedKey);
    if (!results) groups.set(this.sharedKey, (results = new Map()));
    // The root is part of the key too: one event can yield different roots to different subscribers.
    // Two lookups of strings made once (a subscription's key, the root's id), not a key made per subscriber.
    const key = rootKey(item.root);
    let shared = results.get(key);
    if (!shared) {
      const made: SharedResult = (shared = { result: null, payload: null, frames: null, waiting: [] });
      results.set(key, made);
      const context = eventContext(this.args.contextValue as GraphQLContext, item.scope.loaders, item.scope.now);
      void Promise.resolve()
        .then(() => execute({ ...this.args, rootValue: item.root, contextValue: context }))
        .catch((error: unknown): ExecutionResult => ({ errors: [error as GraphQLError] }))
        .then((executed) => {
          // Where the subscriber resumes from (afterSequence) if it has to reconnect.
          const result = { ...executed, extensions: { ...executed.extensions, eventSequence: String(item.scope.sequence) } };
          made.payload = result.errors ? null : JSON.stringify(result);
          made.result = result;
          for (const subscription of made.waiting.splice(0)) subscription.flush();
        });
    }
    return shared;
  }
}

/** Results of the events being delivered now, per event; dropped with the event. */
const resultsByEvent = new WeakMap<object, Map<string, Map<string, SharedResult>>>();

/**
 * What a viewer may see: their user (their own private data) and role (an ADMIN sees
 * everyone's). Results are shared only between subscribers whose key is the same.
 */
function viewerKey(viewer: Viewer | null): string {
  return viewer ? `${viewer.userId}:${viewer.role}` : 'anonymous';
}

const operationIds = new WeakMap<OperationDefinitionNode, number>();
let nextOperationId = 0;
function operationIdOf(operation: OperationDefinitionNode): number {
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

/** The start of a graphql-ws `next` frame for operation `id`, as graphql-ws writes it; the payload and `}` follow. */
export const nextFramePrefix = (id: string) => `{"id":${JSON.stringify(id)},"type":"next","payload":`;
