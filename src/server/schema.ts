import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { OperatorResolver } from '../modules/pools/operator.resolver.js';
import { PoolResolver, ResolutionResolver } from '../modules/pools/pool.resolver.js';
import { PredictionResolver, RewardResolver } from '../modules/predictions/prediction.resolver.js';
import { StreakResolver, StreakRewardResolver } from '../modules/streaks/streak.resolver.js';
import { ApiKeyResolver, AuthResolver, RefreshTokenResolver } from '../modules/auth/auth.resolver.js';
import { DevTokensResolver, TransactionResolver } from '../modules/transactions/transaction.resolver.js';
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
      AuthResolver,
      ApiKeyResolver,
      RefreshTokenResolver,
      TransactionResolver,
      ...(devTokens ? [DevTokensResolver] : []),
    ],
    // Arguments are validated by the services, which know the domain's rules.
    validate: false,
  });
  schemas.set(devTokens, schema);
  return schema;
}
