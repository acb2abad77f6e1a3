import type { Db } from '../db/client.js';
import { createNotificationLoaders } from './notifications/notification.loaders.js';
import { createPoolLoaders } from './pools/pool.loaders.js';
import { createPredictionLoaders } from './predictions/prediction.loaders.js';
import { createStreakLoaders } from './streaks/streak.loaders.js';
import { createUserLoaders } from './users/user.loaders.js';

/** Every module's loaders, created together once per request (per event for subscriptions). */
export function createLoaders(db: Db) {
  return {
    ...createUserLoaders(db),
    ...createNotificationLoaders(db),
    ...createPoolLoaders(db),
    ...createPredictionLoaders(db),
    ...createStreakLoaders(db),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
