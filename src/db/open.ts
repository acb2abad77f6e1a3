import type { Config } from '../config.js';
import { type Database, openDatabase } from './client.js';

/** Opens the configured database: Postgres when DATABASE_URL is set, embedded PGlite otherwise. */
export function openConfiguredDatabase(config: Pick<Config, 'databaseUrl' | 'pgliteDataDir' | 'statementTimeoutMs'>): Promise<Database> {
  const { statementTimeoutMs } = config;
  return config.databaseUrl
    ? openDatabase({ kind: 'postgres', url: config.databaseUrl, statementTimeoutMs })
    : openDatabase({ kind: 'pglite', dataDir: config.pgliteDataDir, statementTimeoutMs });
}
