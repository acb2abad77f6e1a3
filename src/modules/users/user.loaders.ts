import {
  apiKeys,
  type ApiKeyRow,
  deviceTokens,
  type DeviceTokenRow,
  images,
  type ImageRow,
  referralCodes,
  type ReferralCodeRow,
  referralRedemptions,
  type ReferralRedemptionRow,
  refreshTokens,
  type RefreshTokenRow,
  settings,
  type SettingsRow,
  users,
  type UserRow,
} from '../../../schema/index.js';
import type { Db } from '../../db/client.js';
import { groupLoader, type LoaderGraph, uniqueLoader } from '../common/loaders.js';

export function createUserLoaders(db: Db, graph: LoaderGraph) {
  return {
    userById: graph.unique<UserRow>(users, users.id),
    userByWalletAddress: graph.unique<UserRow>(users, users.walletAddress),
    imageById: graph.unique<ImageRow>(images, images.id),
    settingsByUser: uniqueLoader<SettingsRow>(db, settings, settings.userId),
    deviceTokensByUser: groupLoader<DeviceTokenRow>(db, deviceTokens, deviceTokens.userId),
    sessionsByUser: groupLoader<RefreshTokenRow>(db, refreshTokens, refreshTokens.userId),
    apiKeysByUser: groupLoader<ApiKeyRow>(db, apiKeys, apiKeys.userId),
    referralRedemptionByUser: uniqueLoader<ReferralRedemptionRow>(db, referralRedemptions, referralRedemptions.userId),
    referralCodesByUser: groupLoader<ReferralCodeRow>(db, referralCodes, referralCodes.userId),
    referralCodeById: uniqueLoader<ReferralCodeRow>(db, referralCodes, referralCodes.id),
    redemptionsByReferralCode: groupLoader<ReferralRedemptionRow>(db, referralRedemptions, referralRedemptions.referralCodeId),
  };
}
