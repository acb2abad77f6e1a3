import 'reflect-metadata';
import { ConfigError, loadConfig } from './config.js';
import { openConfiguredDatabase } from './db/open.js';
import { createApp } from './server/app.js';

/** Start-up only: config -> database (migrated, seeded when empty) -> server. */
async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openConfiguredDatabase(config);
  await database.migrate();
  if (config.seedDemoData) {
    const { isDatabaseEmpty, seedDemoData } = await import('./db/seed.js');
    if (await isDatabaseEmpty(database)) {
      const summary = await seedDemoData(database);
      console.log(`Seeded demo data: ${summary.pools} pools, ${summary.predictions} predictions, ${summary.users} users`);
    }
  }
  const app = await createApp({ config, database });
  app.addHook('onClose', () => database.close());
  const address = await app.listen({ host: config.host, port: config.port });
  const where = database.kind === 'pglite' ? `embedded PGlite at ${config.pgliteDataDir}` : 'Postgres';
  console.log(`poolgraph is serving GraphQL at ${address}/graphql (database: ${where})`);
  if (config.introspection) console.log(`Open ${address}/graphql in a browser for the explorer.`);

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
