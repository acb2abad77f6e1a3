/** The database schema: every table of the interface, one barrel for drizzle-kit and the app. */
export * from './users.js';
export * from './pools.js';
export * from './streaks.js';
export * from './referrals.js';
export * from './accounts.js';
export * from './chain.js';
export * from './leaderboard.js';
export * from './events.js';
