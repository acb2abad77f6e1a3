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
  /**
   * Whether `item` tells the subscriber something after `last`, the item handed over before it
   * (in the order handed: the initial ones, then the live ones); one that does not is dropped.
   * Absent: every item is handed over.
   */
  tellsNew?: (item: T, last: T) => boolean;
}

/** A consumer the stream hands its items to as they come (see {@link EventStream.consume}). */
export interface StreamSink<T> {
  item(item: ScopedEvent<T>): void;
  /** The stream completed (after its last item), or was stopped by `return`. */
  end(): void;
  fail(error: unknown): void;
}

/**
 * A subscription's source stream. It is async-iterable only because graphql-js requires a
 * subscription's source to be; it is read with `consume`, never iterated (`next` rejects).
 */
export interface EventStream<T> extends AsyncIterableIterator<ScopedEvent<T>> {
  /**
   * Hands every item, from now on, to `sink` as it is pushed (the initial items and those
   * pushed before this call first): the subscription transport delivers an event to all its
   * subscribers in one synchronous pass, without a promise per subscriber. The sink then
   * decides when a subscriber is too slow. Call it once.
   */
  consume(sink: StreamSink<T>): void;
  /** Stops following (the subscriber went). */
  return(): Promise<IteratorResult<ScopedEvent<T>>>;
}

export function isEventStream(value: unknown): value is EventStream<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as Partial<EventStream<unknown>>).consume === 'function';
}

/**
 * A subscription's source stream of items pushed by the event hub. Following starts before
 * `initial` is read, so nothing published in between is lost: items pushed before the sink
 * takes over are queued, and the stream fails with SUBSCRIBER_TOO_SLOW if more than
 * {@link MAX_PENDING_EVENTS} pile up. It stops following when the subscriber goes (`return`).
 */
export function eventStream<T>(source: StreamSource<T>, onClose?: () => void): EventStream<T> {
  return new HubStream(source, onClose);
}

/**
 * The stream of {@link eventStream}. A class, not closures: a subscription lives for hours, and
 * ten thousand of them should each hold a few fields, not six functions and their scope.
 */
class HubStream<T> implements EventStream<T> {
  /** Items pushed before the sink takes over (the initial ones go first). */
  private readonly queue: Array<ScopedEvent<T>> = [];
  private failure: unknown = null;
  private done = false;
  private ending = false;
  /** The consumer, once its initial items have been handed over: live items go straight to it. */
  private sink: StreamSink<T> | null = null;
  private initial: Promise<void> | null;
  private readonly unfollow: () => void;
  private readonly tellsNew: StreamSource<T>['tellsNew'];
  /** The last item handed over, kept only for `tellsNew`. */
  private told: ScopedEvent<T> | null = null;

  constructor(
    source: StreamSource<T>,
    private readonly onClose?: () => void,
  ) {
    this.tellsNew = source.tellsNew;
    this.unfollow = source.follow(
      (item) => this.push(item),
      () => this.end(),
    );
    this.initial = source.initial
      ? source.initial().then(
          (items) => {
            this.queue.unshift(...items);
          },
          (error: unknown) => {
            this.failure = error;
          },
        )
      : null;
  }

  consume(consumer: StreamSink<T>): void {
    void this.handOver(consumer);
  }

  next(): Promise<IteratorResult<ScopedEvent<T>>> {
    return Promise.reject(new Error('an event stream is read with consume(), not iterated'));
  }

  async return(): Promise<IteratorResult<ScopedEvent<T>>> {
    this.close();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private push(item: ScopedEvent<T>): void {
    if (this.done) return;
    if (this.sink) this.hand(this.sink, item);
    else if (this.queue.length >= MAX_PENDING_EVENTS) {
      this.failure = new AppError('SUBSCRIBER_TOO_SLOW', 'The subscriber fell too far behind; subscribe again to resume');
      this.close();
    } else {
      this.queue.push(item);
    }
  }

  private hand(consumer: StreamSink<T>, item: ScopedEvent<T>): void {
    if (this.tellsNew) {
      if (this.told && !this.tellsNew(item.root, this.told.root)) return;
      this.told = item;
    }
    consumer.item(item);
  }

  private end(): void {
    this.ending = true;
    if (this.sink) this.close();
  }

  /** The initial items, then those queued meanwhile, to `consumer`; from then on it takes each as it is pushed. */
  private async handOver(consumer: StreamSink<T>): Promise<void> {
    if (this.initial) {
      await this.initial;
      this.initial = null;
    }
    // Closed meanwhile (returned, or too far behind while the initial items were read).
    if (this.done) return this.failure ? consumer.fail(this.failure) : consumer.end();
    if (this.failure) {
      this.sink = consumer;
      return this.close();
    }
    for (const item of this.queue.splice(0)) this.hand(consumer, item);
    this.sink = consumer;
    if (this.ending) this.close();
  }

  private close(): void {
    if (this.done) return;
    this.done = true;
    this.unfollow();
    this.onClose?.();
    if (this.sink) {
      if (this.failure) this.sink.fail(this.failure);
      else this.sink.end();
    }
  }
}
