import type { Config } from '../config.js';
import { type Database, openDatabase } from './client.js';
import { lockDataDir } from './data-dir-lock.js';

/** A database that could not be opened at start-up, said in one line with what to do (no driver stack). */
export class DatabaseStartError extends Error {}

/** DATABASE_URL as it may be shown: its password replaced. */
function shown(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'DATABASE_URL';
  }
}

/** The start-up failure of the Postgres at `url` in one line: what went wrong, by the driver's code, and what to do. */
export function databaseStartError(error: unknown, url: string): DatabaseStartError {
  let code: unknown;
  for (let e: unknown = error, depth = 0; e && depth < 5 && code === undefined; e = (e as { cause?: unknown }).cause, depth++) {
    code = (e as { code?: unknown }).code;
  }
  let host = 'its host';
  let database = 'its database';
  try {
    const parsed = new URL(url);
    host = `${parsed.hostname}:${parsed.port || 5432}`;
    database = decodeURIComponent(parsed.pathname.slice(1)) || database;
  } catch {}
  const reasons: Record<string, string> = {
    ECONNREFUSED: `nothing accepts connections at ${host} (is Postgres running there?)`,
    ENOTFOUND: `the host of ${host} is not known`,
    EAI_AGAIN: `the host of ${host} could not be looked up`,
    CONNECT_TIMEOUT: `${host} did not answer in time`,
    ETIMEDOUT: `${host} did not answer in time`,
    '28P01': 'the server refused the user or password',
    '28000': 'the server refused the user (pg_hba.conf)',
    '3D000': `the database "${database}" does not exist; create it first (createdb)`,
  };
  const reason = (typeof code === 'string' && reasons[code]) || (error instanceof Error ? error.message : String(error));
  return new DatabaseStartError(
    `The database of DATABASE_URL (${shown(url)}) could not be opened: ${reason}. ` +
      'Correct DATABASE_URL, or unset it to run on the embedded PGlite.',
  );
}

/**
 * Opens the configured database: Postgres when DATABASE_URL is set, embedded PGlite
 * otherwise. PGlite's data directory is locked first (one process at a time) and unlocked
 * when the database closes.
 */
export async function openConfiguredDatabase(
  config: Pick<Config, 'databaseUrl' | 'pgliteDataDir' | 'statementTimeoutMs'>,
): Promise<Database> {
  const { statementTimeoutMs } = config;
  if (config.databaseUrl) return openDatabase({ kind: 'postgres', url: config.databaseUrl, statementTimeoutMs });
  const dataDir = config.pgliteDataDir;
  if (dataDir.includes('://')) return openDatabase({ kind: 'pglite', dataDir, statementTimeoutMs });
  const lock = lockDataDir(dataDir);
  let database: Database;
  try {
    database = await openDatabase({ kind: 'pglite', dataDir, statementTimeoutMs });
  } catch (error) {
    lock.release();
    throw error;
  }
  const close = database.close.bind(database);
  database.close = async () => {
    try {
      await close();
    } finally {
      lock.release();
    }
  };
  return database;
}
