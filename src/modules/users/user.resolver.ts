import { Arg, Args, Ctx, Directive, Field, FieldResolver, ID, InputType, Mutation, Query, Resolver, Root } from 'type-graphql';
import { PRIVATE } from '../common/cache-hints.js';
import type { DeviceTokenRow, PredictionRow, ReferralCodeRow, ReferralRedemptionRow, SettingsRow, UserRow } from '../../../schema/index.js';
import type { ResolverContext } from '../context.js';
import { ApiKey, RefreshToken } from '../auth/auth.type.js';
import { PRIVATE_FIELD } from '../auth/viewer.js';
import { isPlainPage, parseNewestFirstPage, relationPage } from '../common/loaders.js';
import { USER_READ } from '../common/read-specs.js';
import { ReadsPageArguments } from '../common/page-arguments.js';
import { ReadGraphFields } from '../common/read-graph-fields.js';
import { NotificationsArgs } from '../notifications/notification.args.js';
import { DeviceToken, Notification, NotificationConnection } from '../notifications/notification.type.js';
import { PredictionConnection } from '../predictions/prediction.type.js';
import { listUserNotifications } from '../notifications/notification.service.js';
import {
  referralCodeRedemptions,
  userApiKeys,
  userDeviceTokens,
  userEmail,
  userReferralCodes,
  userReferralRedemption,
  userSessions,
  userSettings,
} from './private.service.js';
import { findViewer, redeemReferralCode, updateProfile } from './user.service.js';
import { userPredictions } from '../viewer/history.service.js';
import { parseUserPredictionsPage } from '../predictions/prediction-lists.js';
import { UserPredictionsArgs } from '../viewer/viewer-money.type.js';
import { Image, NotificationPreferences, ReferralCode, ReferralRedemption, Settings, User } from './user.type.js';

@InputType({ description: "Changes to the viewer's profile; omitted fields stay as they are." })
class UpdateProfileInput {
  @Field(() => String, { nullable: true, description: '3 to 32 letters, digits or underscores; unique.' })
  username?: string | null;

  @Field(() => ID, { nullable: true, description: 'One of your own images; null removes the avatar.' })
  avatarId?: string | null;

  @Field(() => Boolean, { nullable: true, description: "Marks the app's introductory tour as seen (or not)." })
  hasSeenTour?: boolean | null;
}

/**
 * Also a user's relations, from the read graph (avatar, pools, ...), before `predictions`,
 * whose filters and orders (predictions/prediction-lists.ts) the history service reads: written here.
 */
@ReadGraphFields()
@Resolver(() => User)
export class UserResolver {
  @Directive(PRIVATE)
  @Query(() => User, { nullable: true, description: 'The signed-in user (UNAUTHENTICATED when signed out).' })
  viewer(@Ctx() ctx: ResolverContext) {
    return findViewer(ctx);
  }

  @Mutation(() => User, { description: "Changes the viewer's username, avatar or tour flag; returns the updated user (signed in)." })
  updateProfile(
    @Arg('input', () => UpdateProfileInput, { description: 'The fields to change.' }) input: UpdateProfileInput,
    @Ctx() ctx: ResolverContext,
  ) {
    return updateProfile(ctx, input);
  }

  @Mutation(() => ReferralRedemption, { description: 'Redeems a referral code: once per user, never your own.' })
  redeemReferralCode(
    @Arg('code', () => String, { description: 'The referral code, as shared (case does not matter).' }) code: string,
    @Ctx() ctx: ResolverContext,
  ) {
    return redeemReferralCode(ctx, code);
  }

  @ReadsPageArguments(parseUserPredictionsPage)
  @FieldResolver(() => PredictionConnection, {
    description: "The user's predictions, newest first unless sorted otherwise; filtered by lifecycle when asked.",
  })
  predictions(@Root() user: UserRow, @Args(() => UserPredictionsArgs) args: UserPredictionsArgs, @Ctx() ctx: ResolverContext) {
    if (isPlainPage(USER_READ, 'predictions', args))
      return relationPage<PredictionRow>(ctx.loaders.graph, user, USER_READ, 'predictions', args);
    return userPredictions(ctx, user.id, args);
  }

  // Private fields: the user's own (or an admin's) to read; null and FORBIDDEN for anyone else.
  // The service functions check the viewer; these only translate.

  @Directive(PRIVATE)
  @FieldResolver(() => String, { nullable: true, description: `${PRIVATE_FIELD} Null too when no email is on record.` })
  email(@Root() user: UserRow, @Ctx() ctx: ResolverContext) {
    return userEmail(ctx, user);
  }

  @Directive(PRIVATE)
  @FieldResolver(() => Settings, { nullable: true, description: `The user's settings. ${PRIVATE_FIELD}` })
  settings(@Root() user: UserRow, @Ctx() ctx: ResolverContext) {
    return userSettings(ctx, user.id);
  }

  @ReadsPageArguments(parseNewestFirstPage)
  @Directive(PRIVATE)
  @FieldResolver(() => NotificationConnection, { nullable: true, description: `The user's notifications, newest first. ${PRIVATE_FIELD}` })
  notifications(@Root() user: UserRow, @Args(() => NotificationsArgs) args: NotificationsArgs, @Ctx() ctx: ResolverContext) {
    return listUserNotifications(ctx, user.id, args, args.filter);
  }

