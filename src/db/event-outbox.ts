import { sql } from 'drizzle-orm';
import { chainSubmissions, notifications, pools } from '../../schema/index.js';
import { tableReader } from '../read/columns.js';
import { EVENT_CHANNEL } from './event-channel.js';
import { arrayLiteral, type Db, resultRows } from './client.js';

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
 * The rows a change committed, which an event carries: a pool (by id), notifications (by
 * id), a chain submission (by signature). The append statement reads them, after every
 * write of the change (it is the transaction's last) and under the change's row locks, so
 * what it reads is what commits.
 */
export interface CommittedRows {
  kind: 'pool' | 'notifications' | 'submission';
  ids: readonly string[];
}

/** One outbox row to append: the event as JSON (an object), its topics, and the committed rows to add to it. */
export interface OutboxAppend {
  message: string;
  topics: readonly string[];
  rows: CommittedRows | null;
}

/**
 * The payload of a message with its committed rows added under `pool`, `rows` or
 * `submission` (JSON of the table reader's columns: int8 as text, so exact), as SQL over
 * the unnested message `m`. Built once: the statement's text is the same for every append.
 */
let payloadSql: string | null = null;
function payloadExpression(): string {
  if (payloadSql !== null) return payloadSql;
  const pool = tableReader(pools);
  const notification = tableReader(notifications);
  const submission = tableReader(chainSubmissions);
  const ids = `string_to_array(m.ids, ',')`;
  const add = (key: string, json: string) => `left(m.message, -1) || ',"${key}":' || coalesce((${json}), 'null') || '}'`;
  return (payloadSql = `CASE m.kind
      WHEN 'pool' THEN ${add('pool', `SELECT row_to_json(r)::text FROM (SELECT ${pool.columns('t')} FROM pools t WHERE t.id = (${ids})[1]::uuid) r`)}
      WHEN 'notifications' THEN ${add('rows', `SELECT json_agg(r)::text FROM (SELECT ${notification.columns('t')} FROM notifications t WHERE t.id = ANY(${ids}::uuid[])) r`)}
      WHEN 'submission' THEN ${add('submission', `SELECT row_to_json(r)::text FROM (SELECT ${submission.columns('t')} FROM chain_submissions t WHERE t.signature = (${ids})[1]) r`)}
      ELSE m.message END`);
}

/**
 * Appends `messages` to the outbox in the transaction of `db` (or in one of their own when
 * `db` is not in one), each with the rows its change committed and its topics, and wakes
 * every replica's listener when it commits: one statement. NOTIFY carries the last sequence
 * only as a hint; listeners read the rows. Sequences are drawn after the lock, in order.
 */
export async function appendToOutbox(db: Db, messages: readonly OutboxAppend[]): Promise<void> {
  if (messages.length === 0) return;
  await db.execute(sql`
    WITH locked AS (SELECT pg_advisory_xact_lock(${OUTBOX_LOCK_KEY.toString()}::bigint)),
    m AS (
      SELECT nextval(pg_get_serial_sequence('event_outbox', 'seq')) AS seq, m.*
      FROM (
        SELECT m.* FROM locked, unnest(${arrayLiteral(messages.map((m) => m.message))}::text[], ${arrayLiteral(
          messages.map((m) => m.rows?.kind ?? ''),
        )}::text[], ${arrayLiteral(messages.map((m) => m.rows?.ids.join(',') ?? ''))}::text[], ${arrayLiteral(
          messages.map((m) => m.topics.join(' ')),
        )}::text[]) WITH ORDINALITY AS m(message, kind, ids, topics, n)
        ORDER BY m.n
      ) m
    ),
    appended AS (
      INSERT INTO event_outbox (seq, payload) SELECT m.seq, ${sql.raw(payloadExpression())} FROM m ORDER BY m.seq RETURNING seq
    ),
    topics AS (
      INSERT INTO event_topics (topic, seq) SELECT topic, m.seq FROM m, unnest(string_to_array(m.topics, ' ')) AS topic
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

/**
 * The rows of any of `topics` in (after, until], oldest first, at most `limit`: one
 * statement, by the topic index, whatever else the outbox holds.
 */
export async function readTopics(
  db: Db,
  topics: readonly string[],
  after: number,
  until: number,
  limit: number,
): Promise<Array<{ seq: number; payload: string }>> {
  const rows = resultRows<{ seq: string | number; payload: string }>(
    await db.execute(sql`
      SELECT o.seq, o.payload FROM event_topics t JOIN event_outbox o ON o.seq = t.seq
      WHERE t.topic = ANY(${arrayLiteral(topics)}::text[]) AND t.seq > ${after} AND t.seq <= ${until}
      ORDER BY t.seq LIMIT ${limit}`),
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
 * replica at once. The rows' topics go with them, in the same statement.
 */
export async function pruneOutbox(db: Db, retentionMs: number): Promise<number> {
  const [row] = resultRows<{ pruned: string | number }>(
    await db.execute(sql`
      WITH cut AS (
        SELECT (SELECT max(seq) FROM event_outbox WHERE created_at < now() - make_interval(secs => ${retentionMs / 1000})) AS old,
          (SELECT max(seq) FROM event_outbox) AS newest
      ),
      topics AS (DELETE FROM event_topics WHERE seq <= (SELECT old FROM cut) AND seq < (SELECT newest FROM cut)),
      pruned AS (DELETE FROM event_outbox WHERE seq <= (SELECT old FROM cut) AND seq < (SELECT newest FROM cut) RETURNING 1)
      SELECT count(*) AS pruned FROM pruned`),
  );
  return Number(row?.pruned ?? 0);
}

/** The oldest and newest sequences the outbox holds (null for an empty one): one statement. */
export async function outboxBounds(db: Db): Promise<{ oldest: number; newest: number } | null> {
  const [row] = resultRows<{ oldest: string | number | null; newest: string | number | null }>(
    await db.execute(sql`SELECT min(seq) AS oldest, max(seq) AS newest FROM event_outbox`),
  );
  return row?.oldest == null || row.newest == null ? null : { oldest: Number(row.oldest), newest: Number(row.newest) };
}
