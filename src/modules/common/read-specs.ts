import { images, pools, predictions, resolutions, rewards, streaks, users } from '../../../schema/index.js';
import type { ObjectSpec } from '../../db/nested-read.js';

/**
 * The relations a read plan may fold into one statement, by the field that answers them.
 * Every relation listed here has a field resolver that takes the prefetched value first
 * (`prefetchedOne` / `prefetchedPage` in common/loaders.ts); any other relation is loaded
 * by its DataLoader, and its parent row is then read whole.
 */
export const USER_READ: ObjectSpec = { table: users, relations: {} };
export const IMAGE_READ: ObjectSpec = { table: images, relations: {} };
export const STREAK_READ: ObjectSpec = { table: streaks, relations: {} };
export const RESOLUTION_READ: ObjectSpec = { table: resolutions, relations: {} };
export const REWARD_READ: ObjectSpec = { table: rewards, relations: {} };

export const POOL_READ: ObjectSpec = {
  table: pools,
  relations: {
    user: { kind: 'one', target: () => USER_READ, on: (p, c) => `${c}."id" = ${p}."created_by"` },
    image: { kind: 'one', target: () => IMAGE_READ, on: (p, c) => `${c}."id" = ${p}."image_id"` },
    streak: { kind: 'one', target: () => STREAK_READ, on: (p, c) => `${c}."id" = ${p}."streak_id"` },
    resolution: { kind: 'one', target: () => RESOLUTION_READ, on: (p, c) => `${c}."pool_id" = ${p}."id"` },
    predictions: { kind: 'page', target: () => PREDICTION_READ, parentColumn: 'pool_id' },
  },
};

export const PREDICTION_READ: ObjectSpec = {
  table: predictions,
  relations: {
    user: { kind: 'one', target: () => USER_READ, on: (p, c) => `${c}."id" = ${p}."user_id"` },
    reward: { kind: 'one', target: () => REWARD_READ, on: (p, c) => `${c}."prediction_id" = ${p}."id"` },
    pool: { kind: 'one', target: () => POOL_READ, on: (p, c) => `${c}."id" = ${p}."pool_id"` },
  },
};
