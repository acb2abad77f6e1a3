import { pools, type PoolRow, resolutions, type ResolutionRow } from '../../../schema/index.js';
import type { Db } from '../../db/client.js';
import { childPageLoader, uniqueLoader } from '../common/loaders.js';

export function createPoolLoaders(db: Db) {
  return {
    poolById: uniqueLoader<PoolRow>(db, pools, pools.id),
    resolutionByPoolId: uniqueLoader<ResolutionRow>(db, resolutions, resolutions.poolId),
    poolsByCreator: childPageLoader<PoolRow>(db, pools, pools.createdBy),
    poolsByStreak: childPageLoader<PoolRow>(db, pools, pools.streakId),
  };
}
