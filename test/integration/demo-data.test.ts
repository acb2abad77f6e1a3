// Over 300 lines: the invariants of one seeded database and the model they are checked against (a replay of the streak rule, a fingerprint), which no other file uses.
import { createHash } from 'node:crypto';
import { type SQL, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import {
  lastStreakEvent,
  NOTIFICATION_PREFERENCE_KEYS,
  notificationType,
  poolStatus,
  type PoolRow,
  rewardType,
  type StreakRow,
  userRole,
} from '../../schema/index.js';
import type { Database } from '../../src/db/client.js';
import { type SeedSummary, seedDemoData, TEST_SIZE } from '../../src/seed/index.js';
import { backends, createTestDatabase, type TestDatabase } from '../support/harness.js';

/**
 * The demo data generator (src/seed/) promises internally consistent, deterministic
 * data that covers every state the API filters on. These tests seed TEST_SIZE at a fixed
 * `now` and check those promises against the stored rows only.
 */
const NOW = new Date('2026-06-15T09:30:00.000Z');
const SEED_OPTIONS = { ...TEST_SIZE, now: NOW };
const DEMO_TABLES = [
  'users',
  'images',
  'settings',
  'pools',
  'predictions',
  'resolutions',
  'rewards',
  'streaks',
  'user_streaks',
  'streak_rewards',
  'referral_codes',
  'referral_redemptions',
  'notifications',
  'device_tokens',
];
/** sha256 of every row of DEMO_TABLES seeded with SEED_OPTIONS: taken before the seeder was split into stages, retaken when referral codes gained their limits and use count, and when the claimed notifications took the service's texts (notification.texts.ts). */
const TEST_SIZE_DIGEST = '512f31abd64432ad56e72f7cf040c4a5ec3f5c9fe3ab9462c3210cc25a83da59';

type StreakEvent = (typeof lastStreakEvent.enumValues)[number];

/** Every row the checks look at, read back through Drizzle. */
async function readAll(database: Database) {
  const d = database.db;
  const [
    users,
    images,
    settings,
    pools,
    predictions,
    resolutions,
    rewards,
    streaks,
    userStreaks,
    streakRewards,
    referralCodes,
    referralRedemptions,
    notifications,
    deviceTokens,
  ] = await Promise.all([
    d.select().from(tables.users),
    d.select().from(tables.images),
    d.select().from(tables.settings),
    d.select().from(tables.pools),
    d.select().from(tables.predictions),
    d.select().from(tables.resolutions),
    d.select().from(tables.rewards),
    d.select().from(tables.streaks),
    d.select().from(tables.userStreaks),
    d.select().from(tables.streakRewards),
    d.select().from(tables.referralCodes),
    d.select().from(tables.referralRedemptions),
    d.select().from(tables.notifications),
    d.select().from(tables.deviceTokens),
  ]);
  return {
    users,
    images,
    settings,
    pools,
    predictions,
    resolutions,
    rewards,
    streaks,
    userStreaks,
    streakRewards,
    referralCodes,
    referralRedemptions,
    notifications,
    deviceTokens,
    resolutionOf: new Map(resolutions.map((row) => [row.poolId, row])),
    rewardOf: new Map(rewards.map((row) => [row.predictionId, row])),
  };
}
type Data = Awaited<ReturnType<typeof readAll>>;

/** Rows of a raw query as a plain array (postgres-js returns a decorated one). */
async function select(database: Database, query: SQL): Promise<Array<Record<string, unknown>>> {
  return [...(await database.rows<Record<string, unknown>>(query))];
}

async function count(database: Database, query: SQL): Promise<number> {
  const [row] = await database.rows<{ n: number | string }>(sql`select count(*)::int as n from (${query}) as q`);
  return Number(row!.n);
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);
const sorted = <T>(items: Iterable<T>) => [...items].sort();
const byReferenceDate = (a: PoolRow, b: PoolRow) => a.referenceDate.getTime() - b.referenceDate.getTime();

// ---------------------------------------------------------------------------------------
// The streak rule, replayed from stored rows

interface ReplayedState {
  count: number;
  scores: number[];
  event: StreakEvent;
  lastPoolParticipatedAt: string | null;
  /** Ids of the pools whose processing paid this user a streak reward. */
  rewardedIn: string[];
}

/**
 * Replays the streak rule over the resolved pools of `streak`, in reference-date order. The
 * users of a streak are those who predicted in one of its pools. For each processed pool, a
 * user whose prediction scores at least the minimum extends their run (QUALIFIED); reaching
 * the required count pays a streak reward and starts over (REWARDED). Any other user with a
 * run going loses it (RESET); a user without a run keeps their state.
 */
function replayStreak(data: Data, streak: StreakRow): Map<string, ReplayedState> {
  const series = data.pools.filter((p) => p.streakId === streak.id);
  const inSeries = new Set(series.map((p) => p.id));
  const states = new Map<string, ReplayedState>();
  for (const prediction of data.predictions) {
    if (!inSeries.has(prediction.poolId)) continue;
    const state = states.get(prediction.userId);
    const at = prediction.createdAt.toISOString();
    if (!state) states.set(prediction.userId, { count: 0, scores: [], event: 'NONE', lastPoolParticipatedAt: at, rewardedIn: [] });
    else if (at > state.lastPoolParticipatedAt!) state.lastPoolParticipatedAt = at;
  }
  for (const pool of series.filter((p) => data.resolutionOf.has(p.id)).sort(byReferenceDate)) {
    const scoreOf = new Map(
      data.predictions.filter((p) => p.poolId === pool.id).map((p) => [p.userId, data.rewardOf.get(p.id)!.precisionScore]),
    );
    for (const [userId, state] of states) {
      const score = scoreOf.get(userId);
      if (score !== undefined && score >= streak.minPrecisionScoreRequired) {
        state.count++;
        state.scores.push(score);
        state.event = 'QUALIFIED';
        if (state.count >= streak.streakCountRequired) {
          state.event = 'REWARDED';
          state.count = 0;
          state.scores = [];
          state.rewardedIn.push(pool.id);
        }
      } else if (state.count > 0) {
        state.event = 'RESET';
        state.count = 0;
        state.scores = [];
      }
    }
  }
  return states;
}

// ---------------------------------------------------------------------------------------
// Determinism

/** Values as text, one line per row, so two seedings compare (and diff) line by line. */
const line = (...values: unknown[]) => values.map((v) => (v instanceof Date ? v.toISOString() : String(v))).join('|');

async function fingerprint(database: Database) {
  const data = await readAll(database);
  return {
    users: sorted(data.users.map((u) => line(u.id, u.createdAt, u.username, u.walletAddress, u.avatarId, u.email))),
    pools: sorted(
      data.pools.map((p) =>
        line(
          p.id,
          p.createdAt,
          p.createdBy,
          p.title,
          p.status,
          p.isClosed,
          p.predictionStartDate,
          p.predictionEndDate,
          p.referenceDate,
          p.minStake,
          p.maxStake,
          p.totalVolume,
          p.indexedPredictionUpdateCount,
          p.imageId,
          p.streakId,
        ),
      ),
    ),
    predictions: sorted(data.predictions.map((p) => line(p.id, p.poolId, p.userId, p.createdAt, p.prediction, p.stake))),
    resolutions: sorted(data.resolutions.map((r) => line(r.id, r.poolId, r.result, r.protocolFee, r.leftover, r.median))),
    rewards: sorted(data.rewards.map((r) => line(r.id, r.predictionId, r.amount, r.precisionScore, r.type, r.isClaimed))),
    userStreaks: sorted(data.userStreaks.map((u) => line(u.id, u.userId, u.streakId, u.lastStreakEvent, u.currentStreakScores.join(' ')))),
    streakRewards: sorted(data.streakRewards.map((r) => line(r.id, r.streakId, r.userWalletAddress, r.amount, r.isClaimed))),
  };
}

// ---------------------------------------------------------------------------------------

describe.each(backends)('demo data (TEST_SIZE) on %s', (kind) => {
  let testDatabase: TestDatabase;
  let database: Database;
  let summary: SeedSummary;
  let data: Data;
  const nowIso = NOW.toISOString();
  /** Offending rows of an invariant, so a failure prints them. */
  const offenders = (query: SQL) => select(database, query);

  beforeAll(async () => {
    testDatabase = await createTestDatabase(kind);
    database = testDatabase.database;
    summary = await seedDemoData(database, SEED_OPTIONS);
    data = await readAll(database);
  });
  afterAll(() => testDatabase.drop());

  describe('pools and predictions', () => {
    it('sets every pool total_volume to the sum of its stakes', async () => {
      expect(data.predictions.length).toBeGreaterThan(0);
      expect(
        await offenders(sql`
          select p.id, p.total_volume::text as total_volume, coalesce(sum(x.stake), 0)::text as stakes
          from pools p left join predictions x on x.pool_id = p.id
          group by p.id having p.total_volume <> coalesce(sum(x.stake), 0)`),
      ).toEqual([]);
    });

    it('counts at least one indexed update per prediction', async () => {
      expect(
        await offenders(sql`
          select p.id, p.indexed_prediction_update_count, count(x.id)::int as predictions
          from pools p left join predictions x on x.pool_id = p.id
          group by p.id having p.indexed_prediction_update_count < count(x.id)`),
      ).toEqual([]);
    });

    it('keeps every stake within the pool [min_stake, max_stake]', async () => {
      expect(
        await offenders(sql`
          select x.id, x.stake::text as stake, p.min_stake::text as min_stake, p.max_stake::text as max_stake
          from predictions x join pools p on p.id = x.pool_id
          where x.stake < p.min_stake or x.stake > p.max_stake`),
      ).toEqual([]);
      // Not everyone stakes the minimum.
      expect(
        await count(database, sql`select 1 from predictions x join pools p on p.id = x.pool_id where x.stake > p.min_stake`),
      ).toBeGreaterThan(0);
    });

    it('puts every predicted value on the pool step grid, within its outcome bounds', async () => {
      expect(
        await offenders(sql`
          select x.id, x.prediction::text as prediction, p.min_outcome::text as min_outcome, p.max_outcome::text as max_outcome, p.step::text as step
          from predictions x join pools p on p.id = x.pool_id
          where x.prediction < p.min_outcome or x.prediction > p.max_outcome or mod(x.prediction - p.min_outcome, p.step) <> 0`),
      ).toEqual([]);
    });

    it('copies the pool account, mint and precision into each prediction', async () => {
      expect(
        await offenders(sql`
          select x.id from predictions x join pools p on p.id = x.pool_id
          where x.pool_account <> p.pool_account or x.stake_token_mint <> p.stake_token_mint or x.precision <> p.precision`),
      ).toEqual([]);
      expect(new Set(data.pools.map((p) => p.stakeTokenMint)).size).toBe(1);
    });

    it('dates every prediction inside its pool window, before now and after the user signed up', async () => {
      expect(
        await offenders(sql`
          select x.id, x.created_at, p.prediction_start_date, p.prediction_end_date, u.created_at as user_created_at
          from predictions x join pools p on p.id = x.pool_id join users u on u.id = x.user_id
          where x.created_at < p.prediction_start_date
             or x.created_at > least(p.prediction_end_date, ${nowIso}::timestamptz)
             or x.created_at < u.created_at`),
      ).toEqual([]);
    });

    it('creates pools in the past and updates them after their creation', async () => {
      expect(data.pools.filter((p) => p.createdAt > NOW || p.updatedAt < p.createdAt).map((p) => p.id)).toEqual([]);
    });
  });

  describe('resolutions and rewards', () => {
    it('resolves only pools whose predictions have ended, after their reference date and before now', async () => {
      expect(data.resolutions.length).toBeGreaterThan(0);
      expect(
        await offenders(sql`
          select r.id, p.prediction_end_date, p.reference_date, r.created_at
          from resolutions r join pools p on p.id = r.pool_id
          where p.prediction_end_date > ${nowIso}::timestamptz
             or r.created_at > ${nowIso}::timestamptz
             or r.created_at < p.reference_date`),
      ).toEqual([]);
    });

    it('gives every prediction of a resolved pool a reward, and no other prediction one', async () => {
      const resolved = data.predictions.filter((p) => data.resolutionOf.has(p.poolId));
      expect(resolved.length).toBeGreaterThan(0);
      expect(resolved.filter((p) => !data.rewardOf.has(p.id)).map((p) => p.id)).toEqual([]);
      expect(data.rewards.length).toBe(resolved.length);
    });

    it('splits each resolved volume exactly into protocol fee, leftover and rewards', async () => {
      expect(
        await offenders(sql`
          select p.id, p.total_volume::text as volume, r.protocol_fee::text as fee, r.leftover::text as leftover,
                 coalesce(sum(w.amount), 0)::text as rewards
          from resolutions r join pools p on p.id = r.pool_id
          left join predictions x on x.pool_id = p.id left join rewards w on w.prediction_id = x.id
          group by p.id, r.id
          having r.protocol_fee + r.leftover + coalesce(sum(w.amount), 0) <> p.total_volume`),
      ).toEqual([]);
    });

    it('scores each reward by the distance of its prediction to the result', async () => {
      // 1 on the result, falling linearly to 0 a quarter of the outcome range away (4 decimals).
      expect(
        await offenders(sql`
          select w.id, w.precision_score::text as score, x.prediction::text as prediction, r.result::text as result
          from rewards w join predictions x on x.id = w.prediction_id
          join resolutions r on r.pool_id = x.pool_id join pools p on p.id = x.pool_id
          where abs(w.precision_score - greatest(0, round(1 - abs(x.prediction - r.result) / ((p.max_outcome - p.min_outcome) * 0.25), 4))) > 0.0001`),
      ).toEqual([]);
    });
  });

  describe('streaks', () => {
    it('replays the streak rule from the stored rows to exactly the stored user_streaks (users, counts, scores, events)', () => {
      expect(data.streaks).toHaveLength(SEED_OPTIONS.streaks);
      const replayed: Record<string, unknown> = {};
      for (const streak of data.streaks) {
        for (const [userId, state] of replayStreak(data, streak)) {
          const { rewardedIn: _, ...expected } = state;
          replayed[`${streak.title} / ${userId}`] = expected;
        }
      }
      const stored = Object.fromEntries(
        data.userStreaks.map((row) => [
          `${data.streaks.find((s) => s.id === row.streakId)!.title} / ${row.userId}`,
          {
            count: row.currentStreakCount,
            scores: row.currentStreakScores,
            event: row.lastStreakEvent,
            lastPoolParticipatedAt: iso(row.lastPoolParticipatedAt),
          },
        ]),
      );
      expect(Object.keys(replayed).length).toBeGreaterThan(0);
      expect(Object.keys(stored)).toHaveLength(data.userStreaks.length); // one row per user and streak
      expect(stored).toEqual(replayed);
    });

    it('pays a streak reward for exactly each REWARDED step of the replay', () => {
      const userOfWallet = new Map(data.users.map((u) => [u.walletAddress, u.id]));
      const expected: string[] = [];
      const actual: string[] = [];
      for (const streak of data.streaks) {
        for (const [userId, state] of replayStreak(data, streak)) {
          for (const poolId of state.rewardedIn) expected.push(line(streak.title, userId, poolId));
        }
        // A reward is paid while processing a pool: the newest resolution of the series before it.
        const resolved = data.pools
          .filter((p) => p.streakId === streak.id && data.resolutionOf.has(p.id))
          .map((p) => ({ poolId: p.id, resolvedAt: data.resolutionOf.get(p.id)!.createdAt }))
          .sort((a, b) => a.resolvedAt.getTime() - b.resolvedAt.getTime());
        for (const reward of data.streakRewards.filter((r) => r.streakId === streak.id)) {
          const trigger = resolved.filter((r) => r.resolvedAt <= reward.createdAt).at(-1);
          actual.push(line(streak.title, userOfWallet.get(reward.userWalletAddress), trigger?.poolId));
        }
      }
      expect(expected.length).toBeGreaterThan(0);
      expect(sorted(actual)).toEqual(sorted(expected));
    });

    it('ends every streak with each last_streak_event value among its users', () => {
      const missing = Object.fromEntries(
        data.streaks.map((streak) => {
          const events = new Set(data.userStreaks.filter((u) => u.streakId === streak.id).map((u) => u.lastStreakEvent));
          return [streak.title, lastStreakEvent.enumValues.filter((event) => !events.has(event))];
        }),
      );
      expect(missing).toEqual(Object.fromEntries(data.streaks.map((s) => [s.title, []])));
    });

    it('points each streak at its newest resolved pool and keeps its balances consistent', () => {
      for (const streak of data.streaks) {
        const resolved = data.pools.filter((p) => p.streakId === streak.id && data.resolutionOf.has(p.id)).sort(byReferenceDate);
        expect(streak.lastProcessedPoolId, streak.title).toBe(resolved.at(-1)?.id ?? null);
        const paid = data.streakRewards.filter((r) => r.streakId === streak.id).reduce((sum, r) => sum + r.amount, 0n);
        expect(streak.availableBalance, streak.title).toBe(streak.totalAccumulated - paid);
        expect(streak.onchainBalance, streak.title).toBeGreaterThanOrEqual(streak.availableBalance);
      }
    });
  });

  describe('coverage of the states the API exposes', () => {
    it('has a pool in every filter state, status and flag', () => {
      const now = NOW.getTime();
      const started = (p: PoolRow) => p.predictionStartDate.getTime() <= now;
      const ended = (p: PoolRow) => p.predictionEndDate.getTime() <= now;
      const resolved = (p: PoolRow) => data.resolutionOf.has(p.id);
      const states: Record<string, (p: PoolRow) => boolean> = {
        'ACTIVE and open now': (p) => p.status === 'ACTIVE' && !p.isClosed && started(p) && !ended(p),
        'upcoming (not started)': (p) => !started(p),
        'ended, unresolved': (p) => ended(p) && !resolved(p),
        'ended, unresolved, reference date ahead': (p) => ended(p) && !resolved(p) && p.referenceDate.getTime() > now,
        resolved,
        'started without predictions': (p) => started(p) && p.totalVolume === 0n,
        ...Object.fromEntries(poolStatus.enumValues.map((status) => [`status ${status}`, (p: PoolRow) => p.status === status])),
        closed: (p) => p.isClosed,
        'not closed': (p) => !p.isClosed,
        'with image': (p) => p.imageId !== null,
        'without image': (p) => p.imageId === null,
        'in a streak': (p) => p.streakId !== null,
        'outside streaks': (p) => p.streakId === null,
      };
      expect(Object.keys(states).filter((name) => !data.pools.some(states[name]!))).toEqual([]);
    });

    it('has every reward, claim, notification and role variant', () => {
      const variants: Record<string, boolean> = {
        ...Object.fromEntries(rewardType.enumValues.map((type) => [`reward ${type}`, data.rewards.some((r) => r.type === type)])),
        'reward claimed': data.rewards.some((r) => r.isClaimed),
        'reward unclaimed': data.rewards.some((r) => !r.isClaimed),
        'streak reward claimed': data.streakRewards.some((r) => r.isClaimed),
        'streak reward unclaimed': data.streakRewards.some((r) => !r.isClaimed),
        'one user with a claimed and an unclaimed streak reward in one streak': data.streakRewards.some(
          (r) =>
            r.isClaimed &&
            data.streakRewards.some((o) => !o.isClaimed && o.streakId === r.streakId && o.userWalletAddress === r.userWalletAddress),
        ),
        ...Object.fromEntries(
          notificationType.enumValues.map((type) => [`notification ${type}`, data.notifications.some((n) => n.type === type)]),
        ),
        'notification read': data.notifications.some((n) => n.readAt !== null),
        'notification unread': data.notifications.some((n) => n.readAt === null),
        ...Object.fromEntries(userRole.enumValues.map((role) => [`role ${role}`, data.users.some((u) => u.role === role)])),
        'user with avatar': data.users.some((u) => u.avatarId !== null),
        'user without avatar': data.users.some((u) => u.avatarId === null),
        'referral redemption': data.referralRedemptions.length > 0,
        'device token': data.deviceTokens.length > 0,
      };
      expect(Object.keys(variants).filter((name) => !variants[name])).toEqual([]);
    });
  });

  describe('users, settings and referrals', () => {
    it('gives every user one settings row with exactly the NOTIFICATION_PREFERENCE_KEYS', () => {
      expect(sorted(data.settings.map((s) => s.userId))).toEqual(sorted(data.users.map((u) => u.id)));
      const expectedKeys = sorted(NOTIFICATION_PREFERENCE_KEYS);
      const wrong = data.settings.filter((s) => {
        const preferences = s.notificationPreferences as Record<string, unknown>;
        return (
          JSON.stringify(sorted(Object.keys(preferences))) !== JSON.stringify(expectedKeys) ||
          Object.values(preferences).some((value) => typeof value !== 'boolean')
        );
      });
      expect(wrong.map((s) => s.notificationPreferences)).toEqual([]);
      expect(data.settings.some((s) => Object.values(s.notificationPreferences).includes(false))).toBe(true);
    });

    it('never lets a user redeem their own referral code', () => {
      const ownerOf = new Map(data.referralCodes.map((c) => [c.id, c.userId]));
      expect(data.referralRedemptions.length).toBeGreaterThan(0);
      expect(data.referralRedemptions.filter((r) => ownerOf.get(r.referralCodeId) === r.userId).map((r) => r.id)).toEqual([]);
    });

    it('uses base58 addresses and makes avatars images of their own user', () => {
      const base58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
      const addresses = [
        ...data.users.map((u) => u.walletAddress),
        ...data.predictions.flatMap((p) => [p.predictionAccount, p.predictorAccount]),
        ...data.pools.map((p) => p.poolAccount),
      ];
      expect(addresses.filter((a) => !base58.test(a))).toEqual([]);
      const ownerOfImage = new Map(data.images.map((i) => [i.id, i.userId]));
      expect(data.users.filter((u) => u.avatarId && ownerOfImage.get(u.avatarId) !== u.id).map((u) => u.id)).toEqual([]);
    });
  });

  describe('determinism', () => {
    it('reports a summary that matches the rows written', () => {
      expect(summary).toMatchObject({
        users: data.users.length,
        pools: data.pools.length,
        predictions: data.predictions.length,
        rewards: data.rewards.length,
        resolutions: data.resolutions.length,
        streaks: data.streaks.length,
        streakRewards: data.streakRewards.length,
        userStreaks: data.userStreaks.length,
        images: data.images.length,
        referralCodes: data.referralCodes.length,
        referralRedemptions: data.referralRedemptions.length,
        notifications: data.notifications.length,
        settings: data.settings.length,
        deviceTokens: data.deviceTokens.length,
      });
      expect(summary).toMatchObject({ users: SEED_OPTIONS.users, pools: SEED_OPTIONS.pools, streaks: SEED_OPTIONS.streaks });
    });

    // A whole seed and two fingerprints: past the default 30 s on a busy machine (CI shares one).
    it('writes identical rows when seeded again into another database with the same options and now', async () => {
      const other = await createTestDatabase(kind);
      try {
        expect(await seedDemoData(other.database, SEED_OPTIONS)).toEqual(summary);
        expect(await fingerprint(other.database)).toEqual(await fingerprint(database));
      } finally {
        await other.drop();
      }
    }, 180_000);

    it('writes the rows it wrote when this digest was taken (a deliberate change to the demo data updates it)', async () => {
      // Pins the PRNG order across refactors of src/seed/: every column of every row counts.
      const digest = createHash('sha256');
      for (const table of DEMO_TABLES) {
        const rows = await select(database, sql.raw(`select row_to_json(x)::text as row from ${table} x order by id`));
        for (const { row } of rows) digest.update(`${table}:${row}\n`);
      }
      expect(digest.digest('hex')).toBe(TEST_SIZE_DIGEST);
    });
  });
});
