import { tokensJson } from '../../db/rendered-columns.js';

/**
 * A streak reward's `amount` rendered over the reward's row `a` (the read graph's computed
 * field, common/read-specs.ts): its base units in whole tokens at its streak's decimals, as
 * the resolver converts them (a reward row has no decimals of its own).
 */
export const renderedStreakRewardAmount = () => (a: string) =>
  tokensJson(`${a}."amount"`, `(SELECT rs."decimals" FROM "streaks" rs WHERE rs."id" = ${a}."streak_id")`);
