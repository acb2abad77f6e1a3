import type { Db } from '../../db/client.js';
import { isUuid } from '../common/ids.js';

/**
 * What changed, as the services announce it, written to the event outbox with the change.
 * Events carry ids only: every receiver (on any replica) reads the current rows itself, so
 * an event can never leak data to a subscriber who may not see it, and it fits a
 * Postgres NOTIFY payload (at most 8000 bytes).
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

/** Notification pairs per message: 80 pairs of two UUIDs stay well under NOTIFY's 8000 bytes. */
const PAIRS_PER_MESSAGE = 80;

/** Splits events so that each encodes to a message within the channel's size limit. */
export function toMessages(events: readonly DomainEvent[]): string[] {
  const messages: string[] = [];
  for (const event of events) {
    if (event.type === 'notificationsCreated') {
      for (let i = 0; i < event.notifications.length; i += PAIRS_PER_MESSAGE) {
        const chunk = event.notifications.slice(i, i + PAIRS_PER_MESSAGE);
        messages.push(JSON.stringify({ type: event.type, notifications: chunk.map((n) => [n.userId, n.id]) }));
      }
    } else {
      messages.push(JSON.stringify(event));
    }
  }
  return messages;
}

const isId = (value: unknown): value is string => typeof value === 'string' && isUuid(value);

/**
 * Reads one message back into an event; null for anything malformed (another program may
 * share the channel, and a bad message must never take the listener down).
 */
export function fromMessage(message: string): DomainEvent | null {
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
      return { type: 'notificationsCreated', notifications: pairs.map(([userId, id]: string[]) => ({ userId: userId!, id: id! })) };
    }
    case 'poolCreatedNotifications':
    case 'poolCreated':
    case 'poolUpdated':
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
        ? { type: 'transactionStatus', signature: parsed.signature, status: parsed.status as SubmissionEventStatus }
        : null;
    default:
      return null;
  }
}
