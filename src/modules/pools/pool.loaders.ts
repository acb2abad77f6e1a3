import { pools, type PoolRow, resolutions, type ResolutionRow } from '../../../schema/index.js';
import type { LoaderGraph } from '../common/loaders.js';

export function createPoolLoaders(graph: LoaderGraph) {
  return {
    poolById: graph.unique<PoolRow>(pools, pools.id),
    resolutionByPoolId: graph.unique<ResolutionRow>(resolutions, resolutions.poolId),
    poolsByCreator: graph.pages<PoolRow>(pools, pools.createdBy),
    poolsByStreak: graph.pages<PoolRow>(pools, pools.streakId),
  };
}
