import type { Database, Db } from '../../db/client.js';
import { appendToOutbox, type OutboxAppend, outboxBounds, outboxTail, pruneOutbox, readOutbox, readTopics } from '../../db/event-outbox.js';
import { AppError, badInput } from '../../errors.js';
import { createLoaders, type Loaders } from '../loaders.js';
import { type CommittedEvent, type DomainEvent, type EventPublisher, fromMessage, toMessages } from './events.js';

/**
 * What every subscriber of one event shares: loaders created for that event (so the rows
 * all subscribers need are read in one batch, and never reused by a later event), its time,
 * and its outbox sequence (a subscriber resumes after the last one it received).
 */
export interface EventScope {
  loaders: Loaders;
  now: Date;
  /**
   * The event's outbox sequence; for an item a stream reads itself (a snapshot), the
   * sequence the process had dispatched when it began following: the item reflects at
   * least every event up to it.
   */
  sequence: number;
}

/** A scope of its own, for items a stream reads itself (a snapshot, a replay). */
export function newEventScope(db: Db, clock: () => Date, sequence: number): EventScope {
  return { loaders: createLoaders(db), now: clock(), sequence };
}

export type EventListener = (event: CommittedEvent, scope: EventScope) => void;

/** What a listener follows: a user's notifications, one pool, new pools, one transaction, or a credential's end. */
export type Topic =
  { user: string } | { pool: string } | { poolCreated: true } | { transaction: string } | { session: string } | { apiKey: string };

function topicKey(topic: Topic): string {
  if ('user' in topic) return `user:${topic.user}`;
  if ('pool' in topic) return `pool:${topic.pool}`;
  if ('transaction' in topic) return `tx:${topic.transaction}`;
  if ('session' in topic) return `session:${topic.session}`;
  if ('apiKey' in topic) return `apiKey:${topic.apiKey}`;
  return 'poolCreated';
}

/** The topics an event concerns; `allUsers` means every user's topic. */
function topicsOf(event: DomainEvent): string[] | 'allUsers' {
  switch (event.type) {
    case 'notificationsCreated':
      return [...new Set(event.notifications.map((n) => `user:${n.userId}`))];
    case 'poolCreatedNotifications':
      return 'allUsers';
    case 'notificationsRead':
      return [`user:${event.userId}`];
    case 'poolCreated':
      return ['poolCreated'];
    case 'poolUpdated':
      return [`pool:${event.poolId}`];
    case 'transactionStatus':
      return [`tx:${event.signature}`];
    case 'sessionRevoked':
      return [`session:${event.sessionId}`];
    case 'apiKeyRevoked':
      return [`apiKey:${event.apiKeyId}`];
  }
}

/** The outbox rows of `events`, each with the keys of its topics ('allUsers' for every user's). */
function outboxAppends(events: readonly DomainEvent[]): OutboxAppend[] {
  return toMessages(events).map(({ event, message, rows }) => {
    const topics = topicsOf(event);
    return { message, rows, topics: topics === 'allUsers' ? [ALL_USERS] : topics };
  });
}

/** The topic key of events for every user. */
const ALL_USERS = 'allUsers';

/** What {@link EventHub.follow} gives: a way to stop, and the events it missed before following. */
export interface Following {
  stop(): void;
  /**
   * The events of the topic after the resume point that this process had already dispatched
   * when following began, read back from the outbox, oldest first, each with a scope of its
   * own; empty without a resume point. Live events come after them, none twice.
   */
  missed(): Promise<Array<{ event: CommittedEvent; scope: EventScope }>>;
  /** The sequence this process had dispatched when following began. */
  position: number;
}

/**
 * Most events one subscription replays when it resumes. Below the items a subscriber may
 * fall behind by (event-stream.ts), so a replay can never drop it as too slow.
 */
export const MAX_REPLAYED_EVENTS = 200;

/** Outbox rows read per statement while catching up. */
const DRAIN_BATCH = 500;
/** Wait before reading the outbox again after a read failed. */
const DRAIN_RETRY_MS = 500;

/** How long outbox rows are kept for listeners to catch up, and how often the old ones go. */
export interface OutboxRetention {
  retentionMs: number;
  pruneIntervalMs: number;
}
const DEFAULT_RETENTION: OutboxRetention = { retentionMs: 3_600_000, pruneIntervalMs: 60_000 };

