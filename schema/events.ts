import { sql } from 'drizzle-orm';
import { bigserial, index, pgTable, text } from 'drizzle-orm/pg-core';
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
    /** The event as its channel message (events.ts toMessages): JSON, ids only. */
    payload: text('payload').notNull(),
    createdAt: at('created_at')
      .notNull()
      .default(sql`now()`),
  },
  (t) => [index('event_outbox_created_idx').on(t.createdAt)],
);

export type EventOutboxRow = typeof eventOutbox.$inferSelect;
