import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { ResolverContext } from '../context.js';
import { Settings } from '../users/user.type.js';
import { NotificationPreferencesInput } from './notification.args.js';
import {
  markAllNotificationsRead,
  markNotificationsRead,
  MAX_MARK_READ_IDS,
  registerDeviceToken,
  removeDeviceToken,
  unreadNotificationCount,
  updateNotificationPreferences,
} from './notification.service.js';
import { DevicePlatform, DeviceToken } from './notification.type.js';

/** The signed-in viewer's notifications, notification preferences and push devices. */
@Resolver()
export class ViewerNotificationResolver {
  @Query(() => Int, { description: "The viewer's unread notifications (signed in)." })
  unreadNotificationCount(@Ctx() ctx: ResolverContext) {
    return unreadNotificationCount(ctx);
  }

  @Mutation(() => Int, {
    description:
      `Marks the viewer's unread notifications among ids (at most ${MAX_MARK_READ_IDS}) read; returns how many ` +
      `changed. Ids that are not the viewer's, unknown or already read are ignored.`,
  })
  markNotificationsRead(
    @Arg('ids', () => [ID], { description: `Ids of notifications to mark read, at most ${MAX_MARK_READ_IDS}.` }) ids: string[],
    @Ctx() ctx: ResolverContext,
  ) {
    return markNotificationsRead(ctx, ids);
  }

  @Mutation(() => Int, { description: "Marks all the viewer's unread notifications read; returns how many changed." })
  markAllNotificationsRead(@Ctx() ctx: ResolverContext) {
    return markAllNotificationsRead(ctx);
  }

  @Mutation(() => Settings, { description: 'Changes only the given notification preferences of the viewer.' })
  updateNotificationPreferences(
    @Arg('input', () => NotificationPreferencesInput, { description: 'The preferences to change.' }) input: NotificationPreferencesInput,
    @Ctx() ctx: ResolverContext,
  ) {
    return updateNotificationPreferences(ctx, input);
  }

  @Mutation(() => DeviceToken, {
    description:
      'Registers a push token for the viewer (16 to 1024 characters); again is harmless. A token held by another user moves to the viewer.',
  })
  registerDeviceToken(
    @Arg('token', () => String, { description: 'The push token the device was given by its push service.' }) token: string,
    @Arg('platform', () => DevicePlatform, { description: 'Kind of device.' }) platform: keyof typeof DevicePlatform,
    @Ctx() ctx: ResolverContext,
  ) {
    return registerDeviceToken(ctx, token, platform);
  }

  @Mutation(() => Boolean, { description: "Removes one of the viewer's push tokens; false when the viewer holds no such token." })
  removeDeviceToken(
    @Arg('token', () => String, { description: 'The full push token, as registered.' }) token: string,
    @Ctx() ctx: ResolverContext,
  ) {
    return removeDeviceToken(ctx, token);
  }
}
