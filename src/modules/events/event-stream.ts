import { AppError } from '../../errors.js';
import type { EventScope } from './event-hub.js';

/**
 * One item of a subscription's source stream: the root value of its result, and the scope
 * of the event it came from, whose loaders and time the result is resolved with.
 */
export class ScopedEvent<T> {
  constructor(
    readonly root: T,
    readonly scope: EventScope,
  ) {}
}

/** Items a subscriber may fall behind by before it is dropped instead of holding memory. */
export const MAX_PENDING_EVENTS = 256;

export interface StreamSource<T> {
  /** Starts following; `push` queues an item, `end` completes the stream after the queued ones; returns what stops following. */
  follow(push: (item: ScopedEvent<T>) => void, end: () => void): () => void;
  /** Items to yield first (a snapshot, a replay of what was missed), before live ones. */
  initial?: () => Promise<Array<ScopedEvent<T>>>;
}

/** A consumer the stream hands its items to as they come (see {@link EventStream.consume}). */
export interface StreamSink<T> {
  item(item: ScopedEvent<T>): void;
  /** The stream completed (after its last item), or was stopped by `return`. */
  end(): void;
  fail(error: unknown): void;
}

export interface EventStream<T> extends AsyncIterableIterator<ScopedEvent<T>> {
  /**
   * Hands every item, from now on, to `sink` as it is pushed (the initial items first),
   * instead of queueing it for `next`: the subscription transport delivers an event to all
   * its subscribers in one synchronous pass, without a promise per subscriber. The sink
   * then decides when a subscriber is too slow. Call it instead of `next`, once.
   */
  consume(sink: StreamSink<T>): void;
  /** Stops following (the subscriber went). */
  return(): Promise<IteratorResult<ScopedEvent<T>>>;
}

export function isEventStream(value: unknown): value is EventStream<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as Partial<EventStream<unknown>>).consume === 'function';
}

/**
 * A subscription's source stream: an async iterator over items pushed by the event hub
 * (or, with `consume`, a push stream). Following starts before `initial` is read, so
 * nothing published in between is lost; the stream stops following when the subscriber
 * goes (`return`), and the iterator fails with SUBSCRIBER_TOO_SLOW when it falls more
 * than {@link MAX_PENDING_EVENTS} behind.
 */
export function eventStream<T>(source: StreamSource<T>, onClose?: () => void): EventStream<T> {
  const queue: Array<ScopedEvent<T>> = [];
  let waiting: ((result: IteratorResult<ScopedEvent<T>>) => void) | null = null;
  let failWaiting: ((error: unknown) => void) | null = null;
  let failure: unknown = null;
  let done = false;
  let ending = false;
  /** The consumer, once its initial items have been handed over: live items go straight to it. */
  let sink: StreamSink<T> | null = null;

  const push = (item: ScopedEvent<T>) => {
    if (done) return;
    if (sink) sink.item(item);
    else if (waiting) {
      const resolve = waiting;
      waiting = failWaiting = null;
      resolve({ value: item, done: false });
    } else if (queue.length >= MAX_PENDING_EVENTS) {
      failure = new AppError('SUBSCRIBER_TOO_SLOW', 'The subscriber fell too far behind; subscribe again to resume');
      close();
    } else {
      queue.push(item);
    }
  };
  const end = () => {
    ending = true;
    if (sink || (waiting && queue.length === 0)) close();
  };
  const unfollow = source.follow(push, end);
  let initial: Promise<void> | null = source.initial
    ? source.initial().then(
        (items) => {
          queue.unshift(...items);
        },
        (error: unknown) => {
          failure = error;
        },
      )
    : null;

  function close(): void {
    if (done) return;
    done = true;
    unfollow();
    onClose?.();
    if (sink) {
      if (failure) sink.fail(failure);
      else sink.end();
    }
    if (failWaiting && failure) failWaiting(failure);
    else waiting?.({ value: undefined, done: true });
    waiting = failWaiting = null;
  }

  const iterator: EventStream<T> = {
    consume(consumer) {
      void (async () => {
        if (initial) {
          await initial;
          initial = null;
        }
        // Closed meanwhile (returned, or too far behind while the initial items were read).
        if (done) return failure ? consumer.fail(failure) : consumer.end();
        if (failure) {
          sink = consumer;
          return close();
        }
        for (const item of queue.splice(0)) consumer.item(item);
        sink = consumer;
        if (ending) close();
      })();
    },
    async next() {
      if (initial) {
        await initial;
        initial = null;
      }
      if (failure) {
        const error = failure;
        close();
        throw error;
      }
      const item = queue.shift();
      if (item) return { value: item, done: false };
      if (ending) close();
      if (done) return { value: undefined, done: true };
      return new Promise((resolve, reject) => {
        waiting = resolve;
        failWaiting = reject;
      });
    },
    async return() {
      close();
      return { value: undefined, done: true };
    },
    async throw(error) {
      close();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
