import { type Database, openDatabase } from '../../src/db/client.js';

/** A statement a service sent, as the driver got it. */
export interface RecordedStatement {
  text: string;
  params: readonly unknown[];
}

/**
 * The database at `url` on one connection, recording every statement read through it, with
 * the planner discouraged from the plan kinds named (`enable_seqscan`, `enable_sort`, ...):
 * for a test asking whether an index CAN serve a statement, by EXPLAIN of the very statement
 * a service sends. A small test database is where a sequential scan and a sort are rightly
 * cheaper; the settings only add cost, so where no index can deliver, the planner still
 * scans and sorts. One connection, so the session's settings hold for every statement.
 */
export async function recordingDatabase(
  url: string,
  discouraged: readonly string[],
): Promise<{ database: Database; statements: RecordedStatement[]; close(): Promise<void> }> {
  const opened = await openDatabase({ kind: 'postgres', url, maxConnections: 1 });
  await opened.query('ANALYZE', []);
  for (const setting of discouraged) await opened.query(`SET ${setting} = off`, []);
  const statements: RecordedStatement[] = [];
  const database = Object.create(opened, {
    query: {
      value: (text: string, params: readonly unknown[]) => {
        statements.push({ text, params });
        return opened.query(text, params);
      },
    },
  }) as Database;
  return { database, statements, close: () => opened.close() };
}
