import { predictions, type PredictionRow, rewards, type RewardRow } from '../../../schema/index.js';
import type { Db } from '../../db/client.js';
import { childPageLoader, countLoader, uniqueLoader } from '../common/loaders.js';

export function createPredictionLoaders(db: Db) {
  const predictionCountByPool = countLoader(db, predictions, predictions.poolId);
  return {
    predictionById: uniqueLoader<PredictionRow>(db, predictions, predictions.id),
    rewardByPredictionId: uniqueLoader<RewardRow>(db, rewards, rewards.predictionId),
    /** How many predictions each pool has (totalCount of a page a read plan did not count). */
    predictionCountByPool,
    predictionsByPool: childPageLoader<PredictionRow>(db, predictions, predictions.poolId, { counts: predictionCountByPool }),
    predictionsByUser: childPageLoader<PredictionRow>(db, predictions, predictions.userId),
  };
}
