import 'reflect-metadata';
import { type GraphQLSchema, isObjectType } from 'graphql';
import { buildSchema } from 'type-graphql';
import { OperatorResolver } from '../modules/pools/operator.resolver.js';
import { PoolImageResolver } from '../modules/images/image.resolver.js';
import { ReferralCodeOperatorResolver } from '../modules/referrals/referral-operator.resolver.js';
import { StreakOperatorResolver } from '../modules/streaks/streak-operator.resolver.js';
import { StreakFundingResolver } from '../modules/streaks/streak-funding.resolver.js';
import { UserLookupResolver } from '../modules/discovery/user-lookup.resolver.js';
import { LeaderboardResolver } from '../modules/leaderboard/leaderboard.resolver.js';
import { NodeResolver } from '../modules/node/node.resolver.js';
import { withNodeTypesResolved } from '../modules/node/node.type.js';
import { PoolStatisticsResolver } from '../modules/leaderboard/pool-statistics.resolver.js';
import { PoolViewerResolver, UserMoneyResolver, UserTransactionResolver } from '../modules/viewer/viewer-money.resolver.js';
import { PoolResolver, ResolutionResolver } from '../modules/pools/pool.resolver.js';
import { PredictionResolver, RewardResolver } from '../modules/predictions/prediction.resolver.js';
import { StreakResolver, StreakRewardResolver } from '../modules/streaks/streak.resolver.js';
import { ApiKeyResolver, AuthResolver, RefreshTokenResolver } from '../modules/auth/auth.resolver.js';
import { SubscriptionResolver, TransactionStatusUpdateResolver } from '../modules/events/subscription.resolver.js';
import { DevTokensResolver, TransactionResolver } from '../modules/transactions/transaction.resolver.js';
import { ViewerNotificationResolver } from '../modules/notifications/notification.resolver.js';
import {
  DeviceTokenResolver,
  ImageResolver,
  NotificationResolver,
  ReferralCodeResolver,
  ReferralRedemptionResolver,
  SettingsResolver,
  UserResolver,
} from '../modules/users/user.resolver.js';

const schemas = new Map<boolean, Promise<GraphQLSchema>>();

/**
 * The executable schema, built once per process. `devTokens` adds `requestDevTokens`, which
 * exists only where the chain is a devchain; the committed SDL is the embedded default's.
 */
export function getSchema({ devTokens = true }: { devTokens?: boolean } = {}): Promise<GraphQLSchema> {
  const cached = schemas.get(devTokens);
  if (cached) return cached;
  const schema = buildSchema({
    resolvers: [
      PoolResolver,
      OperatorResolver,
      ResolutionResolver,
      PredictionResolver,
      RewardResolver,
      StreakResolver,
      StreakRewardResolver,
      UserResolver,
      ImageResolver,
      SettingsResolver,
      ReferralCodeResolver,
      ReferralRedemptionResolver,
      NotificationResolver,
      DeviceTokenResolver,
      ViewerNotificationResolver,
      AuthResolver,
      ApiKeyResolver,
      RefreshTokenResolver,
      TransactionResolver,
      SubscriptionResolver,
      TransactionStatusUpdateResolver,
      StreakOperatorResolver,
      StreakFundingResolver,
      ReferralCodeOperatorResolver,
      PoolImageResolver,
      UserMoneyResolver,
      UserTransactionResolver,
      PoolViewerResolver,
      UserLookupResolver,
      LeaderboardResolver,
      PoolStatisticsResolver,
      NodeResolver,
      ...(devTokens ? [DevTokensResolver] : []),
    ],
    // Arguments are validated by the services, which know the domain's rules.
    validate: false,
    // Every subscription opens its own stream of the event hub (`subscribe`), so type-graphql's
    // topic-based pub/sub is never used; it insists on one being given all the same.
    pubSub: {
      publish: () => {
        throw new Error('topics are not used: services publish through the event hub');
      },
      subscribe: () => {
        throw new Error('topics are not used: subscriptions follow the event hub');
      },
    },
  });
  const ready = schema.then(withLazyFieldsResolved).then(withNodeTypesResolved).then(withRootTypesDescribed);
  schemas.set(devTokens, ready);
  return ready;
}

/** type-graphql has no option for the root types' descriptions, which explorers show. */
const ROOT_TYPE_DESCRIPTIONS = {
  query: 'Reads: pools, streaks, users, the leaderboard and the signed-in viewer.',
  mutation: "Changes: sign-in, the two-step chain transactions, claims, the viewer's profile and notifications, and the operators' (ADMIN) pools, streaks and referral codes.",
  subscription: 'Live updates over WebSocket (graphql-ws, same path as HTTP): notifications, pools and transaction status.',
} as const;

function withRootTypesDescribed(schema: GraphQLSchema): GraphQLSchema {
  const roots = { query: schema.getQueryType(), mutation: schema.getMutationType(), subscription: schema.getSubscriptionType() };
  for (const [operation, type] of Object.entries(roots)) {
    if (type) type.description = ROOT_TYPE_DESCRIPTIONS[operation as keyof typeof ROOT_TYPE_DESCRIPTIONS];
  }
  return schema;
}

/**
 * Compiled execution (graphql-jit) reads a field without a resolver inline, as a plain
 * value. Every runtime value's fields are plain except a connection's `totalCount`, which
 * is counted only when selected (a promise, see Page in modules/common/pagination.ts): it
 * gets a resolver, so it is awaited.
 */
function withLazyFieldsResolved(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type)) continue;
    const field = type.getFields().totalCount;
    if (field && !field.resolve) field.resolve = (page: { totalCount: unknown }) => page.totalCount;
  }
  return schema;
}
