import { eq } from 'drizzle-orm';
import { users } from '../../schema/index.js';
import { loadConfig } from '../config.js';
import { openConfiguredDatabase } from '../db/open.js';

/**
 * Sets the role of the user signed in with a wallet, in the configured database:
 *
 *   npm run grant-role -- <walletAddress> [ADMIN|USER]
 *
 * How an operator becomes ADMIN (the demo data's admins hold wallets nobody has the keys
 * of): sign in once with your wallet, so your user exists, run this, then sign in again or
 * refresh the session (an access token carries the role read when it was issued). On embedded PGlite, stop the server
 * first: one process at a time may open its data directory.
 */
const [walletAddress, role = 'ADMIN'] = process.argv.slice(2);
if (!walletAddress || (role !== 'ADMIN' && role !== 'USER')) {
  console.error('usage: npm run grant-role -- <walletAddress> [ADMIN|USER]');
  process.exit(1);
}
const database = await openConfiguredDatabase(loadConfig());
try {
  await database.migrate();
  const updated = await database.db.update(users).set({ role, updatedAt: new Date() }).where(eq(users.walletAddress, walletAddress)).returning({ username: users.username });
  if (updated.length === 0) {
    console.error(`No user has wallet ${walletAddress}; sign in with it once first.`);
    process.exitCode = 1;
  } else {
    console.log(`${updated[0]!.username} (${walletAddress}) is now ${role}.`);
  }
} finally {
  await database.close();
}
