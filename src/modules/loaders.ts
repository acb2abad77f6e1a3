import type { Db } from '../db/client.js';
import { loaderGraph } from './common/loaders.js';
import { createNotificationLoaders } from './notifications/notification.loaders.js';
import { createPoolLoaders } from './pools/pool.loaders.js';
import { createPredictionLoaders } from './predictions/prediction.loaders.js';
import { createStreakLoaders } from './streaks/streak.loaders.js';
import { createUserLoaders } from './users/user.loaders.js';

/** Every module's loaders, created together once per request (per event for subscriptions). */
export function createLoaders(db: Db) {
  const graph = loaderGraph(db);
  return {
    /** The loaders by table and column, which the read graph's relations use (the named ones below are among them). */
    graph,
    ...createUserLoaders(db, graph),
    ...createNotificationLoaders(db),
    ...createPoolLoaders(graph),
    ...createPredictionLoaders(graph),
    ...createStreakLoaders(graph),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
