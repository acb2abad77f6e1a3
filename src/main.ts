import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { deriveProofSecret, openChain } from './chain/runtime.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { DataDirLockedError } from './db/data-dir-lock.js';
import { type Database, openDatabase } from './db/client.js';
import { onHostChange } from './db/hosts.js';
import { DatabaseStartError, databaseStartError, openConfiguredDatabase } from './db/open.js';
import { ForeignRecordsError, syncCustodyAccounts } from './modules/transactions/custody-sync.js';
import { confirmedSubmissionsUnknownToChain } from './modules/transactions/ledger-audit.js';
import { startReconciler } from './modules/transactions/reconcile.js';
import { createApp } from './server/app.js';
import { assertPortFree } from './server/port-check.js';
import { handleTerminationSignals } from './server/shutdown.js';
import { startWarnings } from './start-warnings.js';

/** An embedded data directory PGlite has not created yet (its initdb is ahead). */
function isNewDataDir(dataDir: string): boolean {
  return !dataDir.includes('://') && !existsSync(join(dataDir, 'PG_VERSION'));
}

/** Runs `work`, saying `label` first and, every 5 s it still runs, that it does. */
async function withProgress<T>(label: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  console.log(`${label}...`);
  const ticker = setInterval(() => console.log(`  ...still working (${Math.round((Date.now() - started) / 1000)} s)`), 5000);
  try {
    return await work();
  } finally {
    clearInterval(ticker);
  }
}

/** The configured database, migrated. A DATABASE_URL that leads nowhere is a setting to correct, said in one line, not the driver's stack. */
async function openAndMigrate(config: Config): Promise<Database> {
  let database: Database | null = null;
  // A first start works for a while before it serves: it says what it is doing, and that it still is.
  const firstStart = !config.databaseUrl && isNewDataDir(config.pgliteDataDir);
  try {
    database = await (firstStart
      ? withProgress(`First start: creating the embedded database in ${config.pgliteDataDir} (PGlite's initdb)`, () =>
          openConfiguredDatabase(config),
        )
      : openConfiguredDatabase(config));
    const opened = database;
    await (firstStart ? withProgress('Applying the database migrations', () => opened.migrate()) : opened.migrate());
    return database;
  } catch (error) {
    if (!config.databaseUrl) throw error;
    await database?.close().catch(() => {});
    throw databaseStartError(error, config.databaseUrl);
  }
}

/** Start-up only: config -> database (migrated, seeded when empty) -> chain (custody accounts, pending submissions) -> server. */
async function main(): Promise<void> {
  const config = loadConfig();
  for (const warning of startWarnings(config)) console.warn(`WARNING: ${warning}`);
  await assertPortFree(config.host, config.port);
  const database = await openAndMigrate(config);
  if (config.seedDemoData) {
    const { isDatabaseEmpty, seedDemoData } = await import('./seed/index.js');
    // One replica seeds; the others wait for it and then find the database no longer empty.
    await database.singleton('seed', async () => {
      if (!(await isDatabaseEmpty(database))) return;
      const summary = await withProgress('The database is empty: seeding demo data (a few seconds, once)', () => seedDemoData(database));
      console.log(`Seeded demo data: ${summary.pools} pools, ${summary.predictions} predictions, ${summary.users} users`);
    });
  }
  const chain = await openChain(config.chain, deriveProofSecret(config.auth.secret));
  const synced = await database.singleton('custodySync', () => syncCustodyAccounts(database, chain.runtime));
  if (synced.pools || synced.streaks)
    console.log(`Custody accounts created or linked: ${synced.pools} pool vaults, ${synced.streaks} streak accumulators`);
  if (!config.chain.rpcUrl) {
    const unknown = await confirmedSubmissionsUnknownToChain(database, chain.runtime);
    if (unknown.length)
      console.warn(
        `${unknown.length} CONFIRMED submissions are unknown to the embedded chain (its ledger was rewritten?): ${unknown.slice(0, 10).join(', ')}`,
      );
  }

  // The standby serves queries only; it needs no migrations (it replays the primary's).
  const readDatabase = config.databaseRead.url
    ? await openDatabase({
        kind: 'postgres',
        url: config.databaseRead.url,
        statementTimeoutMs: config.statementTimeoutMs,
        applicationName: 'poolgraph:reads',
      })
    : null;
  const app = await createApp({ config, database, readDatabase, chain: chain.runtime });
  // Not fatal: a rejection nobody handled is logged with its request and counted. An uncaught
  // exception still ends the process (Node's default), since the state it leaves is unknown.
  process.on('unhandledRejection', (reason) => app.reportUnhandledRejection(reason));
  // A failover pair (DATABASE_URL of several hosts): each switch of host, as this process sees it.
  onHostChange(({ role, from, to }) => {
    if (to === null) app.log.warn({ role, from }, `no database host is ${role} now: requests needing it answer DATABASE_UNAVAILABLE`);
    else app.log.warn({ role, from, to }, `the database ${role} is ${to}`);
  });
  const reconciler = startReconciler(database, chain.runtime, {
    intervalMs: config.reconcileIntervalMs,
    onPass: (settled) => {
      if (settled.confirmed || settled.forgotten || settled.resent) app.log.info({ settled }, 'pending submissions settled');
    },
    onError: (error) => app.log.warn({ err: error }, 'pending submissions could not be settled; retried at the next pass'),
  });
  await reconciler.firstPass;
  const shutdown = handleTerminationSignals({ app, timeoutMs: config.shutdownTimeoutMs, graceMs: config.shutdownGraceMs, database });
  app.addHook('onClose', async () => {
    shutdown.step = 'stopping the reconciler';
    await reconciler.stop();
    shutdown.step = 'closing the chain';
    await chain.close();
    shutdown.step = 'closing the database';
    await database.close();
    await readDatabase?.close();
  });
  const address = await app.listen({ host: config.host, port: config.port });
  const where =
    database.kind === 'pglite'
      ? `embedded PGlite at ${config.pgliteDataDir}`
      : readDatabase
        ? 'Postgres, reads from its standby'
        : 'Postgres';
  const chainWhere = config.chain.rpcUrl ? config.chain.rpcUrl : `embedded devchain at ${chain.url}`;
  console.log(
    `poolgraph is serving GraphQL at ${address}/graphql (database: ${where}; chain: ${chainWhere}, stake mint ${chain.runtime.accounts.mint.toBase58()})`,
  );
  if (config.introspection) console.log(`Open ${address}/graphql in a browser for the explorer.`);
}

main().catch((error: unknown) => {
  const plain =
    error instanceof ConfigError ||
    error instanceof DataDirLockedError ||
    error instanceof ForeignRecordsError ||
    error instanceof DatabaseStartError;
  console.error(plain ? error.message : error);
  process.exit(1);
});
