import {
  apiKeys,
  type ApiKeyRow,
  deviceTokens,
  type DeviceTokenRow,
  images,
  type ImageRow,
  pools,
  type PoolRow,
  predictions,
  type PredictionRow,
  referralCodes,
  type ReferralCodeRow,
  referralRedemptions,
  type ReferralRedemptionRow,
  refreshTokens,
  type RefreshTokenRow,
  settings,
  type SettingsRow,
  streaks,
  type StreakRow,
  users,
  type UserRow,
} from '../../schema/index.js';
import type { Db } from '../db/client.js';
import { groupLoader, loaderGraph, uniqueLoader } from './common/loaders.js';
import { createNotificationLoaders } from './notifications/notification.loaders.js';

/** Every module's loaders, created together once per request (per event for subscriptions). */
export function createLoaders(db: Db) {
  // By table and column, for the read graph's relations; the by-key loaders of its tables below are among them.
  const graph = loaderGraph(db);
  return {
    graph,
    userById: graph.unique<UserRow>(users, users.id),
    userByWalletAddress: graph.unique<UserRow>(users, users.walletAddress),
    imageById: graph.unique<ImageRow>(images, images.id),
    poolById: graph.unique<PoolRow>(pools, pools.id),
    predictionById: graph.unique<PredictionRow>(predictions, predictions.id),
    streakById: graph.unique<StreakRow>(streaks, streaks.id),
    settingsByUser: uniqueLoader<SettingsRow>(db, settings, settings.userId),
    deviceTokensByUser: groupLoader<DeviceTokenRow>(db, deviceTokens, deviceTokens.userId),
    sessionsByUser: groupLoader<RefreshTokenRow>(db, refreshTokens, refreshTokens.userId),
    apiKeysByUser: groupLoader<ApiKeyRow>(db, apiKeys, apiKeys.userId),
    referralRedemptionByUser: uniqueLoader<ReferralRedemptionRow>(db, referralRedemptions, referralRedemptions.userId),
    referralCodesByUser: groupLoader<ReferralCodeRow>(db, referralCodes, referralCodes.userId),
    referralCodeById: uniqueLoader<ReferralCodeRow>(db, referralCodes, referralCodes.id),
    redemptionsByReferralCode: groupLoader<ReferralRedemptionRow>(db, referralRedemptions, referralRedemptions.referralCodeId),
    ...createNotificationLoaders(db),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
