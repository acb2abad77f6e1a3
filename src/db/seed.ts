import { sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import * as t from '../../schema/index.js';
import { NOTIFICATION_PREFERENCE_KEYS, type NotificationPreferences } from '../../schema/index.js';
import { advanceStreak, type StreakProgress, type StreakTerms, streakRewardAmount } from '../modules/streaks/streak-processor.js';
import type { Database, Db } from './client.js';
import { rebuildDerivedTables } from './derived-tables.js';

/**
 * Demo data: one deterministic generator for `npm start`, `npm run db:seed`, tests and
 * benchmarks. A seeded PRNG drives every value (UUIDs and addresses included) and every
 * date is relative to `now`, so the same options give the same rows.
 *
 * The data is internally consistent: pool volumes are the sums of their stakes, rewards
 * follow each resolution, and the user-streak state is what the streak rule of DESIGN.md
 * computes when the resolved pools of a streak are processed in reference-date order.
 * Every pool state the API filters on exists at TEST_SIZE already.
 */
export interface SeedOptions {
  users?: number;
  pools?: number;
  streaks?: number;
  seed?: number;
  now?: Date;
}

export type SeedSize = Required<Omit<SeedOptions, 'seed' | 'now'>>;

export const DEMO_SIZE: Readonly<SeedSize> = Object.freeze({ users: 300, pools: 120, streaks: 4 });
export const TEST_SIZE: Readonly<SeedSize> = Object.freeze({ users: 40, pools: 30, streaks: 3 });

export interface SeedSummary {
  users: number;
  pools: number;
  predictions: number;
  rewards: number;
  resolutions: number;
  streaks: number;
  streakRewards: number;
  userStreaks: number;
  images: number;
  referralCodes: number;
  referralRedemptions: number;
  notifications: number;
  settings: number;
  deviceTokens: number;
}

/** True when the database has no users (the seed's precondition). */
export async function isDatabaseEmpty(database: Database): Promise<boolean> {
  const rows = await database.rows<{ one: number }>(sql`select 1 as one from ${t.users} limit 1`);
  return rows.length === 0;
}

// ---------------------------------------------------------------------------------------
// Randomness, identifiers and addresses

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const DECIMALS = 6;
const UNIT = 10n ** BigInt(DECIMALS);
const INSERT_CHUNK = 500;

/** mulberry32: tiny, fast, and the same sequence on every machine. */
class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let r = Math.imul(this.state ^ (this.state >>> 15), 1 | this.state);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Fisher-Yates on a copy. */
  shuffled<T>(items: readonly T[]): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy;
  }

  /** `n` distinct items, each chosen with probability growing with its weight (Efraimidis-Spirakis). */
  weightedSample<T>(items: readonly T[], weight: (item: T) => number, n: number): T[] {
    return items
      .map((item) => ({ item, key: Math.pow(this.next(), 1 / Math.max(weight(item), 1e-6)) }))
      .sort((a, b) => b.key - a.key)
      .slice(0, Math.max(0, n))
      .map((entry) => entry.item);
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = Math.floor(this.next() * 256);
    return out;
  }

  /** A version-4 UUID built from PRNG bytes. */
  uuid(): string {
    const b = this.bytes(16);
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    const hex = Buffer.from(b).toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  /** A 32-byte key in base58, as Solana writes addresses. */
  address(): string {
    return base58(this.bytes(32));
  }
}

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Bitcoin/Solana base58: big-endian number in base 58, one '1' per leading zero byte. */
export function base58(bytes: Uint8Array): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let out = '';
  while (value > 0n) {
    out = BASE58_ALPHABET[Number(value % 58n)]! + out;
    value /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    out = `1${out}`;
  }
  return out;
}