/**
 * The process's one end of the event channel: services publish through it (into the
 * outbox, in their change's own transaction where they can), and it hands each event any
 * replica wrote to the local listeners of the event's topics, in outbox order. A NOTIFY
 * only wakes it: it reads the rows after the last sequence it dispatched, so an event
 * sent while its listening connection was down is dispatched when it is back, once.
 * However many subscribers there are, the process holds one database listener.
 */
export class EventHub implements EventPublisher {
  private readonly listeners = new Map<string, Set<EventListener>>();
  private readonly userListeners = new Map<string, Set<EventListener>>();
  private stopListening: (() => Promise<void>) | null = null;
  private lastSeq = 0;
  private draining: Promise<void> | null = null;
  private drainAgain = false;
  private pruneTimer: NodeJS.Timeout | undefined;
  private ownStatements = 0;

  constructor(
    private readonly database: Database,
    private readonly clock: () => Date = () => new Date(),
    /** Told when an announcement could not be written or read (the change itself has committed). */
    private readonly onPublishError: (error: unknown) => void = () => {},
    private readonly retention: OutboxRetention = DEFAULT_RETENTION,
  ) {}

  /** Starts receiving events written from now on; resolves once the process listens. */
  async start(): Promise<void> {
    if (this.stopListening) return;
    this.ownStatements++;
    this.lastSeq = await outboxTail(this.database.db);
    this.stopListening = await this.database.events.listen({
      message: () => this.wake(),
      // What was written while the connection was down is read like the rest: after lastSeq.
      resumed: () => this.wake(),
    });
    this.pruneTimer = setInterval(() => {
      this.ownStatements++;
      pruneOutbox(this.database.db, this.retention.retentionMs).catch(this.onPublishError);
    }, this.retention.pruneIntervalMs);
    this.pruneTimer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.pruneTimer);
    const stop = this.stopListening;
    this.stopListening = null;
    await stop?.();
    await this.draining;
  }

  /** True while events reach this process: it listens, and its listening connection is up. */
  get listening(): boolean {
    return this.stopListening !== null && this.database.events.listening;
  }

  /**
   * Statements the hub sent on its own schedule (reading and pruning the outbox), not on a
   * caller's behalf: when they run depends on when a NOTIFY arrives, so a count of the
   * statements a request cost leaves them out.
   */
  get backgroundStatements(): number {
    return this.ownStatements;
  }

  /** The newest sequence written (by any replica), as the digits subscriptions take in `afterSequence`. */
  async newestSequence(): Promise<string> {
    return String(await outboxTail(this.database.db));
  }

  /** The last outbox sequence dispatched here. */
  get sequence(): number {
    return this.lastSeq;
  }

  /**
   * Announces a change that has committed, in a transaction of its own. Never throws: the
   * change stands whether or not its announcement got out, so the caller's answer must not
   * say otherwise. Prefer {@link publishIn}, which cannot lose the event.
   */
  async publish(events: readonly DomainEvent[]): Promise<void> {
    try {
      await appendToOutbox(this.database.db, outboxAppends(events));
      this.database.events.written();
    } catch (error) {
      this.onPublishError(error);
    }
  }

  /**
   * Writes the events into the transaction `tx` of the change that causes them: they are
   * announced if and only if it commits. Throws like any statement of the transaction.
   */
  async publishIn(tx: Db, events: readonly DomainEvent[]): Promise<void> {
    await appendToOutbox(tx, outboxAppends(events));
    this.database.events.written();
  }

  /** Follows a topic until the returned function is called. */
  on(topic: Topic, listener: EventListener): () => void {
    const key = topicKey(topic);
    const map = 'user' in topic ? this.userListeners : this.listeners;
    let set = map.get(key);
    if (!set) map.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && map.get(key) === set) map.delete(key);
    };
  }

  /**
   * Follows a topic from just after sequence `after` (null: from now): `listener` gets the
   * live events, and {@link Following.missed} those before them that this process had
   * already dispatched. An event at or before `after` is never given (the subscriber had it,
   * perhaps from another replica further ahead). Check `after` first with {@link resumePoint}.
   */
  follow(topic: Topic, after: number | null, listener: EventListener): Following {
    const position = this.lastSeq;
    const stop = this.on(
      topic,
      after === null ? listener : (event, scope) => (scope.sequence > after ? listener(event, scope) : undefined),
    );
    return {
      stop,
      position,
      missed: () => (after === null || after >= position ? Promise.resolve([]) : this.readMissed(topic, after, position)),
    };
  }

  /**
   * Parses a subscription's `afterSequence` argument (null when absent) and checks the outbox
   * can replay what followed it: BAD_USER_INPUT for what is not a sequence written here,
   * EVENTS_EXPIRED for one whose successors were pruned. The retained rows run on without a
   * hole from just after the last pruned one (pruneOutbox), so the check is one statement.
   */
  async resumePoint(argument: string | null | undefined, argumentName = 'afterSequence'): Promise<number | null> {
    if (argument == null) return null;
    if (!/^\d{1,15}$/.test(argument)) throw badInput(argumentName, `${argumentName} must be an event sequence (digits) a result carried`);
    const after = Number(argument);
    const bounds = await outboxBounds(this.database.db);
    if (after > (bounds?.newest ?? 0)) throw badInput(argumentName, `${argumentName} is after the newest event written`);
    // A gap just after `after` may be a sequence number a rolled-back writer drew, not a pruned row: expired errs on the safe side.
    if (bounds && after < bounds.oldest - 1)
      throw new AppError(
        'EVENTS_EXPIRED',
        `The events after sequence ${after} are no longer kept; read the current state and subscribe again`,
        {
          argumentName,
        },
      );
    return after;
  }

  /**
   * The topic's events in (after, until], read back from the outbox by the topic's index
   * (one statement, whatever else it holds); EVENTS_EXPIRED past {@link MAX_REPLAYED_EVENTS}.
   */
  private async readMissed(topic: Topic, after: number, until: number): Promise<Array<{ event: CommittedEvent; scope: EventScope }>> {
    const key = topicKey(topic);
    const rows = await readTopics(this.database.db, 'user' in topic ? [key, ALL_USERS] : [key], after, until, MAX_REPLAYED_EVENTS + 1);
    if (rows.length > MAX_REPLAYED_EVENTS)
      throw new AppError(
        'EVENTS_EXPIRED',
        `More than ${MAX_REPLAYED_EVENTS} events were missed; read the current state and subscribe again`,
        {
          limit: MAX_REPLAYED_EVENTS,
        },
      );
    const missed: Array<{ event: CommittedEvent; scope: EventScope }> = [];
    for (const row of rows) {
      const event = fromMessage(row.payload);
      if (event) missed.push({ event, scope: newEventScope(this.database.db, this.clock, row.seq) });
    }
    return missed;
  }

  /** Reads what was written since the last dispatched row; one reader at a time, again if woken meanwhile. */
  private wake(): void {
    if (this.draining) {
      this.drainAgain = true;
      return;
    }
    this.draining = this.drain().finally(() => {
      this.draining = null;
      if (this.drainAgain) {
        this.drainAgain = false;
        this.wake();
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      for (;;) {
        this.ownStatements++;
        const rows = await readOutbox(this.database.db, this.lastSeq, DRAIN_BATCH);
        for (const row of rows) {
          this.lastSeq = row.seq;
          const event = fromMessage(row.payload);
          if (event) this.dispatch(event, row.seq);
        }
        if (rows.length < DRAIN_BATCH || !this.stopListening) return;
      }
    } catch (error) {
      // Read again from the same place, soon (the database may be back), or at the next wake.
      this.onPublishError(error);
      if (this.stopListening) setTimeout(() => this.wake(), DRAIN_RETRY_MS).unref();
    }
  }

  private dispatch(event: CommittedEvent, sequence: number): void {
    const topics = topicsOf(event);
    const targets: Array<Set<EventListener>> = [];
    if (topics === ALL_USERS) targets.push(...this.userListeners.values());
    else {
      for (const key of topics) {
        const set = (key.startsWith('user:') ? this.userListeners : this.listeners).get(key);
        if (set) targets.push(set);
      }
    }
    if (targets.length === 0) return;
    const scope = newEventScope(this.database.db, this.clock, sequence);
    for (const set of targets) {
      for (const listener of [...set]) listener(event, scope);
    }
  }
}
