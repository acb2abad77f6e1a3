import { images, notifications, pools, predictions, resolutions, rewards, streakRewards, streaks, users } from '../../../schema/index.js';
import type { ObjectSpec, OneRelationSpec, RelationSpec } from '../../read/nested-read.js';
import { renderedPoolStatistics } from '../leaderboard/pool-statistics.rendered.js';
import { type UserPredictionsArguments, userPredictionsList } from '../predictions/prediction-lists.js';
import { parseNewestFirstPage } from './loaders.js';
import { NOTIFICATION_CONDITIONS, type NotificationFilter } from '../notifications/notification.loaders.js';
import { NEWEST_FIRST_LIST } from '../../read/keyset.js';

/** A one-to-one relation (read/nested-read.ts, RelationSpec) with its GraphQL field's description (the schema requires a real one). */
const one = (description: string, target: () => ObjectSpec, parentKey: string, childKey: string): OneRelationSpec => ({
  kind: 'one',
  target,
  parentKey,
  childKey,
  description,
});

/** A newest-first page of `target` rows whose `parentKey` (a property) is the parent's id, with its GraphQL field's description. */
const page = (description: string, target: () => ObjectSpec, parentKey: string): RelationSpec => ({
  kind: 'page',
  target,
  parentKey,
  description,
});

/**
 * The read graph: each API type read from a table, once. Its relations (by GraphQL field, joined on the columns named here) and token
 * amounts (by field, the base-units column of that name), with their fields' descriptions, are the one definition from which the
 * rendered reads' SQL, the loaders, the GraphQL fields (common/read-graph-fields.ts), the REST form's includes and embedded properties
 * (server/rest/) and docs/api.md's relations table (`npm run docs:relations`) all derive; adding a relation here adds all of those.
 * A plain column needs no entry. A type's relations are in its GraphQL fields' order.
 */
export const USER_READ: ObjectSpec = {
  table: users,
  relations: {
    avatar: one("The user's avatar image; null when they have none.", () => IMAGE_READ, 'avatarId', 'id'),
    pools: page('Pools the user created, newest first.', () => POOL_READ, 'createdBy'),
    // A filter or another order lists them as predictions/prediction-lists.ts says (so its module writes the field: user.resolver.ts).
    predictions: {
      kind: 'page',
      target: () => PREDICTION_READ,
      parentKey: 'userId',
      plain: (args) => args.filter == null && (args.sort ?? 'NEWEST') === 'NEWEST',
      listed: (args, now) => userPredictionsList(args as UserPredictionsArguments, now),
    },
  },
  // Private to the user (and admins): rendered only under `viewer`, the signed-in user's own row.
  owned: {
    notifications: {
      kind: 'page',
      target: () => NOTIFICATION_READ,
      parentKey: 'userId',
      plain: (args) => args.filter == null,
      listed: (args) => ({
        list: { ...NEWEST_FIRST_LIST, where: NOTIFICATION_CONDITIONS[args.filter as NotificationFilter] },
        page: parseNewestFirstPage(args),
      }),
    },
  },
};

export const NOTIFICATION_READ: ObjectSpec = {
  table: notifications,
  relations: { user: one('The user notified.', () => USER_READ, 'userId', 'id') },
};

export const IMAGE_READ: ObjectSpec = {
  table: images,
  relations: {
    user: one('The user who uploaded the image.', () => USER_READ, 'userId', 'id'),
    pools: page('Pools that show the image, newest first.', () => POOL_READ, 'imageId'),
  },
};

export const STREAK_READ: ObjectSpec = {
  table: streaks,
  amounts: {
    totalAccumulated: 'Tokens funded into the accumulator over the life of the streak, in whole tokens.',
    availableBalance: 'Funded tokens not yet granted as streak rewards, in whole tokens; rewards are paid from it.',
    onchainBalance: 'Balance of the accumulator account on-chain at lastSyncAt, in whole tokens.',
  },
  relations: {
    lastProcessedPool: one(
      'The last resolved pool the streak processor has applied; null before the first.',
      () => POOL_READ,
      'lastProcessedPoolId',
      'id',
    ),
    pools: page('Pools of the streak, newest first.', () => POOL_READ, 'streakId'),
  },
};

