/**
 * The fixed GraphQL documents of the REST routes (trusted documents: written here once,
 * never built from a request). Embedded relations are chosen with `@include` variables,
 * so each route has exactly one document whatever its `includes`. A resource's fields are
 * its fragment, spread as `...PoolFields`: derived from its GraphQL type, its definition is
 * appended when the route is registered (resources.ts).
 */

/** A pool with the relations its `includes` variables ask for. */
const POOL_WITH_RELATIONS = `fragment PoolWithRelations on Pool {
  ...PoolFields
  user @include(if: $user) { ...UserFields }
  resolution @include(if: $resolution) { ...ResolutionFields }
  image @include(if: $image) { ...ImageFields }
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
}`;

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
}`;

/** Everything of a build's preview. */
export const PREVIEW_FIELDS = `fragment PreviewFields on TransactionPreview {
  succeeds failure { error reason logs } feePayer feeLamports rent { account payer lamports }
  instructions { program programId name accounts { role address } amount mint lamports memo }
  balanceChanges { account owner mint before after change lamportsBefore lamportsAfter lamportsChange }
}`;
