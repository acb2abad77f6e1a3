import { predictions, type PredictionRow } from '../../../schema/index.js';
import type { LoaderGraph } from '../common/loaders.js';

export function createPredictionLoaders(graph: LoaderGraph) {
  return {
    predictionById: graph.unique<PredictionRow>(predictions, predictions.id),
  };
}
