import { predictions, type PredictionRow, rewards, type RewardRow } from '../../../schema/index.js';
import type { Db } from '../../db/client.js';
import { childPageLoader, uniqueLoader } from '../common/loaders.js';

export function createPredictionLoaders(db: Db) {
  return {
    predictionById: uniqueLoader<PredictionRow>(db, predictions, predictions.id),
    rewardByPredictionId: uniqueLoader<RewardRow>(db, rewards, rewards.predictionId),
    predictionsByPool: childPageLoader<PredictionRow>(db, predictions, predictions.poolId),
    predictionsByUser: childPageLoader<PredictionRow>(db, predictions, predictions.userId),
  };
}
