/**
 * The fixed GraphQL documents of the REST routes (trusted documents: written here once,
 * never built from a request). Embedded relations are chosen with `@include` variables,
 * so each route has exactly one document whatever its `includes`.
 */

export const USER_FIELDS = `fragment UserFields on User {
  id createdAt updatedAt lastSeenAt username hasSeenTour role walletAddress avatarId twitterUsername
}`;

export const STREAK_FIELDS = `fragment StreakFields on Streak {
  id createdAt updatedAt lastProcessedPoolId streakAccumulatorAccount title feePercentage payoutPercentage bump
  streakCountRequired minPrecisionScoreRequired totalAccumulated availableBalance onchainBalance lastSyncAt
}`;

export const REWARD_FIELDS = `fragment RewardFields on Reward { id createdAt updatedAt predictionId amount precisionScore isClaimed type }`;

export const PREDICTION_FIELDS = `fragment PredictionFields on Prediction {
  id createdAt updatedAt poolId userId poolAccount predictorAccount predictionAccount prediction precision
  stakeTokenMint stake decimals lastAppliedValueRevision lastAppliedStakeRevision isFeePayer isClosed bump lastSyncAt
}`;

export const STREAK_REWARD_FIELDS = `fragment StreakRewardFields on StreakReward { id createdAt updatedAt streakId userWalletAddress amount isClaimed }`;

const POOL_FIELDS = `fragment PoolFields on Pool {
  id createdAt updatedAt createdBy imageId streakId title description poolAccount resolutionSource unit
  minStake maxStake maxRoi stakeTokenMint decimals minOutcome maxOutcome precision step
  predictionStartDate predictionEndDate referenceDate status isClosed indexedPredictionUpdateCount platformFeeRate totalVolume
}`;

/** A pool with the relations its `includes` variables ask for. */
const POOL_WITH_RELATIONS = `fragment PoolWithRelations on Pool {
  ...PoolFields
  user @include(if: $user) { ...UserFields }
  resolution @include(if: $resolution) { id createdAt updatedAt poolId result median protocolFee leftover }
  image @include(if: $image) { id createdAt updatedAt userId url }
  streak @include(if: $streak) { ...StreakFields }
  predictions(first: $predictionsFirst) @include(if: $predictions) {
    nodes {
      ...PredictionFields
      user @include(if: $predictionsUser) { ...UserFields }
      reward @include(if: $predictionsReward) { ...RewardFields }
      streak @include(if: $predictionsStreak) { ...StreakFields }
      pool @include(if: $predictionsPool) { ...PoolFields }
    }
  }
}
${POOL_FIELDS}
${USER_FIELDS}
${STREAK_FIELDS}
${PREDICTION_FIELDS}
${REWARD_FIELDS}`;

/** The variables of {@link POOL_WITH_RELATIONS}, declared by every document that uses it. */
const INCLUDE_VARIABLES = `$user: Boolean! = false, $resolution: Boolean! = false, $image: Boolean! = false, $streak: Boolean! = false,
  $predictions: Boolean! = false, $predictionsFirst: Int = 1, $predictionsUser: Boolean! = false,
  $predictionsReward: Boolean! = false, $predictionsStreak: Boolean! = false, $predictionsPool: Boolean! = false`;

export const LIST_POOLS =
  `query RestListPools($first: Int, $offset: Int, $after: String, $filter: PoolFilter, $sort: PoolSort, $search: ` +
  `String, ${INCLUDE_VARIABLES}) {
  pools(first: $first, offset: $offset, after: $after, filter: $filter, sort: $sort, search: $search) {
    totalCount pageInfo { hasNextPage endCursor } nodes { ...PoolWithRelations }
  }
}
${POOL_WITH_RELATIONS}`;

export const GET_POOL = `query RestGetPool($id: ID!, ${INCLUDE_VARIABLES}) {
  pool(id: $id) { ...PoolWithRelations }
}
${POOL_WITH_RELATIONS}`;

export const STREAK_POOLS = `query RestStreakPools($streakId: ID!, $pastOnly: Boolean, $first: Int, $offset: Int, $after: String, ${INCLUDE_VARIABLES}) {
  streakPools(streakId: $streakId, pastOnly: $pastOnly, first: $first, offset: $offset, after: $after) {
    streak { ...StreakFields }
    pools { totalCount pageInfo { hasNextPage endCursor } nodes { ...PoolWithRelations } }
  }
}
${POOL_WITH_RELATIONS}`;

export const STREAK_USER_DETAILS = `query RestStreakUserDetails($streakId: ID!, $isClaimed: Boolean) {
  streakUserDetails(streakId: $streakId, isClaimed: $isClaimed) {
    streak { ...StreakFields }
    currentStreakCount lastStreakEvent lastPoolParticipatedAt currentStreakScores lastProcessedPoolId
    streakRewards { ...StreakRewardFields streak { ...StreakFields } }
  }
}
${STREAK_FIELDS}
${STREAK_REWARD_FIELDS}`;

/** Everything of a build's preview. */
export const PREVIEW_FIELDS = `fragment PreviewFields on TransactionPreview {
  succeeds failure { error reason logs } feePayer feeLamports rent { account payer lamports }
  instructions { program programId name accounts { role address } amount mint lamports memo }
  balanceChanges { account owner mint before after change lamportsBefore lamportsAfter lamportsChange }
}`;
