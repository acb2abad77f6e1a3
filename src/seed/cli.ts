import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { DEMO_SIZE, isDatabaseEmpty, type SeedProgress, type SeedSize, seedDemoData } from './index.js';
import { openConfiguredDatabase } from '../db/open.js';

/** Streaks per pool when --streaks is not given: the bench's reference data has 12 for 1,000 pools. */
const STREAKS_PER_POOL = 12 / 1000;

const USAGE = `npm run db:seed [-- --pools N --users N --streaks N --seed N]

Migrates the configured database (DATABASE_URL, or the embedded PGlite) and, when it has no
users, seeds demo data of the given size (default ${DEMO_SIZE.pools} pools, ${DEMO_SIZE.users} users). Streaks default to
12 per 1,000 pools, at least ${DEMO_SIZE.streaks}. The same options and --now give the same rows.`;

/** A non-negative integer option, or a usage error naming it. */
function count(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value.replaceAll('_', ''));
  if (!Number.isSafeInteger(parsed) || parsed < 0) {
    console.error(`--${name} takes a whole number, got "${value}"\n\n${USAGE}`);
    process.exit(2);
  }
  return parsed;
}

const { values } = parseArgs({
  options: {
    pools: { type: 'string' },
    users: { type: 'string' },
    streaks: { type: 'string' },
    seed: { type: 'string' },
    now: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
  strict: true,
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const pools = count('pools', values.pools, DEMO_SIZE.pools);
const size: SeedSize = {
  pools,
  users: count('users', values.users, DEMO_SIZE.users),
  streaks: count('streaks', values.streaks, Math.max(DEMO_SIZE.streaks, Math.round(pools * STREAKS_PER_POOL))),
};
const seed = values.seed === undefined ? undefined : count('seed', values.seed, 0);
const now = values.now === undefined ? undefined : new Date(values.now);
if (now && Number.isNaN(now.getTime())) {
  console.error(`--now takes an ISO date, got "${values.now}"`);
  process.exit(2);
}

/** One line per stage, and within a long one at most one every two seconds. */
function progressPrinter(started: number): (progress: SeedProgress) => void {
  let lastStage = '';
  let lastAt = 0;
  return ({ stage, done, total }) => {
    const at = performance.now();
    const finished = done >= total;
    if (stage === lastStage && !finished && at - lastAt < 2000) return;
    lastStage = stage;
    lastAt = at;
    const seconds = ((at - started) / 1000).toFixed(1).padStart(6);
    const share = total ? ` (${Math.floor((100 * done) / total)} %)` : '';
    console.log(`${seconds} s  ${stage}: ${done.toLocaleString('en')} of ${total.toLocaleString('en')}${finished ? '' : share}`);
  };
}

/** `npm run db:seed`: migrates, then seeds demo data into the configured database if it is empty. */
const config = loadConfig();
// A bulk load, not a request: no statement timeout.
const database = await openConfiguredDatabase({ ...config, statementTimeoutMs: 0 });
try {
  await database.migrate();
  if (!(await isDatabaseEmpty(database))) {
    console.log('The database already has users; not seeding demo data.');
  } else {
    const started = performance.now();
    console.log(`Seeding ${size.pools} pools, ${size.users} users and ${size.streaks} streaks (${database.kind}) ...`);
    const summary = await seedDemoData(database, { ...size, seed, now, onProgress: progressPrinter(started) });
    console.log(`Seeded demo data (${database.kind}) in ${((performance.now() - started) / 1000).toFixed(1)} s:`, summary);
  }
} finally {
  await database.close();
}
