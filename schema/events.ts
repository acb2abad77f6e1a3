import { sql } from 'drizzle-orm';
import { bigint, bigserial, index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { at } from './columns.js';

/**
 * The event outbox: every domain event, written in the transaction of the change that
 * causes it, numbered in commit order (writers hold a transaction-level advisory lock from
 * their insert to their commit, so a higher `seq` never becomes visible before a lower one).
 * NOTIFY only wakes the replicas; each reads the rows after the last `seq` it dispatched, so
 * a lost connection or a restart loses nothing. Old rows are pruned.
 */
export const eventOutbox = pgTable(
  'event_outbox',
  {
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    /**
     * The event (events.ts toMessages) as JSON, with the rows its change committed, read by
     * the statement that appends it, in the change's transaction (event-outbox.ts).
     */
    payload: text('payload').notNull(),
    createdAt: at('created_at')
      .notNull()
      .default(sql`now()`),
  },
  (t) => [index('event_outbox_created_idx').on(t.createdAt)],
);

export type EventOutboxRow = typeof eventOutbox.$inferSelect;

/**
 * The topics of each outbox row (a pool, a user, a transaction...; event-hub.ts topicsOf),
 * written by the same statement: a subscription resuming after a sequence reads its own
 * topic's rows by this key, never the rest of the log. Pruned with the outbox.
 */
export const eventTopics = pgTable(
  'event_topics',
  {
    topic: text('topic').notNull(),
    seq: bigint('seq', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.topic, t.seq] }), index('event_topics_seq_idx').on(t.seq)],
);
