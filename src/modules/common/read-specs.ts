import { images, notifications, pools, predictions, resolutions, rewards, streakRewards, streaks, users } from '../../../schema/index.js';
import { oneRelation, oneRelationThrough, type ObjectSpec, pageRelation } from '../../db/nested-read.js';
import { renderedPoolStatistics } from '../leaderboard/pool-statistics.rendered.js';

/**
 * The read graph: each type of the API read from a table, once. A type's relations (by the
 * GraphQL field answering them, joined on the columns named here) and its token amounts
 * (by field, to the base-units column) are the one definition from which the read plans'
 * SQL, the rendered reads' JSON, the relations' loaders and the REST form's description of
 * amounts (server/rest/resources.ts) all derive; the field
 * resolvers read a relation through `relationOne` / `relationPage` (common/loaders.ts),
 * prefetched when a plan read it and through the derived loader otherwise. A field that
 * is a plain column needs no entry: the table's columns are its definition.
 */
export const USER_READ: ObjectSpec = {
  table: users,
  relations: {
    avatar: oneRelation(() => IMAGE_READ, 'avatarId', 'id'),
    pools: pageRelation(() => POOL_READ, 'createdBy'),
    // Only the plain newest-first page; a filter or another order is the service's query.
    predictions: pageRelation(
      () => PREDICTION_READ,
      'userId',
      (args) => args.filter == null && (args.sort ?? 'NEWEST') === 'NEWEST',
    ),
  },
  // Private to the user (and admins): rendered only under `viewer`, the signed-in user's own row.
  owned: {
    notifications: pageRelation(
      () => NOTIFICATION_READ,
      'userId',
      (args) => args.filter == null,
    ),
  },
};

export const NOTIFICATION_READ: ObjectSpec = { table: notifications, relations: { user: oneRelation(() => USER_READ, 'userId', 'id') } };

export const IMAGE_READ: ObjectSpec = {
  table: images,
  relations: {
    user: oneRelation(() => USER_READ, 'userId', 'id'),
    pools: pageRelation(() => POOL_READ, 'imageId'),
  },
};

export const STREAK_READ: ObjectSpec = {
  table: streaks,
  amounts: { totalAccumulated: 'totalAccumulated', availableBalance: 'availableBalance', onchainBalance: 'onchainBalance' },
  relations: {
    lastProcessedPool: oneRelation(() => POOL_READ, 'lastProcessedPoolId', 'id'),
    pools: pageRelation(() => POOL_READ, 'streakId'),
  },
};

/**
 * A streak reward, private to the owner of its wallet: no public type has it as a relation,
 * so it renders only where the root reads the viewer's own (streakUserDetails). Its amount
 * is in its streak's decimals (a reward row has none of its own), as the resolver converts it.
 */
export const STREAK_REWARD_READ: ObjectSpec = {
  table: streakRewards,
  amounts: { amount: 'amount' },
  amountDecimals: (a) => `(SELECT rs."decimals" FROM "streaks" rs WHERE rs."id" = ${a}."streak_id")`,
  relations: {
    streak: oneRelation(() => STREAK_READ, 'streakId', 'id'),
    user: oneRelation(() => USER_READ, 'userWalletAddress', 'walletAddress'),
  },
};

export const RESOLUTION_READ: ObjectSpec = {
  table: resolutions,
  amounts: { protocolFee: 'protocolFee', leftover: 'leftover' },
  relations: { pool: oneRelation(() => POOL_READ, 'poolId', 'id') },
};

export const REWARD_READ: ObjectSpec = {
  table: rewards,
  amounts: { amount: 'amount' },
  relations: { prediction: oneRelation(() => PREDICTION_READ, 'predictionId', 'id') },
};

export const POOL_READ: ObjectSpec = {
  table: pools,
  amounts: { minStake: 'minStake', maxStake: 'maxStake', totalVolume: 'totalVolume' },
  relations: {
    user: oneRelation(() => USER_READ, 'createdBy', 'id'),
    image: oneRelation(() => IMAGE_READ, 'imageId', 'id'),
    streak: oneRelation(() => STREAK_READ, 'streakId', 'id'),
    resolution: oneRelation(() => RESOLUTION_READ, 'id', 'poolId'),
    predictions: pageRelation(() => PREDICTION_READ, 'poolId'),
  },
  computed: { statistics: renderedPoolStatistics },
};

const PREDICTION_POOL = oneRelation(() => POOL_READ, 'poolId', 'id');

export const PREDICTION_READ: ObjectSpec = {
  table: predictions,
  amounts: { stake: 'stake' },
  relations: {
    user: oneRelation(() => USER_READ, 'userId', 'id'),
    reward: oneRelation(() => REWARD_READ, 'id', 'predictionId'),
    pool: PREDICTION_POOL,
    streak: oneRelationThrough(PREDICTION_POOL, () => STREAK_READ, 'streakId', 'id'),
  },
};

/** The read of each GraphQL object type that has one, by type name. */
export const READS_BY_TYPE: Record<string, ObjectSpec> = {
  User: USER_READ,
  Image: IMAGE_READ,
  Streak: STREAK_READ,
  StreakReward: STREAK_REWARD_READ,
  Resolution: RESOLUTION_READ,
  Reward: REWARD_READ,
  Pool: POOL_READ,
  Prediction: PREDICTION_READ,
};
