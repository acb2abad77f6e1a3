import { loadConfig } from '../config.js';
import { DataDirLockedError } from '../db/data-dir-lock.js';
import { openConfiguredDatabase } from '../db/open.js';
import { changeUserRole } from '../modules/auth/session.service.js';
import { EventHub } from '../modules/events/event-hub.js';

/**
 * Sets the role of the user signed in with a wallet, in the configured database:
 *
 *   npm run grant-role -- <walletAddress> [ADMIN|USER]
 *
 * How an operator becomes ADMIN (the demo data's admins hold wallets nobody has the keys
 * of): sign in once with your wallet, so your user exists, run this, then sign in again (a role
 * change ends every session of the user, so no token carries the old role). On embedded PGlite, stop the server
 * first: one process at a time may open its data directory.
 */
const [walletAddress, role = 'ADMIN'] = process.argv.slice(2);
if (!walletAddress || (role !== 'ADMIN' && role !== 'USER')) {
  console.error('usage: npm run grant-role -- <walletAddress> [ADMIN|USER]');
  process.exit(1);
}
const config = loadConfig();
let database: Awaited<ReturnType<typeof openConfiguredDatabase>>;
try {
  database = await openConfiguredDatabase(config);
} catch (error) {
  if (!(error instanceof DataDirLockedError)) throw error;
  // The usual case: the embedded server is running and holds its database.
  console.error(
    `The embedded database ${error.directory} is open in process ${error.ownerPid} (a running poolgraph, most likely); ` +
      'one process at a time may open it. Stop that server (Ctrl-C), run grant-role again, then start the server again. ' +
      'On Postgres (DATABASE_URL) grant-role runs beside running servers.',
  );
  process.exit(1);
}
try {
  await database.migrate();
  // The ended sessions are announced in the role change's own transaction (both or neither):
  // running servers (on Postgres) read them from the outbox and close the user's sockets.
  const events = new EventHub(database);
  const changed = await changeUserRole(database, events, walletAddress, role, new Date());
  if (!changed) {
    console.error(`No user has wallet ${walletAddress}; sign in with it once first.`);
    process.exitCode = 1;
  } else {
    console.log(`${changed.username} (${walletAddress}) is now ${role}; ${changed.revokedSessions} session(s) ended.`);
  }
} finally {
  await database.close();
}
