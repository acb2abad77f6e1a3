import { loadConfig } from '../config.js';
import { DEMO_SIZE, isDatabaseEmpty, seedDemoData } from './index.js';
import { openConfiguredDatabase } from '../db/open.js';

/** `npm run db:seed`: migrates, then seeds demo data into the configured database if it is empty. */
const config = loadConfig();
const database = await openConfiguredDatabase(config);
try {
  await database.migrate();
  if (!(await isDatabaseEmpty(database))) {
    console.log('The database already has users; not seeding demo data.');
  } else {
    const summary = await seedDemoData(database, DEMO_SIZE);
    console.log(`Seeded demo data (${database.kind}):`, summary);
  }
} finally {
  await database.close();
}
