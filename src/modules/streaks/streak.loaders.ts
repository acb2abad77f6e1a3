import { streaks, type StreakRow } from '../../../schema/index.js';
import type { LoaderGraph } from '../common/loaders.js';

export function createStreakLoaders(graph: LoaderGraph) {
  return {
    streakById: graph.unique<StreakRow>(streaks, streaks.id),
  };
}
