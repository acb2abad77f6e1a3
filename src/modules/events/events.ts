import type { ChainSubmissionRow, NotificationRow, PoolRow } from '../../../schema/index.js';
import { chainSubmissions, notifications, pools } from '../../../schema/index.js';
import { tableReader } from '../../read/columns.js';
import type { Db } from '../../db/client.js';
import type { CommittedRows } from '../../db/event-outbox.js';
import { isUuid } from '../common/ids.js';

/**
 * What changed, as the services announce it, written to the event outbox with the change.
 * A service names what changed by id; the outbox write adds the rows the change committed
 * (see {@link CommittedEvent}), read in the change's own transaction, so every receiver on
 * every replica, replays included, shows the change itself and never a later state. What a
 * subscriber may see of those rows is decided as for any read, by the fields it resolves.
 */
export type DomainEvent =
  /** Notification rows were written for these users (pairs of user id and notification id). */
  | { type: 'notificationsCreated'; notifications: Array<{ userId: string; id: string }> }
  /** POOL_CREATED notifications were written, in one statement, for every user who allows them. */
  | { type: 'poolCreatedNotifications'; poolId: string }
  /** Some of the user's notifications were marked read (their unread count fell). */
  | { type: 'notificationsRead'; userId: string }
  | { type: 'poolCreated'; poolId: string }
  /** The pool's volume, status or resolution changed. */
  | { type: 'poolUpdated'; poolId: string }
  /** A session ended (signed out, or revoked for refresh-token reuse): its sockets must close. */
  | { type: 'sessionRevoked'; sessionId: string }
  /** An API key was revoked: sockets authenticated with it must close. */
  | { type: 'apiKeyRevoked'; apiKeyId: string }
  /** A chain submission moved to a new state (a failed one leaves no row, hence the status). */
  | { type: 'transactionStatus'; signature: string; status: SubmissionEventStatus };

/**
 * An event as receivers get it: with the rows its change committed, written into the outbox
 * by the statement that appends the event, in the change's transaction. Null where no row
 * was there to carry (a submission a failure removed), or for an event an older version
 * wrote without it.
 */
export type CommittedEvent =
  | Exclude<DomainEvent, { type: 'poolUpdated' | 'poolCreated' | 'notificationsCreated' | 'transactionStatus' }>
  | { type: 'poolUpdated' | 'poolCreated'; poolId: string; pool: PoolRow | null }
  | { type: 'notificationsCreated'; notifications: Array<{ userId: string; id: string }>; rows: NotificationRow[] | null }
  | { type: 'transactionStatus'; signature: string; status: SubmissionEventStatus; submission: ChainSubmissionRow | null };

/** What the gateway itself sees of a submission; finality is read from the chain. */
export type SubmissionEventStatus = 'SUBMITTED' | 'CONFIRMED' | 'FAILED';
const SUBMISSION_EVENT_STATUSES: readonly string[] = ['SUBMITTED', 'CONFIRMED', 'FAILED'];

/** How services announce events; the implementation fans them out to every replica, through the event outbox. */
export interface EventPublisher {
  /**
   * Announces events of a change that has committed (in a transaction of their own); never
   * throws. A crash between the change and this call loses them: prefer {@link publishIn}.
   */
  publish(events: readonly DomainEvent[]): Promise<void>;
  /** Writes the events in `tx`, the transaction of the change itself: announced if and only if it commits. */
  publishIn(tx: Db, events: readonly DomainEvent[]): Promise<void>;
}

/** Notifications per message: a message carries their rows, so a large batch is split. */
const PAIRS_PER_MESSAGE = 80;

/** One outbox row to write: the event (a part of a split one), its message, and which committed rows the append adds to it. */
export interface OutboxMessage {
  event: DomainEvent;
  message: string;
  rows: CommittedRows | null;
}

/** Splits events into outbox messages (a large batch of notifications into several). */
export function toMessages(events: readonly DomainEvent[]): OutboxMessage[] {
  const messages: OutboxMessage[] = [];
  for (const event of events) {
    switch (event.type) {
      case 'notificationsCreated':
        for (let i = 0; i < event.notifications.length; i += PAIRS_PER_MESSAGE) {
          const chunk = event.notifications.slice(i, i + PAIRS_PER_MESSAGE);
          messages.push({
            event: { type: event.type, notifications: chunk },
            message: JSON.stringify({ type: event.type, notifications: chunk.map((n) => [n.userId, n.id]) }),
            rows: { kind: 'notifications', ids: chunk.map((n) => n.id) },
          });
        }
        break;
      case 'poolUpdated':
      case 'poolCreated':
        messages.push({ event, message: JSON.stringify(event), rows: { kind: 'pool', ids: [event.poolId] } });
        break;
      case 'transactionStatus':
        messages.push({ event, message: JSON.stringify(event), rows: { kind: 'submission', ids: [event.signature] } });
        break;
      default:
        messages.push({ event, message: JSON.stringify(event), rows: null });
    }
  }
  return messages;
}

/** A committed row carried in a message (as the outbox wrote it: tableReader's columns, as JSON), typed; null when absent. */
function committedRow<T>(table: typeof pools | typeof notifications | typeof chainSubmissions, value: unknown): T | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? tableReader(table).decode<T>({ ...(value as Record<string, unknown>) })
    : null;
}

const isId = (value: unknown): value is string => typeof value === 'string' && isUuid(value);

/**
 * Reads one message back into an event; null for anything malformed (another program may
 * share the channel, and a bad message must never take the listener down).
 */
export function fromMessage(message: string): CommittedEvent | null {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(message) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  switch (parsed.type) {
    case 'notificationsCreated': {
      const pairs = parsed.notifications;
      if (!Array.isArray(pairs) || !pairs.every((p) => Array.isArray(p) && isId(p[0]) && isId(p[1]))) return null;
      const rows = Array.isArray(parsed.rows)
        ? parsed.rows.map((row) => committedRow<NotificationRow>(notifications, row)).filter((row) => row !== null)
        : null;
      return {
        type: 'notificationsCreated',
        notifications: pairs.map(([userId, id]: string[]) => ({ userId: userId!, id: id! })),
        rows,
      };
    }
    case 'poolCreated':
    case 'poolUpdated': {
      if (!isId(parsed.poolId)) return null;
      const pool = committedRow<PoolRow>(pools, parsed.pool);
      return { type: parsed.type, poolId: parsed.poolId, pool: pool?.id === parsed.poolId ? pool : null };
    }
    case 'poolCreatedNotifications':
      return isId(parsed.poolId) ? { type: parsed.type, poolId: parsed.poolId } : null;
    case 'notificationsRead':
      return isId(parsed.userId) ? { type: 'notificationsRead', userId: parsed.userId } : null;
    case 'sessionRevoked':
      return isId(parsed.sessionId) ? { type: 'sessionRevoked', sessionId: parsed.sessionId } : null;
    case 'apiKeyRevoked':
      return isId(parsed.apiKeyId) ? { type: 'apiKeyRevoked', apiKeyId: parsed.apiKeyId } : null;
    case 'transactionStatus':
      return typeof parsed.signature === 'string' &&
        /^[1-9A-HJ-NP-Za-km-z]{32,100}$/.test(parsed.signature) &&
        typeof parsed.status === 'string' &&
        SUBMISSION_EVENT_STATUSES.includes(parsed.status)
        ? {
            type: 'transactionStatus',
            signature: parsed.signature,
            status: parsed.status as SubmissionEventStatus,
            submission: committedRow<ChainSubmissionRow>(chainSubmissions, parsed.submission),
          }
        : null;
    default:
      return null;
  }
}
