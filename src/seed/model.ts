import type * as t from '../../schema/index.js';
import type { Rng } from './random.js';
import type { Asset } from './vocabulary.js';

/**
 * Demo data: one deterministic generator for `npm start`, `npm run db:seed`, tests and
 * benchmarks. A seeded PRNG drives every value (UUIDs and addresses included) and every
 * date is relative to `now`, so the same options give the same rows.
 *
 * The data is internally consistent: pool volumes are the sums of their stakes, rewards
 * follow each resolution, and the user-streak state is what the streak rule (docs/design.md)
 * computes when the resolved pools of a streak are processed in reference-date order.
 * Every pool state the API filters on exists at TEST_SIZE already.
 */
export interface SeedOptions {
  users?: number;
  pools?: number;
  streaks?: number;
  seed?: number;
  now?: Date;
  /** Told as each stage makes its rows and as each batch of a table is written. */
  onProgress?: (progress: SeedProgress) => void;
}

/** `done` of `total` rows of `stage` (a stage of generation, or a table being written). */
export interface SeedProgress {
  stage: string;
  done: number;
  total: number;
}

export type SeedSize = Required<Omit<SeedOptions, 'seed' | 'now' | 'onProgress'>>;

/**
 * Up to this many users, a crowd is drawn from every eligible user (a draw per user, the
 * demo and test data as they have always been); above it, each crowd costs draws in
 * proportion to its own size, so seeding time follows the rows written, not pools times users.
 */
export const EXACT_SAMPLING_LIMIT = 1_000;

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

/** What every stage of the seeder shares; stages draw from `rng` in a fixed order. */
export interface SeedContext {
  rng: Rng;
  size: SeedSize;
  now: Date;
  nowMs: number;
  /** Midnight UTC of `now`, in ms. */
  today: number;
  /** The stake token's mint address. */
  mint: string;
}

export type PoolKind = 'open' | 'upcoming' | 'ended' | 'resolved';
export type Crowd = 'none' | 'single' | 'hot' | 'normal';
export type PoolStatus = t.PoolRow['status'];

export interface UserSeed {
  row: t.NewUserRow & { id: string; createdAt: Date; walletAddress: string; username: string };
  /** The user's token account of the stake mint (prediction.predictor_account). */
  tokenAccount: string;
  /** How often the user takes part, and how close their predictions come. */
  activity: number;
  skill: number;
}

export interface PoolSeed {
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

export interface PredictionSeed {
  row: t.NewPredictionRow & { id: string; createdAt: Date; userId: string; stake: bigint };
  k: number;
  score: number | null;
}

export interface StreakSeed {
  row: t.NewStreakRow & { id: string; createdAt: Date };
  asset: Asset;
  pools: PoolSeed[];
}

export type Persona = 'rewardedEnd' | 'qualifiedEnd' | 'resetEnd' | 'veteran' | 'noneNew' | 'noneMiss' | 'regular';

export type RewardSeed = t.NewRewardRow & {
  id: string;
  amount: bigint;
  isClaimed: boolean;
  updatedAt: Date;
  type: 'REWARD' | 'REFUND';
  prediction: PredictionSeed;
  pool: PoolSeed;
};
export type StreakRewardSeed = t.NewStreakRewardRow & {
  id: string;
  createdAt: Date;
  amount: bigint;
  isClaimed: boolean;
  streak: StreakSeed;
  userId: string;
};
