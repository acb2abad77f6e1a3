import type { Config } from '../config.js';
import { type Database, openDatabase } from './client.js';
import { lockDataDir } from './data-dir-lock.js';

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