/**
 * A streak reward, private to its wallet's owner: no public type relates to it, so it renders only under the viewer's own root
 * (streakUserDetails). Its amount is in its streak's decimals (a reward row has none), as the resolver converts it.
 */
export const STREAK_REWARD_READ: ObjectSpec = {
  table: streakRewards,
  amounts: { amount: 'The reward, in whole tokens.' },
  amountDecimals: (a) => `(SELECT rs."decimals" FROM "streaks" rs WHERE rs."id" = ${a}."streak_id")`,
  relations: {
    streak: one('The streak that granted the reward.', () => STREAK_READ, 'streakId', 'id'),
    user: one('The rewarded user: the owner of userWalletAddress.', () => USER_READ, 'userWalletAddress', 'walletAddress'),
  },
};

export const RESOLUTION_READ: ObjectSpec = {
  table: resolutions,
  amounts: {
    protocolFee:
      'Protocol fee kept from the volume (volume × platformFeeRate, rounded down; 0 when every payout is a refund), in whole tokens.',
    leftover: 'Volume left after the protocol fee and every payout, in whole tokens.',
  },
  relations: { pool: one('The resolved pool.', () => POOL_READ, 'poolId', 'id') },
};

export const REWARD_READ: ObjectSpec = {
  table: rewards,
  amounts: { amount: 'Payout (or refund), in whole tokens.' },
  relations: { prediction: one('The prediction rewarded.', () => PREDICTION_READ, 'predictionId', 'id') },
};

export const POOL_READ: ObjectSpec = {
  table: pools,
  amounts: {
    minStake: 'Smallest stake, in whole tokens.',
    maxStake: 'Largest stake, in whole tokens.',
    totalVolume: 'Sum of all stakes, in whole tokens.',
  },
  relations: {
    user: one('The user who created the pool.', () => USER_READ, 'createdBy', 'id'),
    image: one("The pool's picture; null when it has none.", () => IMAGE_READ, 'imageId', 'id'),
    streak: one('The streak the pool counts towards; null when it is in none.', () => STREAK_READ, 'streakId', 'id'),
    resolution: one('The outcome and its fees; null until the pool is resolved.', () => RESOLUTION_READ, 'id', 'poolId'),
    predictions: page('Predictions on the pool, newest first.', () => PREDICTION_READ, 'poolId'),
  },
  computed: { statistics: renderedPoolStatistics },
  // The signed-in user's own prediction in the pool (a user predicts once per pool); its field is the viewer module's.
  viewerRows: { viewerPrediction: { target: () => PREDICTION_READ, parentKey: 'poolId', viewerKey: 'userId' } },
};

const PREDICTION_POOL = one('The pool predicted on.', () => POOL_READ, 'poolId', 'id');

export const PREDICTION_READ: ObjectSpec = {
  table: predictions,
  amounts: { stake: 'The staked amount, in whole tokens.' },
  relations: {
    user: one('The user who predicted.', () => USER_READ, 'userId', 'id'),
    pool: PREDICTION_POOL,
    reward: one('What the prediction earned; null until the pool is resolved.', () => REWARD_READ, 'id', 'predictionId'),
    streak: { ...one("The streak of the prediction's pool, if any.", () => STREAK_READ, 'streakId', 'id'), through: PREDICTION_POOL },
    // The back-reference a wallet's history needs beside each prediction: its pool's result, public as the pool's is.
    resolution: one("The outcome of the prediction's pool; null until the pool is resolved.", () => RESOLUTION_READ, 'poolId', 'poolId'),
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

/** Every type of the read graph by its GraphQL name: those of READS_BY_TYPE and a notification (read only under `viewer`). */
export const READ_GRAPH: Record<string, ObjectSpec> = { ...READS_BY_TYPE, Notification: NOTIFICATION_READ };

/** The GraphQL name of a type of the read graph. */
export function typeNameOf(spec: ObjectSpec): string {
  const name = Object.keys(READ_GRAPH).find((type) => READ_GRAPH[type] === spec);
  if (!name) throw new Error('a relation of the read graph leads to a type not in READ_GRAPH');
  return name;
}