/** Base units as a decimal string of whole tokens ("12.5"). */
function formatUnits(units: bigint): string {
  const whole = units / UNIT;
  const fraction = (units % UNIT).toString().padStart(DECIMALS, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}

const date = (ms: number) => new Date(Math.round(ms));
const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const maxDate = (...dates: Date[]) => date(Math.max(...dates.map((d) => d.getTime())));

// ---------------------------------------------------------------------------------------
// Vocabulary

interface Asset {
  symbol: string;
  name: string;
  /** Pool title before " on <day>". */
  title: string;
  /** What is measured, for descriptions. */
  what: string;
  price: number;
  /** Decimal places of a predicted value; the step is stepTicks / 10^precision. */
  precision: number;
  stepTicks: number;
  source: string;
}

const ASSETS: readonly Asset[] = [
  { symbol: 'BTC', name: 'Bitcoin', title: 'BTC price', what: 'Bitcoin (BTC) spot price', price: 98_000, precision: 0, stepTicks: 10, source: 'Coinbase BTC-USD spot price at the reference time' },
  { symbol: 'ETH', name: 'Ethereum', title: 'ETH price', what: 'Ethereum (ETH) spot price', price: 3_600, precision: 1, stepTicks: 5, source: 'Coinbase ETH-USD spot price at the reference time' },
  { symbol: 'SOL', name: 'Solana', title: 'SOL price', what: 'Solana (SOL) spot price', price: 210, precision: 2, stepTicks: 1, source: 'Pyth SOL/USD price feed' },
  { symbol: 'XAU', name: 'gold', title: 'Gold price', what: 'spot gold (XAU) price per troy ounce', price: 2_700, precision: 1, stepTicks: 1, source: 'LBMA Gold Price PM auction' },
  { symbol: 'SPX', name: 'S&P 500', title: 'S&P 500 close', what: 'closing level of the S&P 500 index', price: 6_000, precision: 2, stepTicks: 25, source: 'S&P Dow Jones Indices official close' },
  { symbol: 'EURUSD', name: 'EUR/USD', title: 'EUR/USD rate', what: 'euro to US dollar exchange rate (EUR/USD)', price: 1.08, precision: 4, stepTicks: 1, source: 'ECB euro foreign exchange reference rate' },
  { symbol: 'JUP', name: 'Jupiter', title: 'JUP price', what: 'Jupiter (JUP) token price', price: 1.2, precision: 3, stepTicks: 1, source: 'Pyth JUP/USD price feed' },
  { symbol: 'WTI', name: 'crude oil', title: 'WTI crude price', what: 'WTI crude oil front-month futures settlement', price: 72, precision: 2, stepTicks: 1, source: 'NYMEX WTI front-month settlement' },
  { symbol: 'BONK', name: 'Bonk', title: 'BONK price', what: 'Bonk (BONK) memecoin price', price: 0.00003, precision: 8, stepTicks: 1, source: 'Pyth BONK/USD price feed' },
];

const STREAK_SERIES: ReadonlyArray<{ title: string; symbol: string }> = [
  { title: 'Bitcoin Weekly Close', symbol: 'BTC' },
  { title: 'Ether Weekly', symbol: 'ETH' },
  { title: 'Solana Sprint', symbol: 'SOL' },
  { title: 'S&P Friday Close', symbol: 'SPX' },
  { title: 'Gold Rush', symbol: 'XAU' },
  { title: 'Forex Marathon', symbol: 'EURUSD' },
];

const DESCRIPTIONS: ReadonlyArray<(a: Asset, day: string) => string> = [
  (a, day) => `Where will the ${a.what} be in US dollars on ${day} at 16:00 UTC? Predict the value; the closer you get, the larger your share of the pool.`,
  (a, day) => `Predict the ${a.what} on ${day}. Resolved from the ${a.source}. Stakes are in the demo token.`,
  (a, day) => `${a.name} outlook: what is the ${a.what} on ${day} (16:00 UTC)? Precise predictions earn the most.`,
  (a, day) => `A pool on ${a.name}: enter your estimate of the ${a.what} for ${day}, priced in USD.`,
];

const ADJECTIVES = ['brave', 'calm', 'eager', 'fancy', 'gentle', 'happy', 'jolly', 'keen', 'lucky', 'mighty', 'nimble', 'proud', 'quick', 'sharp', 'witty', 'zesty', 'bold', 'cosmic', 'solar', 'lunar'];
const NOUNS = ['otter', 'falcon', 'tiger', 'panda', 'whale', 'badger', 'lynx', 'raven', 'bison', 'gecko', 'heron', 'koala', 'moose', 'orca', 'puffin', 'yak', 'degen', 'hodler', 'trader', 'oracle'];
const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

// ---------------------------------------------------------------------------------------
// Working rows

type PoolKind = 'open' | 'upcoming' | 'ended' | 'resolved';
type Crowd = 'none' | 'single' | 'hot' | 'normal';
type PoolStatus = t.PoolRow['status'];

interface UserSeed {
  row: t.NewUserRow & { id: string; createdAt: Date; walletAddress: string; username: string };
  /** The user's token account of the stake mint (prediction.predictor_account). */
  tokenAccount: string;
  /** How often the user takes part, and how close their predictions come. */
  activity: number;
  skill: number;
}

interface PoolSeed {
  row: t.NewPoolRow & {
    id: string;
    createdAt: Date;
    predictionStartDate: Date;
    predictionEndDate: Date;
    referenceDate: Date;
    totalVolume: bigint;
    indexedPredictionUpdateCount: number;
    isClosed: boolean;
    status: PoolStatus;
  };
  kind: PoolKind;
  asset: Asset;
  crowd: Crowd;
  /** Outcome grid: value(k) = (minTicks + k * stepTicks) / 10^precision, k in [0, steps]. */
  minTicks: number;
  steps: number;
  /** Grid index of the result (the truth, even before it is known). */
  resultK: number;
  resolvedAt: Date | null;
  streak: StreakSeed | null;
  twinOf: PoolSeed | null;
  /** Whether the pool gets artwork; undefined: decided at random. */
  image?: boolean;
  predictions: PredictionSeed[];
}

interface PredictionSeed {
  row: t.NewPredictionRow & { id: string; createdAt: Date; userId: string; stake: bigint };
  k: number;
  score: number | null;
}

interface StreakSeed {
  row: t.NewStreakRow & { id: string; createdAt: Date };
  asset: Asset;
  pools: PoolSeed[];
}

type Persona = 'rewardedEnd' | 'qualifiedEnd' | 'resetEnd' | 'veteran' | 'noneNew' | 'noneMiss' | 'regular';

// ---------------------------------------------------------------------------------------
// The generator

export async function seedDemoData(database: Database, options: SeedOptions = {}): Promise<SeedSummary> {
  const size: SeedSize = {
    users: Math.max(2, Math.floor(options.users ?? DEMO_SIZE.users)),
    pools: Math.max(0, Math.floor(options.pools ?? DEMO_SIZE.pools)),
    streaks: Math.max(0, Math.floor(options.streaks ?? DEMO_SIZE.streaks)),
  };
  const now = options.now ?? new Date();
  const nowMs = now.getTime();
  const today = Math.floor(nowMs / DAY) * DAY;
  const rng = new Rng(options.seed ?? 20_261_231);
  const mint = base58(Uint8Array.from({ length: 32 }, (_, i) => (i * 73 + 29) % 256));

  // ---- Users ----------------------------------------------------------------------------
  const users: UserSeed[] = [];
  const newcomers = Math.floor(size.users * 0.05);
  for (let i = 0; i < size.users; i++) {
    const adjective = rng.pick(ADJECTIVES);
    const noun = rng.pick(NOUNS);
    const style = i % 4;
    const username =
      style === 0 ? `${adjective}_${noun}${i}` : style === 1 ? `${capitalize(adjective)}${capitalize(noun)}${i}` : style === 2 ? `${noun}_${i}` : `${adjective}${noun}_${i}`;
    const isNewcomer = i >= size.users - newcomers;
    const createdAt = isNewcomer ? date(nowMs - rng.int(1, 14 * 24) * HOUR - rng.int(0, HOUR)) : date(nowMs - rng.int(190, 540) * DAY - rng.int(0, DAY));
    const lastSeenAt = rng.chance(0.88) ? date(Math.max(createdAt.getTime() + HOUR, nowMs - rng.int(0, 20 * 24 * 60) * MINUTE)) : null;
    users.push({
      row: {
        id: rng.uuid(),
        createdAt,
        updatedAt: lastSeenAt ?? createdAt,
        lastSeenAt,
        username,
        hasSeenTour: rng.chance(0.65),
        role: i < 2 ? 'ADMIN' : 'USER',
        walletAddress: rng.address(),
        avatarId: null,
        email: i < 2 || rng.chance(0.35) ? `${username.toLowerCase()}@example.com` : null,
        twitterUsername: rng.chance(0.28) ? `${adjective}${noun}${i}`.slice(0, 15) : null,
      },
      tokenAccount: rng.address(),
      activity: 0.15 + rng.next() * rng.next() * 0.85,
      skill: rng.next(),
    });
  }
  const veterans = users.slice(0, size.users - newcomers);
  // A few prolific creators (the operators first) make most pools.
  const creators = veterans.slice(0, Math.max(3, Math.floor(size.users / 40)));
  const admins = veterans.slice(0, 2);
  const userById = new Map(users.map((u) => [u.row.id, u]));

  // ---- Streaks and their weekly pool series ---------------------------------------------
  const streaks: StreakSeed[] = [];
  const pools: PoolSeed[] = [];
  const perStreak =
    size.streaks === 0 ? 0 : Math.max(Math.min(6, Math.floor((size.pools * 0.6) / size.streaks)), Math.min(20, Math.round((size.pools * 0.45) / size.streaks)));
  for (let s = 0; s < size.streaks && perStreak > 0; s++) {
    const series = STREAK_SERIES[s % STREAK_SERIES.length]!;
    const asset = ASSETS.find((a) => a.symbol === series.symbol)!;
    const streak: StreakSeed = {
      row: {
        id: rng.uuid(),
        createdAt: now, // set below, before the series' first pool
        title: s < STREAK_SERIES.length ? series.title : `${series.title} ${Math.floor(s / STREAK_SERIES.length) + 1}`,
        streakAccumulatorAccount: rng.address(),
        feePercentage: rng.pick([1, 1.5, 2, 2.5, 3]),
        payoutPercentage: rng.pick([5, 8, 10, 12.5, 15]),
        bump: rng.int(247, 255),
        streakCountRequired: 2, // set below, once the number of resolved pools is known
        minPrecisionScoreRequired: [0.6, 0.5, 0.7, 0.8][s % 4]!,
        decimals: DECIMALS,
        lastSyncAt: date(nowMs - rng.int(1, 45) * MINUTE),
      },
      asset,
      pools: [],
    };
    const tail: PoolKind[] = perStreak >= 10 ? ['ended', 'open', 'upcoming'] : ['ended', 'open'];
    const openIndex = perStreak - tail.length + tail.indexOf('open');
    const openReference = today + (3 + (s % 4)) * DAY + 16 * HOUR;
    for (let j = 0; j < perStreak; j++) {
      const kind: PoolKind = j < perStreak - tail.length ? 'resolved' : tail[j - (perStreak - tail.length)]!;
      const referenceDate = date(openReference + (j - openIndex) * 7 * DAY);
      const predictionEndDate = date(referenceDate.getTime() - DAY);
      const predictionStartDate = date(referenceDate.getTime() - 7 * DAY);
      const createdAt = date(Math.min(predictionStartDate.getTime(), nowMs) - rng.int(2 * 60, 48 * 60) * MINUTE - rng.int(0, MINUTE));
      const pool = makePool(rng, {
        kind,
        asset,
        crowd: 'normal',
        createdBy: rng.pick(admins).row.id,
        createdAt,
        start: predictionStartDate,
        end: predictionEndDate,
        reference: referenceDate,
        mint,
        streak,
        status: 'ACTIVE',
        isClosed: kind === 'resolved' && referenceDate.getTime() < nowMs - 60 * DAY && rng.chance(0.5),
        nowMs,
      });
      streak.pools.push(pool);
      pools.push(pool);
    }
    const resolvedCount = streak.pools.filter((p) => p.kind === 'resolved').length;
    streak.row.streakCountRequired = Math.max(2, Math.min(2 + (s % 4), resolvedCount - 1));
    streak.row.createdAt = date(streak.pools[0]!.row.createdAt.getTime() - rng.int(1, 3) * DAY - rng.int(0, DAY));
    streak.row.updatedAt = streak.row.createdAt;
    streaks.push(streak);
  }

  // ---- Pools outside streaks ------------------------------------------------------------
  // The first twelve cover every state the API filters and sorts on; the rest are random.
  interface Spec {
    kind: PoolKind;
    crowd?: Crowd;
    status?: PoolStatus;
    closed?: boolean;
    image?: boolean;
    /** Index (among these pools) of a pool whose creation time, dates and stakes this one copies. */
    twinOf?: number;
    referenceInFuture?: boolean;
  }
  const leadSpecs: Spec[] = [
    { kind: 'open', crowd: 'hot', image: true },
    { kind: 'open', twinOf: 0, image: false },
    { kind: 'resolved', closed: true, image: true },
    { kind: 'ended', referenceInFuture: true, image: false },
    { kind: 'upcoming', crowd: 'none', image: true },
    { kind: 'resolved', crowd: 'single', image: false },
    { kind: 'ended', referenceInFuture: false, crowd: 'none' },
    { kind: 'open', status: 'PREDICTIONS_FROZEN', image: true },
    { kind: 'resolved', status: 'CLAIMS_FROZEN', crowd: 'hot', image: false },
    { kind: 'ended', status: 'FROZEN', referenceInFuture: false },
    { kind: 'resolved', twinOf: 2, image: true },
    { kind: 'open', crowd: 'none', image: false },
  ];
  const loose: PoolSeed[] = [];
  const looseCount = Math.max(0, size.pools - pools.length);
  for (let j = 0; j < looseCount; j++) {
    const spec: Spec = leadSpecs[j] ?? randomSpec(rng);
    const twin = spec.twinOf !== undefined ? loose[spec.twinOf] ?? null : null;
    const kind = twin ? twin.kind : spec.kind;
    const asset = twin ? ASSETS.filter((a) => a !== twin.asset)[j % (ASSETS.length - 1)]! : rng.pick(ASSETS);
    let start: Date;
    let end: Date;
    let reference: Date;
    let createdAt: Date;
    if (twin) {
      ({ predictionStartDate: start, predictionEndDate: end, referenceDate: reference, createdAt } = twin.row);
    } else {
      if (kind === 'open') {
        reference = date(today + rng.int(1, 10) * DAY + 16 * HOUR);
        const endCandidate = reference.getTime() - rng.pick([0, 0, 1, 2]) * DAY;
        end = date(endCandidate > nowMs + HOUR ? endCandidate : reference.getTime());
        start = date(nowMs - rng.int(1, 10 * 24) * HOUR - rng.int(0, HOUR));
      } else if (kind === 'upcoming') {
        start = date(nowMs + rng.int(6, 6 * 24) * HOUR);
        end = date(start.getTime() + rng.int(3, 10) * DAY);
        reference = date(Math.floor(end.getTime() / DAY) * DAY + rng.int(1, 2) * DAY + 16 * HOUR);
      } else if (kind === 'ended') {
        end = date(nowMs - rng.int(1, 5 * 24) * HOUR - rng.int(0, HOUR));
        const future = spec.referenceInFuture ?? rng.chance(0.5);
        reference = future
          ? date(today + rng.int(1, 5) * DAY + 16 * HOUR)
          : date(Math.max(end.getTime(), Math.min(Math.floor(end.getTime() / DAY) * DAY + 16 * HOUR, nowMs - HOUR)));
        start = date(end.getTime() - rng.int(3, 14) * DAY);
      } else {
        reference = date(today - rng.int(2, 120) * DAY + 16 * HOUR);
        end = date(reference.getTime() - rng.pick([0, 1, 1, 2]) * DAY);
        start = date(end.getTime() - rng.int(3, 21) * DAY);
      }
      createdAt = date(Math.min(start.getTime(), nowMs) - rng.int(60, 72 * 60) * MINUTE - rng.int(0, MINUTE));
    }
    const pool = makePool(rng, {
      kind,
      asset,
      crowd: twin ? twin.crowd : spec.crowd ?? 'normal',
      createdBy: (rng.chance(0.75) ? rng.pick(creators) : rng.pick(veterans)).row.id,
      createdAt,
      start,
      end,
      reference,
      mint,
      streak: null,
      status: spec.status ?? 'ACTIVE',
      isClosed: spec.closed ?? false,
      nowMs,
      twin,
    });
    pool.image = spec.image ?? rng.chance(0.6);
    loose.push(pool);
    pools.push(pool);
  }

  // ---- Predictions ----------------------------------------------------------------------
  const personas = new Map<StreakSeed, Map<string, Persona>>();
  for (const streak of streaks) {
    const pickOrder = rng.shuffled(veterans.slice(2));
    const roles: Persona[] = ['rewardedEnd', 'qualifiedEnd', 'resetEnd', 'veteran', 'noneNew', 'noneMiss'];
    const regularCount = Math.max(4, Math.min(25, Math.floor(size.users * 0.08)));
    const map = new Map<string, Persona>();
    pickOrder.slice(0, roles.length + regularCount).forEach((u, i) => map.set(u.row.id, roles[i] ?? 'regular'));
    personas.set(streak, map);
  }

  for (const pool of pools) {
    if (pool.kind === 'upcoming') continue;
    const windowStart = pool.row.predictionStartDate.getTime();
    const windowEnd = Math.min(pool.row.predictionEndDate.getTime(), nowMs);
    const eligible = users.filter((u) => u.row.createdAt.getTime() < windowEnd - HOUR);
    const taken = new Set<string>();
    const plan: Array<{ user: UserSeed; k: number; stake?: bigint }> = [];

    if (pool.streak) {
      const resolved = pool.streak.pools.filter((p) => p.kind === 'resolved');
      const index = resolved.indexOf(pool);
      for (const [userId, persona] of personas.get(pool.streak)!) {
        const user = userById.get(userId)!;
        const move = personaMove(rng, persona, index, resolved.length, pool.streak.row.streakCountRequired!, user.skill);
        if (move === 'absent') continue;
        const k = move === 'qualify' ? qualifyingK(rng, pool, pool.streak.row.minPrecisionScoreRequired!) : move === 'miss' ? missingK(rng, pool, pool.streak.row.minPrecisionScoreRequired!) : crowdK(rng, pool, user.skill);
        plan.push({ user, k });
        taken.add(userId);
      }
    }

    const twinStakes = pool.twinOf?.predictions.map((p) => p.row.stake) ?? null;
    const crowdSize = twinStakes
      ? twinStakes.length
      : { none: 0, single: 1, hot: rng.int(100, 150), normal: pool.streak ? rng.int(0, 18) : rng.chance(0.07) ? 0 : rng.int(4, 42) }[pool.crowd];
    const candidates = eligible.filter((u) => !taken.has(u.row.id));
    const cap = pool.crowd === 'hot' || twinStakes ? Math.floor(candidates.length * 0.85) : candidates.length;
    const crowd = rng.weightedSample(candidates, (u) => u.activity, Math.min(crowdSize, cap));
    crowd.forEach((user, i) => plan.push({ user, k: crowdK(rng, pool, user.skill), stake: twinStakes?.[i] }));

    for (const { user, k, stake } of plan) {
      const from = Math.max(windowStart, user.row.createdAt.getTime() + HOUR);
      const createdAt = date(from + rng.next() * (windowEnd - from));
      const valueRevision = rng.chance(0.2) ? rng.int(1, 3) : 0;
      const stakeRevision = rng.chance(0.15) ? rng.int(1, 2) : 0;
      const updatedAt = valueRevision + stakeRevision > 0 ? date(createdAt.getTime() + rng.next() * (windowEnd - createdAt.getTime())) : createdAt;
      const amount = stake ?? randomStake(rng, pool.row.minStake!, pool.row.maxStake!);
      pool.predictions.push({
        row: {
          id: rng.uuid(),
          createdAt,
          updatedAt,
          poolId: pool.row.id,
          userId: user.row.id,
          poolAccount: pool.row.poolAccount!,
          predictorAccount: user.tokenAccount,
          predictionAccount: rng.address(),
          prediction: gridValue(pool, k),
          precision: pool.row.precision!,
          stakeTokenMint: mint,
          stake: amount,
          decimals: DECIMALS,
          lastAppliedValueRevision: valueRevision,
          lastAppliedStakeRevision: stakeRevision,
          isFeePayer: rng.chance(0.92),
          isClosed: pool.row.isClosed,
          bump: rng.int(244, 255),
          lastSyncAt: date(Math.min(nowMs, updatedAt.getTime() + rng.int(1, 90) * 1000)),
        },
        k,
        score: null,
      });
      pool.row.totalVolume += amount;
      pool.row.indexedPredictionUpdateCount += 1 + valueRevision + stakeRevision;
    }
    pool.row.updatedAt = maxDate(pool.row.createdAt, ...pool.predictions.map((p) => p.row.updatedAt!));
  }

  // ---- Resolutions and rewards ----------------------------------------------------------
  const resolutions: t.NewResolutionRow[] = [];
  const rewards: Array<t.NewRewardRow & { id: string; amount: bigint; isClaimed: boolean; updatedAt: Date; type: 'REWARD' | 'REFUND'; prediction: PredictionSeed; pool: PoolSeed }> = [];
  for (const pool of pools) {
    if (pool.kind !== 'resolved') continue;
    const resolvedAt = pool.resolvedAt!;
    const volume = pool.row.totalVolume;
    const entries = pool.predictions;
    for (const p of entries) p.score = precisionScore(pool, p.k);
    const weights = entries.map((p) => BigInt(Math.round(p.score! * 10_000)) * p.row.stake);
    const totalWeight = weights.reduce((a, b) => a + b, 0n);
    const refund = entries.length === 1 || totalWeight === 0n || pool.row.status === 'FROZEN';
    const fee = refund ? 0n : (volume * BigInt(Math.round(pool.row.platformFeeRate * 10_000))) / 10_000n;
    const pot = volume - fee;
    const roiCap = BigInt(Math.round((1 + pool.row.maxRoi) * 100));
    let paid = 0n;
    entries.forEach((p, i) => {
      const share = refund ? p.row.stake : (pot * weights[i]!) / totalWeight;
      const amount = refund ? share : minBig(share, (p.row.stake * roiCap) / 100n);
      paid += amount;
      const isClaimed = pool.row.isClosed || (amount > 0n && rng.chance(refund ? 0.75 : 0.5));
      const claimedAt = date(Math.min(nowMs - MINUTE, resolvedAt.getTime() + rng.int(10, 14 * 24 * 60) * MINUTE));
      rewards.push({
        id: rng.uuid(),
        createdAt: resolvedAt,
        updatedAt: isClaimed ? claimedAt : resolvedAt,
        predictionId: p.row.id,
        decimals: DECIMALS,
        amount,
        precisionScore: p.score!,
        isClaimed,
        type: refund ? 'REFUND' : 'REWARD',
        prediction: p,
        pool,
      });
    });
    const sorted = entries.map((p) => p.k).sort((a, b) => a - b);
    const median = sorted.length ? gridValue(pool, sorted[(sorted.length - 1) >> 1]!) : gridValue(pool, pool.resultK);
    resolutions.push({
      id: rng.uuid(),
      createdAt: resolvedAt,
      updatedAt: resolvedAt,
      poolId: pool.row.id,
      result: gridValue(pool, pool.resultK),
      decimals: DECIMALS,
      protocolFee: fee,
      leftover: volume - fee - paid,
      median,
    });
    pool.row.updatedAt = maxDate(pool.row.updatedAt!, resolvedAt);
  }
  // The one-predictor refund pool is claimed, so every notification kind has a source.
  const firstRefund = rewards.find((r) => r.type === 'REFUND');
  if (firstRefund && !firstRefund.isClaimed) {
    firstRefund.isClaimed = true;
    firstRefund.updatedAt = date(Math.min(nowMs - MINUTE, firstRefund.createdAt!.getTime() + HOUR));
  }

  // ---- The streak rule ------------------------------------------------------------------
  interface State extends StreakProgress {
    firstAt: Date;
    lastAt: Date;
    lastProcessedPoolId: string | null;
    updatedAt: Date;
  }
  const userStreaks: t.NewUserStreakRow[] = [];
  const streakRewards: Array<t.NewStreakRewardRow & { id: string; createdAt: Date; amount: bigint; isClaimed: boolean; streak: StreakSeed; userId: string }> = [];
  for (const streak of streaks) {
    const series = [...streak.pools].sort((a, b) => a.row.referenceDate.getTime() - b.row.referenceDate.getTime());
    const fees = new Map(series.map((p) => [p, (p.row.totalVolume * BigInt(Math.round(streak.row.feePercentage * 100))) / 10_000n]));
    const deposit = BigInt(rng.int(300, 2_000)) * UNIT; // the sponsor's opening deposit
    let accumulated = deposit;
    let available = deposit;
    const credited = new Set<PoolSeed>();
    const terms: StreakTerms = { streakCountRequired: streak.row.streakCountRequired!, minPrecisionScoreRequired: streak.row.minPrecisionScoreRequired! };

    const states = new Map<string, State>();
    for (const pool of series) {
      for (const p of [...pool.predictions].sort((a, b) => a.row.createdAt.getTime() - b.row.createdAt.getTime())) {
        const state = states.get(p.row.userId);
        if (!state) {
          states.set(p.row.userId, { count: 0, scores: [], event: 'NONE', firstAt: p.row.createdAt, lastAt: p.row.createdAt, lastProcessedPoolId: null, updatedAt: p.row.createdAt });
        } else {
          if (p.row.createdAt < state.firstAt) state.firstAt = p.row.createdAt;
          if (p.row.createdAt > state.lastAt) state.lastAt = p.row.createdAt;
          state.updatedAt = state.lastAt;
        }
      }
    }

    let lastProcessed: PoolSeed | null = null;
    for (const pool of series) {
      if (pool.kind !== 'resolved') continue;
      const processedAt = date(pool.resolvedAt!.getTime() + rng.int(1, 10) * MINUTE);
      // Fees of every pool whose predictions closed by now have reached the accumulator.
      for (const other of series) {
        if (!credited.has(other) && other.row.predictionEndDate <= processedAt) {
          credited.add(other);
          accumulated += fees.get(other)!;
          available += fees.get(other)!;
        }
      }
      const byUser = new Map(pool.predictions.map((p) => [p.row.userId, p]));
      for (const [userId, state] of states) {
        if (state.firstAt > processedAt) continue; // not yet a user of the streak
        const step = advanceStreak(state, byUser.get(userId)?.score ?? null, terms);
        ({ count: state.count, scores: state.scores, event: state.event } = step.progress);
        if (step.completed) {
          const amount = streakRewardAmount(available, streak.row.payoutPercentage);
          if (amount <= 0n) throw new Error(`demo seed: streak ${streak.row.title} ran dry`);
          available -= amount;
          streakRewards.push({
            id: rng.uuid(),
            createdAt: processedAt,
            updatedAt: processedAt,
            streakId: streak.row.id,
            userWalletAddress: userById.get(userId)!.row.walletAddress,
            amount,
            isClaimed: rng.chance(0.55),
            streak,
            userId,
          });
        }
        state.lastProcessedPoolId = pool.row.id;
        state.updatedAt = maxDate(state.updatedAt, processedAt);
      }
      lastProcessed = pool;
    }
    // Fees of pools still taking predictions (or awaiting resolution) are in the accumulator too.
    for (const other of series) {
      if (!credited.has(other)) {
        accumulated += fees.get(other)!;
        available += fees.get(other)!;
      }
    }

    // Claims: both kinds in every streak with two rewards or more; the newest waits. The
    // veteran, paid twice where the series has room, has likewise claimed the first and not
    // the newest, so one user has rewards of both kinds in one streak.
    const own = streakRewards.filter((r) => r.streak === streak);
    const veteranId = [...personas.get(streak)!].find(([, persona]) => persona === 'veteran')?.[0];
    for (const rewards of [own, own.filter((r) => r.userId === veteranId)]) {
      if (rewards.length < 2) continue;
      rewards[0]!.isClaimed = true;
      rewards.at(-1)!.isClaimed = false;
    }
    let claimed = 0n;
    for (const reward of own) {
      if (!reward.isClaimed) continue;
      claimed += reward.amount;
      reward.updatedAt = date(Math.min(nowMs - MINUTE, reward.createdAt.getTime() + rng.int(5, 10 * 24 * 60) * MINUTE));
    }
    streak.row.totalAccumulated = accumulated;
    streak.row.availableBalance = available;
    streak.row.onchainBalance = accumulated - claimed;
    streak.row.lastProcessedPoolId = lastProcessed?.row.id ?? null;
    streak.row.updatedAt = lastProcessed ? date(lastProcessed.resolvedAt!.getTime() + 15 * MINUTE) : streak.row.createdAt;

    for (const [userId, state] of states) {
      userStreaks.push({
        id: rng.uuid(),
        createdAt: state.firstAt,
        updatedAt: state.updatedAt,
        userId,
        streakId: streak.row.id,
        currentStreakCount: state.count,
        lastStreakEvent: state.event,
        currentStreakScores: state.scores,
        lastPoolParticipatedAt: state.lastAt,
        lastProcessedPoolId: state.lastProcessedPoolId,
      });
    }
  }

  // ---- Images: avatars and pool artwork -------------------------------------------------
  const images: t.NewImageRow[] = [];
  const avatars: Array<{ id: string; avatarId: string }> = [];
  // The two operators, who create most pools, have avatars, so any page of the busiest
  // pools reaches the avatar relation; user 2, the third creator, has none.
  users.forEach((user, i) => {
    if (i === 2 || (i > 1 && !rng.chance(0.42))) return;
    const id = rng.uuid();
    const createdAt = date(user.row.createdAt.getTime() + rng.int(1, 30 * 24) * HOUR);
    const at = createdAt.getTime() < nowMs ? createdAt : user.row.createdAt;
    images.push({ id, userId: user.row.id, url: `https://images.poolgraph.dev/avatars/${id}.webp`, createdAt: at, updatedAt: at });
    user.row.avatarId = id;
    user.row.updatedAt = maxDate(user.row.updatedAt!, at);
    avatars.push({ id: user.row.id, avatarId: id });
  });
  for (const pool of pools) {
    const wanted = pool.image ?? (pool.streak ? rng.chance(0.7) : rng.chance(0.6));
    if (!wanted) continue;
    const id = rng.uuid();
    const createdAt = date(pool.row.createdAt.getTime() - rng.int(1, 30) * MINUTE);
    images.push({
      id,
      userId: pool.row.createdBy,
      url: `https://images.poolgraph.dev/pools/${pool.asset.symbol.toLowerCase()}-${id.slice(0, 8)}.webp`,
      createdAt,
      updatedAt: createdAt,
    });
    pool.row.imageId = id;
  }

  // ---- Settings -------------------------------------------------------------------------
  const settings: Array<typeof t.settings.$inferInsert> = users.map((user) => {
    const preferences = Object.fromEntries(
      NOTIFICATION_PREFERENCE_KEYS.map((key) => [key, key === 'is_email_subscribe_popup_dismissed' ? rng.chance(0.4) : rng.chance(0.87)]),
    ) as NotificationPreferences;
    return { id: rng.uuid(), createdAt: user.row.createdAt, updatedAt: user.row.updatedAt, userId: user.row.id, notificationPreferences: preferences };
  });

  // ---- Referral codes and redemptions ---------------------------------------------------
  const referralCodes: Array<t.NewReferralCodeRow & { id: string; userId: string; createdAt: Date }> = [];
  users.forEach((user, i) => {
    if (!(i === 2 || i === 3 || rng.chance(0.15))) return;
    const createdAt = date(Math.min(nowMs - DAY, user.row.createdAt.getTime() + rng.int(1, 40) * DAY));
    if (createdAt <= user.row.createdAt) return;
    const stem = user.row.username.replace(/[^A-Za-z]/g, '').toUpperCase().slice(0, 10) || 'POOL';
    referralCodes.push({
      id: rng.uuid(),
      createdAt,
      updatedAt: createdAt,
      code: `${stem}${i}${rng.int(10, 99)}`,
      notes: rng.chance(0.3) ? rng.pick(['Community campaign', 'Twitter giveaway', 'Discord event', 'Conference booth']) : null,
      userId: user.row.id,
    });
  });
  const redemptions: t.NewReferralRedemptionRow[] = [];
  users.forEach((user, i) => {
    if (!referralCodes.length || !(i === 4 || rng.chance(0.22))) return;
    const code = rng.pick(referralCodes);
    if (code.userId === user.row.id) return;
    const appliedAt = date(Math.min(nowMs - MINUTE, Math.max(user.row.createdAt.getTime(), code.createdAt.getTime()) + rng.int(1, 10 * 24 * 60) * MINUTE));
    redemptions.push({ id: rng.uuid(), createdAt: appliedAt, updatedAt: appliedAt, referralCodeId: code.id, userId: user.row.id, appliedAt });
  });

  // ---- Notifications --------------------------------------------------------------------
  const notifications: t.NewNotificationRow[] = [];
  const notify = (userId: string, type: t.NotificationRow['type'], title: string, message: string, data: Record<string, unknown>, createdAt: Date) => {
    const ageDays = (nowMs - createdAt.getTime()) / DAY;
    const read = rng.chance(ageDays > 7 ? 0.85 : 0.35);
    const readAt = read ? date(Math.min(nowMs, createdAt.getTime() + rng.int(2, 3 * 24 * 60) * MINUTE)) : null;
    notifications.push({ id: rng.uuid(), createdAt, updatedAt: readAt ?? createdAt, userId, type, title, message, data, readAt });
  };
  const recentPools = pools.filter((p) => p.row.createdAt.getTime() > nowMs - 30 * DAY && p.row.createdAt.getTime() < nowMs);
  for (const user of users) {
    const candidates = recentPools.filter((p) => p.row.createdAt > user.row.createdAt);
    for (const pool of rng.shuffled(candidates).slice(0, rng.int(0, 3))) {
      notify(user.row.id, 'POOL_CREATED', 'New pool', `${pool.row.title} is open for predictions.`, { poolId: pool.row.id, title: pool.row.title }, date(Math.min(nowMs, pool.row.createdAt.getTime() + rng.int(1, 20) * MINUTE)));
    }
  }
  for (const reward of rewards) {
    if (!reward.isClaimed || (reward.type === 'REWARD' && !rng.chance(0.7))) continue;
    const refund = reward.type === 'REFUND';
    notify(
      reward.prediction.row.userId,
      refund ? 'REFUND_CLAIMED' : 'REWARD_CLAIMED',
      refund ? 'Refund claimed' : 'Reward claimed',
      `You claimed ${formatUnits(reward.amount)} tokens ${refund ? 'refunded from' : 'won on'} ${reward.pool.row.title}.`,
      { poolId: reward.pool.row.id, predictionId: reward.prediction.row.id, rewardId: reward.id, amount: formatUnits(reward.amount) },
      reward.updatedAt,
    );
  }
  for (const reward of streakRewards) {
    notify(
      reward.userId,
      'STREAK_REWARD_RECEIVED',
      'Streak reward',
      `Your streak in ${reward.streak.row.title} earned ${formatUnits(reward.amount)} tokens.`,
      { streakId: reward.streak.row.id, streakRewardId: reward.id, amount: formatUnits(reward.amount) },
      reward.createdAt,
    );
  }

  // ---- Device tokens --------------------------------------------------------------------
  const deviceTokens: Array<typeof t.deviceTokens.$inferInsert> = [];
  users.forEach((user, i) => {
    if (!(i % 12 === 5 || rng.chance(0.05))) return;
    const createdAt = date(Math.min(nowMs - HOUR, user.row.createdAt.getTime() + rng.int(1, 60) * DAY));
    const platform = rng.pick(['WEB', 'IOS', 'ANDROID'] as const);
    const token = platform === 'IOS' ? Buffer.from(rng.bytes(32)).toString('hex') : Buffer.from(rng.bytes(96)).toString('base64url');
    deviceTokens.push({ id: rng.uuid(), createdAt, updatedAt: createdAt, userId: user.row.id, token, platform });
  });

  // ---- What resolutions made claimable ---------------------------------------------------
  // Written last, so the random sequence of everything above is what it was before they existed.
  const allows = new Map(settings.map((s) => [s.userId, s.notificationPreferences]));
  const allowed = (userId: string, key: 'REWARD_CLAIMED' | 'REFUND_CLAIMED' | 'STREAK_REWARD_RECEIVED') =>
    allows.get(userId)!.is_notifications_enabled && allows.get(userId)![key];
  for (const reward of rewards) {
    const refund = reward.type === 'REFUND';
    const userId = reward.prediction.row.userId;
    if (reward.amount === 0n || !allowed(userId, refund ? 'REFUND_CLAIMED' : 'REWARD_CLAIMED')) continue;
    const amount = formatUnits(reward.amount);
    notify(
      userId,
      refund ? 'REFUND_AVAILABLE' : 'REWARD_AVAILABLE',
      refund ? 'Refund available' : 'Reward available',
      refund ? `${reward.pool.row.title} is refunded: ${amount} tokens are yours to claim.` : `${reward.pool.row.title} is resolved: you won ${amount} tokens. Claim them from the pool.`,
      { poolId: reward.pool.row.id, predictionId: reward.prediction.row.id, rewardId: reward.id, amount: Number(amount) },
      reward.createdAt!,
    );
  }
  for (const reward of streakRewards) {
    if (!allowed(reward.userId, 'STREAK_REWARD_RECEIVED')) continue;
    const amount = formatUnits(reward.amount);
    notify(
      reward.userId,
      'STREAK_REWARD_AVAILABLE',
      'Streak reward available',
      `Your streak in ${reward.streak.row.title} earned ${amount} tokens.`,
      { streakId: reward.streak.row.id, streakRewardId: reward.id, amount: Number(amount) },
      reward.createdAt,
    );
  }

  // ---- Write everything in one transaction ----------------------------------------------
  const predictionRows = pools.flatMap((p) => p.predictions.map((x) => x.row));
  await database.db.transaction(async (tx) => {
    const db = tx as unknown as Db;
    // Users and images reference each other: users first without avatars, then set them.
    await insertAll(db, t.users, users.map((u) => ({ ...u.row, avatarId: null })));
    await insertAll(db, t.images, images);
    for (let i = 0; i < avatars.length; i += INSERT_CHUNK) {
      const values = avatars.slice(i, i + INSERT_CHUNK).map((a) => sql`(${a.id}::uuid, ${a.avatarId}::uuid)`);
      await db.execute(sql`update ${t.users} set avatar_id = v.avatar_id from (values ${sql.join(values, sql`, `)}) as v(id, avatar_id) where ${t.users.id} = v.id`);
    }
    await insertAll(db, t.settings, settings);
    // Streaks and pools reference each other too (last_processed_pool_id).
    await insertAll(db, t.streaks, streaks.map((s) => ({ ...s.row, lastProcessedPoolId: null })));
    await insertAll(db, t.pools, pools.map((p) => p.row));
    const processed = streaks.filter((s) => s.row.lastProcessedPoolId);
    if (processed.length) {
      const values = processed.map((s) => sql`(${s.row.id}::uuid, ${s.row.lastProcessedPoolId}::uuid)`);
      await db.execute(sql`update ${t.streaks} set last_processed_pool_id = v.pool_id from (values ${sql.join(values, sql`, `)}) as v(id, pool_id) where ${t.streaks.id} = v.id`);
    }
    await insertAll(db, t.predictions, predictionRows);
    await insertAll(db, t.resolutions, resolutions);
    await insertAll(db, t.rewards, rewards.map(({ prediction: _p, pool: _pool, ...row }) => row));
    await insertAll(db, t.userStreaks, userStreaks);
    await insertAll(db, t.streakRewards, streakRewards.map(({ streak: _s, userId: _u, ...row }) => row));
    await insertAll(db, t.referralCodes, referralCodes);
    await insertAll(db, t.referralRedemptions, redemptions);
    await insertAll(db, t.notifications, notifications);
    await insertAll(db, t.deviceTokens, deviceTokens);
    await rebuildDerivedTables(db);
  });

  return {
    users: users.length,
    pools: pools.length,
    predictions: predictionRows.length,
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
}

// ---------------------------------------------------------------------------------------
// Pieces

function randomSpec(rng: Rng): { kind: PoolKind; crowd: Crowd; status: PoolStatus; closed: boolean } {
  const kind = rng.pick<PoolKind>(['open', 'open', 'open', 'resolved', 'resolved', 'resolved', 'resolved', 'ended', 'ended', 'upcoming']);
  const crowd: Crowd = kind === 'upcoming' ? 'none' : rng.chance(0.06) ? 'hot' : rng.chance(0.03) ? 'single' : 'normal';
  let status: PoolStatus = 'ACTIVE';
  if (kind === 'open' && rng.chance(0.1)) status = 'PREDICTIONS_FROZEN';
  if (kind === 'resolved') status = rng.chance(0.1) ? 'CLAIMS_FROZEN' : rng.chance(0.05) ? 'FROZEN' : 'ACTIVE';
  if (kind === 'ended' && rng.chance(0.1)) status = 'FROZEN';
  return { kind, crowd, status, closed: kind === 'resolved' && rng.chance(0.3) };
}

interface PoolParams {
  kind: PoolKind;
  asset: Asset;
  crowd: Crowd;
  createdBy: string;
  createdAt: Date;
  start: Date;
  end: Date;
  reference: Date;
  mint: string;
  streak: StreakSeed | null;
  status: PoolStatus;
  isClosed: boolean;
  nowMs: number;
  twin?: PoolSeed | null;
}

function makePool(rng: Rng, p: PoolParams): PoolSeed {
  const { asset, twin } = p;
  const scale = 10 ** asset.precision;
  // The asset drifts over time; each pool's range is centred on the price around its day.
  const center = asset.price * (1 + 0.12 * Math.sin(p.reference.getTime() / (23 * DAY) + asset.price) + 0.04 * (rng.next() - 0.5));
  const minTicks = Math.floor((center * 0.7 * scale) / asset.stepTicks) * asset.stepTicks;
  const steps = Math.max(100, Math.round((center * 0.6 * scale) / asset.stepTicks));
  const resultK = Math.round(steps * (0.5 + 0.17 * (2 * rng.next() - 1)));
  const minStake = twin ? twin.row.minStake! : BigInt(rng.pick([1, 1, 2, 5, 10])) * UNIT / (rng.chance(0.15) ? 2n : 1n);
  const maxStake = twin ? twin.row.maxStake! : minStake * BigInt(rng.pick([100, 250, 500, 1000]));
  const day = isoDay(p.reference);
  const precision = asset.precision;
  const fromTicks = (ticks: number) => ticks / scale;
  const resolvedAt = p.kind === 'resolved' ? date(p.reference.getTime() + rng.int(60, 6 * 60) * MINUTE) : null;
  const row: PoolSeed['row'] = {
    id: rng.uuid(),
    createdAt: p.createdAt,
    updatedAt: p.createdAt,
    createdBy: p.createdBy,
    imageId: null,
    streakId: p.streak?.row.id ?? null,
    title: `${asset.title} on ${day}`,
    description: rng.pick(DESCRIPTIONS)(asset, day),
    poolAccount: rng.address(),
    resolutionSource: asset.source,
    unit: 'USD',
    minStake,
    maxStake,
    maxRoi: twin ? twin.row.maxRoi! : rng.pick([1.5, 2, 3, 5, 10]),
    stakeTokenMint: p.mint,
    decimals: DECIMALS,
    minOutcome: fromTicks(minTicks),
    maxOutcome: fromTicks(minTicks + steps * asset.stepTicks),
    precision,
    step: fromTicks(asset.stepTicks),
    predictionStartDate: p.start,
    predictionEndDate: p.end,
    referenceDate: p.reference,
    status: p.status,
    isClosed: p.isClosed,
    indexedPredictionUpdateCount: 0,
    platformFeeRate: rng.pick([0.01, 0.02, 0.025, 0.03, 0.05]),
    totalVolume: 0n,
  };
  return { row, kind: p.kind, asset, crowd: p.crowd, minTicks, steps, resultK, resolvedAt, streak: p.streak, twinOf: twin ?? null, predictions: [] };
}

/** The grid value of index k, exact in decimal (integer ticks over a power of ten). */
function gridValue(pool: PoolSeed, k: number): number {
  return (pool.minTicks + k * pool.asset.stepTicks) / 10 ** pool.asset.precision;
}

/** 1 for an exact prediction, falling linearly to 0 at a quarter of the outcome range away. */
function precisionScore(pool: PoolSeed, k: number): number {
  const score = 1 - Math.abs(k - pool.resultK) / (pool.steps * 0.25);
  return Math.max(0, Math.round(score * 10_000) / 10_000);
}

/** A grid index whose score clears `minimum` with a margin. */
function qualifyingK(rng: Rng, pool: PoolSeed, minimum: number): number {
  const distance = Math.floor(rng.next() * 0.8 * (1 - minimum) * 0.25 * pool.steps);
  return clampK(pool, pool.resultK + (rng.chance(0.5) ? distance : -distance));
}

/** A grid index whose score falls short of `minimum` with a margin. */
function missingK(rng: Rng, pool: PoolSeed, minimum: number): number {
  const distance = Math.ceil((1.25 * (1 - minimum) * 0.25 + rng.next() * 0.15) * pool.steps);
  const up = pool.resultK + distance <= pool.steps && (pool.resultK - distance < 0 || rng.chance(0.5));
  return up ? pool.resultK + distance : pool.resultK - distance;
}

/** An ordinary prediction: skilled users tend to come close, the rest guess across the range. */
function crowdK(rng: Rng, pool: PoolSeed, skill: number): number {
  if (rng.next() < skill) return clampK(pool, pool.resultK + Math.round(pool.steps * 0.09 * (2 * rng.next() - 1)));
  return rng.int(0, pool.steps);
}

function clampK(pool: PoolSeed, k: number): number {
  return Math.max(0, Math.min(pool.steps, k));
}

/** Mostly small stakes, a few whales; always within [minStake, maxStake]. */
function randomStake(rng: Rng, minStake: bigint, maxStake: bigint): bigint {
  const multiple = BigInt(rng.pick([1, 1, 2, 2, 3, 5, 5, 10, 10, 20, 25, 50, 100, 250]));
  let stake = minStake * multiple;
  if (rng.chance(0.15)) stake += BigInt(rng.int(0, Number(minStake) - 1));
  return stake > maxStake ? maxStake : stake;
}

const minBig = (a: bigint, b: bigint) => (a < b ? a : b);

/**
 * What a streak persona does in the index-th resolved pool of its streak (index -1: a pool
 * not resolved yet). The scripted personas make every final state of the streak rule occur.
 */
function personaMove(rng: Rng, persona: Persona, index: number, resolved: number, required: number, skill: number): 'qualify' | 'miss' | 'absent' | 'free' {
  const k = resolved;
  const random = (): 'qualify' | 'miss' | 'absent' => (rng.chance(0.3) ? 'absent' : rng.chance(0.5) ? 'qualify' : 'miss');
  if (index < 0) {
    if (persona === 'noneNew') return 'free';
    return rng.chance(persona === 'regular' ? 0.6 : 0.5) ? 'free' : 'absent';
  }
  switch (persona) {
    case 'rewardedEnd': // a run of `required` ending at the last resolved pool
      if (index >= k - required) return 'qualify';
      if (index === k - required - 1) return 'absent';
      return random();
    case 'qualifiedEnd': // a miss, then one qualifying pool at the end
      if (index === k - 1) return 'qualify';
      if (index === k - 2) return 'miss';
      return random();
    case 'resetEnd': // a miss, one qualifying pool, then a miss at the end
      if (index === k - 1) return 'miss';
      if (index === k - 2) return 'qualify';
      if (index === k - 3) return 'miss';
      return random();
    case 'veteran': // rewarded early on, casual, and rewarded again at the end when the series has room
      if (index < required) return 'qualify';
      if (k >= 2 * required && index >= k - required) return 'qualify';
      return rng.chance(0.5) ? 'absent' : 'miss';
    case 'noneNew': // joins only once no resolved pool is left to process
      return 'absent';
    case 'noneMiss': // takes part, never comes close enough
      return rng.chance(0.2) ? 'absent' : 'miss';
    case 'regular':
      if (rng.chance(0.25)) return 'absent';
      return rng.next() < 0.35 + skill * 0.6 ? 'qualify' : 'miss';
  }
}

async function insertAll<TTable extends PgTable>(db: Db, table: TTable, rows: ReadonlyArray<TTable['$inferInsert']>): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await db.insert(table).values(rows.slice(i, i + INSERT_CHUNK) as TTable['$inferInsert'][]);
  }
}

