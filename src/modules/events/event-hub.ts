import type { Database, Db } from '../../db/client.js';
import { createLoaders, type Loaders } from '../loaders.js';
import { type DomainEvent, type EventPublisher, fromMessage, toMessages } from './events.js';

/**
 * What every subscriber of one event shares: loaders created for that event (so the rows
 * all subscribers need are read in one batch, and never reused by a later event) and its time.
 */
export interface EventScope {
  loaders: Loaders;
  now: Date;
}

/** A scope of its own, for items a stream reads itself (a snapshot, a replay). */
export function newEventScope(db: Db, clock: () => Date): EventScope {
  return { loaders: createLoaders(db), now: clock() };
}

export type EventListener = (event: DomainEvent, scope: EventScope) => void;

/** What a listener follows: a user's notifications, one pool, new pools, one transaction, or a credential's end. */
export type Topic =
  | { user: string }
  | { pool: string }
  | { poolCreated: true }
  | { transaction: string }
  | { session: string }
  | { apiKey: string };

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

/**
 * The process's one end of the event channel: services publish through it, and it hands
 * each event that any replica published to the local listeners of the event's topics.
 * However many subscribers there are, the process holds one database listener.
 */
export class EventHub implements EventPublisher {
  private readonly listeners = new Map<string, Set<EventListener>>();
  private readonly userListeners = new Map<string, Set<EventListener>>();
  private readonly resumeListeners = new Set<() => void>();
  private stopListening: (() => Promise<void>) | null = null;

  constructor(
    private readonly database: Database,
    private readonly clock: () => Date = () => new Date(),
    /** Told when an announcement could not be sent (the change itself has committed). */
    private readonly onPublishError: (error: unknown) => void = () => {},
  ) {}

  /** Starts receiving events; resolves once the process listens. */
  async start(): Promise<void> {
    if (this.stopListening) return;
    this.stopListening = await this.database.events.listen({
      message: (message) => {
        const event = fromMessage(message);
        if (event) this.dispatch(event);
      },
      resumed: () => {
        for (const listener of this.resumeListeners) listener();
      },
    });
  }

  async stop(): Promise<void> {
    const stop = this.stopListening;
    this.stopListening = null;
    await stop?.();
  }

  /**
   * Announces a committed change. Never throws: the change stands whether or not its
   * announcement got out, so the caller's answer must not say otherwise; subscribers who
   * missed it catch up by resuming (`notifications(resumeAfter:)`) or by reading.
   */
  async publish(events: readonly DomainEvent[]): Promise<void> {
    for (const message of toMessages(events)) {
      try {
        await this.database.events.notify(message);
      } catch (error) {
        this.onPublishError(error);
      }
    }
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

  /** Called after the channel lost its connection and listens again (events may have been missed). */
  onResume(listener: () => void): () => void {
    this.resumeListeners.add(listener);
    return () => this.resumeListeners.delete(listener);
  }

  private dispatch(event: DomainEvent): void {
    const topics = topicsOf(event);
    const targets: Array<Set<EventListener>> = [];
    if (topics === 'allUsers') targets.push(...this.userListeners.values());
    else {
      for (const key of topics) {
        const set = (key.startsWith('user:') ? this.userListeners : this.listeners).get(key);
        if (set) targets.push(set);
      }
    }
    if (targets.length === 0) return;
    const scope = newEventScope(this.database.db, this.clock);
    for (const set of targets) {
      for (const listener of [...set]) listener(event, scope);
    }
  }
}
