import { loadConfig } from '../config.js';
import { openConfiguredDatabase } from './open.js';

/** `npm run db:migrate`: applies schema/migrations to the configured database. */
const config = loadConfig();
const database = await openConfiguredDatabase(config);
try {
  await database.migrate();
  console.log(`Migrations applied (${database.kind}).`);
} finally {
  await database.close();
}
