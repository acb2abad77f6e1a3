import { predictions, type PredictionRow, rewards, type RewardRow } from '../../../schema/index.js';
import type { LoaderGraph } from '../common/loaders.js';

export function createPredictionLoaders(graph: LoaderGraph) {
  return {
    predictionById: graph.unique<PredictionRow>(predictions, predictions.id),
    rewardByPredictionId: graph.unique<RewardRow>(rewards, rewards.predictionId),
    /** How many predictions each pool has (totalCount of a page a read plan did not count). */
    predictionCountByPool: graph.count(predictions, predictions.poolId),
    predictionsByPool: graph.pages<PredictionRow>(predictions, predictions.poolId),
    predictionsByUser: graph.pages<PredictionRow>(predictions, predictions.userId),
  };
}
