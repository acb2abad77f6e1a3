import { pools, type PoolRow } from '../../../schema/index.js';
import type { LoaderGraph } from '../common/loaders.js';

export function createPoolLoaders(graph: LoaderGraph) {
  return {
    poolById: graph.unique<PoolRow>(pools, pools.id),
  };
}
