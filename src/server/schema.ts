import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { PoolResolver, ResolutionResolver } from '../modules/pools/pool.resolver.js';
import { PredictionResolver, RewardResolver } from '../modules/predictions/prediction.resolver.js';
import { StreakResolver, StreakRewardResolver } from '../modules/streaks/streak.resolver.js';
import { ApiKeyResolver, AuthResolver, RefreshTokenResolver } from '../modules/auth/auth.resolver.js';
import {
  DeviceTokenResolver,
  ImageResolver,
  NotificationResolver,
  ReferralCodeResolver,
  ReferralRedemptionResolver,
  SettingsResolver,
  UserResolver,
} from '../modules/users/user.resolver.js';

let schema: Promise<GraphQLSchema> | undefined;

/** The executable schema, built once per process. */
export function getSchema(): Promise<GraphQLSchema> {
  schema ??= buildSchema({
    resolvers: [
      PoolResolver,
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
    ],
    // Arguments are validated by the services, which know the domain's rules.
    validate: false,
  });
  return schema;
}
