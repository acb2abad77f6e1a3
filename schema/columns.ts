import { customType, timestamp, uuid } from 'drizzle-orm/pg-core';

/** Primary key shared by every table: a random UUID assigned by the database. */
export const id = () => uuid('id').primaryKey().defaultRandom();

/**
 * created_at / updated_at, kept by every table of the interface. Millisecond precision,
 * the precision of a JS Date, so keyset cursors built from a row round-trip exactly.
 */
export const timestamps = () => ({
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date', precision: 3 })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date()),
});

/** A nullable timestamp with time zone. */
export const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date', precision: 3 });

/** Postgres full-text vector; only ever written by a generated column. */
export const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
