import { sql } from 'drizzle-orm';
import * as t from '../../schema/index.js';
import type { Database } from '../db/client.js';
import { makeImages } from './images.js';
import { DEMO_SIZE, type SeedContext, type SeedOptions, type SeedSize, type SeedSummary } from './model.js';
import { makeNotifier, notifyActivity, notifyClaimable } from './notifications.js';
import { makeLoosePools, makeStreakSeries } from './pools.js';
import { assignPersonas, makePredictions } from './predictions.js';
import { UNLINKED_STAKE_MINT } from '../db/unlinked-records.js';
import { DAY, Rng } from './random.js';
import { makeReferrals } from './referrals.js';
import { makeResolutions } from './rewards.js';
import { applyStreakRule } from './streaks.js';
import { makeDeviceTokens, makeSettings, makeUsers } from './users.js';
import { type DemoRows, writeDemoRows } from './write.js';

export { DEMO_SIZE, TEST_SIZE, type SeedOptions, type SeedProgress, type SeedSize, type SeedSummary } from './model.js';
export { base58 } from './random.js';

/** True when the database has no users (the seed's precondition). */
export async function isDatabaseEmpty(database: Database): Promise<boolean> {
  const rows = await database.rows<{ one: number }>(sql`select 1 as one from ${t.users} limit 1`);
  return rows.length === 0;
}

/**
 * Seeds the demo data of `npm start`, `npm run db:seed` and the benchmarks into an empty
 * database: {@link makeDemoRows}, then {@link writeDemoRows}.
 */
export async function seedDemoData(database: Database, options: SeedOptions = {}): Promise<SeedSummary> {
  const { rows, summary } = makeDemoRows(options);
  await writeDemoRows(database, rows, options.onProgress);
  return summary;
}

/**
 * The demo data's rows, made in memory. The stages draw from one PRNG in this order;
 * reordering them changes every row after the move (demo-data.test.ts pins the rows of
 * TEST_SIZE). `randomDraws` counts the PRNG's draws: the generator's work, which
 * seed-sizes.test.ts checks grows with the rows and not faster.
 */
export function makeDemoRows(options: SeedOptions = {}): { rows: DemoRows; summary: SeedSummary; randomDraws: number } {
  const size: SeedSize = {
    users: Math.max(2, Math.floor(options.users ?? DEMO_SIZE.users)),
    pools: Math.max(0, Math.floor(options.pools ?? DEMO_SIZE.pools)),
    streaks: Math.max(0, Math.floor(options.streaks ?? DEMO_SIZE.streaks)),
  };
  const now = options.now ?? new Date();
  const ctx: SeedContext = {
    rng: new Rng(options.seed ?? 20_261_231),
    size,
    now,
    nowMs: now.getTime(),
    today: Math.floor(now.getTime() / DAY) * DAY,
    mint: UNLINKED_STAKE_MINT,
  };

  const { onProgress } = options;
  const made = (stage: string, rows: number) => onProgress?.({ stage: `making ${stage}`, done: rows, total: rows });

  const cast = makeUsers(ctx);
  made('users', cast.users.length);
  const { streaks, pools } = makeStreakSeries(ctx, cast.admins);
  makeLoosePools(ctx, pools, cast);
  made('pools', pools.length);
  const personas = assignPersonas(ctx, streaks, cast.veterans);
  makePredictions(ctx, pools, cast, personas);
  const predictions = pools.flatMap((p) => p.predictions.map((x) => x.row));
  made('predictions', predictions.length);
  const { resolutions, rewards } = makeResolutions(ctx, pools);
  made('rewards', rewards.length);
  const { userStreaks, streakRewards } = applyStreakRule(ctx, streaks, cast.userById, personas);
  made('user streaks', userStreaks.length);
  const { images } = makeImages(ctx, cast.users, pools);
  const settings = makeSettings(ctx, cast.users);
  const { referralCodes, redemptions } = makeReferrals(ctx, cast.users);
  const { notifications, notify } = makeNotifier(ctx);
  notifyActivity(ctx, notify, cast.users, pools, rewards, streakRewards);
  const deviceTokens = makeDeviceTokens(ctx, cast.users);
  // Written last, so the random sequence of everything above is what it was before they existed.
  notifyClaimable(notify, settings, rewards, streakRewards);
  made('notifications', notifications.length);

  const rows: DemoRows = {
    asOf: now,
    users: cast.users,
    images,
    settings,
    streaks,
    pools,
    predictions,
    resolutions,
    rewards,
    userStreaks,
    streakRewards,
    referralCodes,
    redemptions,
    notifications,
    deviceTokens,
  };
  const summary: SeedSummary = {
    users: cast.users.length,
    pools: pools.length,
    predictions: predictions.length,
    rewards: rewards.length,
    resolutions: resolutions.length,
    streaks: streaks.length,
    streakRewards: streakRewards.length,
    userStreaks: userStreaks.length,
    images: images.length,
    referralCodes: referralCodes.length,
    referralRedemptions: redemptions.length,
    notifications: notifications.length,
    settings: settings.length,
    deviceTokens: deviceTokens.length,
  };
  return { rows, summary, randomDraws: ctx.rng.draws };
}