  @Directive(PRIVATE)
  @FieldResolver(() => [DeviceToken], {
    nullable: true,
    description: `Devices registered for the user's push notifications, oldest first. ${PRIVATE_FIELD}`,
  })
  deviceTokens(@Root() user: UserRow, @Ctx() ctx: ResolverContext) {
    return userDeviceTokens(ctx, user.id);
  }

  @Directive(PRIVATE)
  @FieldResolver(() => [RefreshToken], {
    nullable: true,
    description: `The user's sessions, oldest first, ended ones included. ${PRIVATE_FIELD}`,
  })
  refreshTokens(@Root() user: UserRow, @Ctx() ctx: ResolverContext) {
    return userSessions(ctx, user.id);
  }

  @Directive(PRIVATE)
  @FieldResolver(() => [ApiKey], {
    nullable: true,
    description: `The user's API keys, oldest first, revoked ones included. ${PRIVATE_FIELD}`,
  })
  apiKeys(@Root() user: UserRow, @Ctx() ctx: ResolverContext) {
    return userApiKeys(ctx, user.id);
  }

  @Directive(PRIVATE)
  @FieldResolver(() => ReferralRedemption, {
    nullable: true,
    description: `The referral code the user redeemed; null when none. ${PRIVATE_FIELD}`,
  })
  referralRedemption(@Root() user: UserRow, @Ctx() ctx: ResolverContext) {
    return userReferralRedemption(ctx, user.id);
  }

  @Directive(PRIVATE)
  @FieldResolver(() => [ReferralCode], { nullable: true, description: `Referral codes the user created, oldest first. ${PRIVATE_FIELD}` })
  createdReferralCodes(@Root() user: UserRow, @Ctx() ctx: ResolverContext) {
    return userReferralCodes(ctx, user.id);
  }
}

/** An image's relations, from the read graph (user, pools, ...). */
@ReadGraphFields()
@Resolver(() => Image)
export class ImageResolver {}

@Resolver(() => Settings)
export class SettingsResolver {
  @FieldResolver(() => NotificationPreferences, { description: 'Which notifications the user wants.' })
  notificationPreferences(@Root() settings: SettingsRow) {
    const p = settings.notificationPreferences;
    return {
      isNotificationsEnabled: p.is_notifications_enabled,
      isEmailNotificationsEnabled: p.is_email_notifications_enabled,
      isPushNotificationsEnabled: p.is_push_notifications_enabled,
      isEmailSubscribePopupDismissed: p.is_email_subscribe_popup_dismissed,
      rewardClaimed: p.REWARD_CLAIMED,
      refundClaimed: p.REFUND_CLAIMED,
      streakRewardReceived: p.STREAK_REWARD_RECEIVED,
    };
  }

  @FieldResolver(() => User, { description: 'The user they belong to.' })
  user(@Root() settings: SettingsRow, @Ctx() ctx: ResolverContext) {
    return ctx.loaders.userById.load(settings.userId);
  }
}

@Resolver(() => ReferralCode)
export class ReferralCodeResolver {
  @FieldResolver(() => User, { description: 'The user who created the code.' })
  creator(@Root() code: ReferralCodeRow, @Ctx() ctx: ResolverContext) {
    return ctx.loaders.userById.load(code.userId);
  }

  @FieldResolver(() => [ReferralRedemption], {
    nullable: true,
    description: "Uses of the code, oldest first. Private to the code's creator and ADMINs (null with a FORBIDDEN error for anyone else).",
  })
  redemptions(@Root() code: ReferralCodeRow, @Ctx() ctx: ResolverContext) {
    return referralCodeRedemptions(ctx, code);
  }
}

@Resolver(() => ReferralRedemption)
export class ReferralRedemptionResolver {
  @FieldResolver(() => ReferralCode, { description: 'The code redeemed.' })
  referralCode(@Root() redemption: ReferralRedemptionRow, @Ctx() ctx: ResolverContext) {
    return ctx.loaders.referralCodeById.load(redemption.referralCodeId);
  }

  @FieldResolver(() => User, { description: 'The user who redeemed the code.' })
  user(@Root() redemption: ReferralRedemptionRow, @Ctx() ctx: ResolverContext) {
    return ctx.loaders.userById.load(redemption.userId);
  }
}

/** A notification's relations, from the read graph (user, ...). */
@ReadGraphFields()
@Resolver(() => Notification)
export class NotificationResolver {}

@Resolver(() => DeviceToken)
export class DeviceTokenResolver {
  @FieldResolver(() => String, { description: 'The push token, masked: only its last 6 characters are shown.' })
  token(@Root() device: DeviceTokenRow) {
    return `…${device.token.slice(-6)}`;
  }

  @FieldResolver(() => User, { description: 'The user the device belongs to.' })
  user(@Root() device: DeviceTokenRow, @Ctx() ctx: ResolverContext) {
    return ctx.loaders.userById.load(device.userId);
  }
}
