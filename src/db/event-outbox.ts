import { sql } from 'drizzle-orm';
import { EVENT_CHANNEL } from './event-channel.js';
import { affectedRows, type Db, resultRows } from './client.js';

/**
 * The event outbox's SQL (schema/events.ts). Commit order, not insert order, is what a
 * reader needs: a reader that has seen sequence 11 must never later find a 10 that was
 * still uncommitted. A plain sequence gives no such promise (10 may commit after 11). Here
 * every writer first takes one transaction-level advisory lock, so outbox writers run their
 * insert-to-commit stretch one at a time: a sequence is drawn only once the previous writer
 * has committed (its rows visible) or rolled back. The price is that stretch, serialised;
 * writers append at the end of their transaction, so it is short. The alternative, reading
 * only below the oldest running transaction's id (pg_snapshot_xmin), needs no lock but makes
 * every reader wait for the longest transaction in the database, events or not.
 */

/** Advisory lock key of outbox writers ('pggr' prefix, as the singleton locks). */
const OUTBOX_LOCK_KEY = 0x70677200_00000010n;

/**
 * Appends `messages` to the outbox in the transaction of `db` (or in one of their own when
 * `db` is not in one) and wakes every replica's listener when it commits: one statement.
 * NOTIFY carries the last sequence only as a hint; listeners read the rows.
 */
export async function appendToOutbox(db: Db, messages: readonly string[]): Promise<void> {
  if (messages.length === 0) return;
  const array = `{${messages.map((m) => `"${m.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`;
  await db.execute(sql`
    WITH locked AS (SELECT pg_advisory_xact_lock(${OUTBOX_LOCK_KEY.toString()}::bigint)),
    appended AS (
      INSERT INTO event_outbox (payload)
      SELECT message FROM locked, unnest(${array}::text[]) WITH ORDINALITY AS m(message, n) ORDER BY n
      RETURNING seq
    )
    SELECT pg_notify(${EVENT_CHANNEL}, max(seq)::text) FROM appended`);
}

/** Rows after `afterSeq`, oldest first, at most `limit`. */
export async function readOutbox(db: Db, afterSeq: number, limit: number): Promise<Array<{ seq: number; payload: string }>> {
  const rows = resultRows<{ seq: string | number; payload: string }>(
    await db.execute(sql`SELECT seq, payload FROM event_outbox WHERE seq > ${afterSeq} ORDER BY seq LIMIT ${limit}`),
  );
  return rows.map((row) => ({ seq: Number(row.seq), payload: row.payload }));
}

/** The newest sequence written (0 for an empty outbox): where a new listener starts. */
export async function outboxTail(db: Db): Promise<number> {
  const [row] = resultRows<{ seq: string | number }>(await db.execute(sql`SELECT coalesce(max(seq), 0) AS seq FROM event_outbox`));
  return Number(row?.seq ?? 0);
}

/**
 * Deletes the rows older than `retentionMs`, a prefix of the sequence (every row up to the
 * newest old one, so the rows kept always run on from where the deleted ones stopped), and
 * never the newest row: the outbox then always knows the last sequence written, and a cursor
 * at it stays valid however long nothing happens. Returns how many. Safe to run on every
 * replica at once.
 */
export async function pruneOutbox(db: Db, retentionMs: number): Promise<number> {
  return affectedRows(
    await db.execute(sql`
      DELETE FROM event_outbox
      WHERE seq <= (SELECT max(seq) FROM event_outbox WHERE created_at < now() - make_interval(secs => ${retentionMs / 1000}))
        AND seq < (SELECT max(seq) FROM event_outbox)`),
  );
}

/** The oldest and newest sequences the outbox holds (null for an empty one): one statement. */
export async function outboxBounds(db: Db): Promise<{ oldest: number; newest: number } | null> {
  const [row] = resultRows<{ oldest: string | number | null; newest: string | number | null }>(
    await db.execute(sql`SELECT min(seq) AS oldest, max(seq) AS newest FROM event_outbox`),
  );
  return row?.oldest == null || row.newest == null ? null : { oldest: Number(row.oldest), newest: Number(row.newest) };
}
