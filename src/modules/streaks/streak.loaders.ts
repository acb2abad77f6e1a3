import { streaks, type StreakRow } from '../../../schema/index.js';
import type { Db } from '../../db/client.js';
import { uniqueLoader } from '../common/loaders.js';

export function createStreakLoaders(db: Db) {
  return {
    streakById: uniqueLoader<StreakRow>(db, streaks, streaks.id),
  };
}
