import { ArgsType, Field, InputType, registerEnumType } from 'type-graphql';
import { PageArgs } from '../common/page.args.js';
import { NOTIFICATION_FILTERS, type NotificationFilter } from './notification.loaders.js';
import type { NotificationPreferencesChanges } from './notification.service.js';
import { enumObject } from '../common/enums.js';

const NotificationFilterEnum = enumObject(NOTIFICATION_FILTERS);
registerEnumType(NotificationFilterEnum, {
  name: 'NotificationFilter',
  description: 'Which notifications a list shows; absent means all.',
  valuesConfig: {
    READ: { description: 'Only notifications marked read.' },
    UNREAD: { description: 'Only notifications not yet read.' },
  },
});

@ArgsType()
export class NotificationsArgs extends PageArgs {
  @Field(() => NotificationFilterEnum, {
    nullable: true,
    description: 'READ or UNREAD only; absent lists all. A cursor continues the list of the same filter.',
  })
  filter?: NotificationFilter | null;
}

@InputType({ description: 'Preferences to change; a field that is absent or null stays as it is.' })
export class NotificationPreferencesInput implements NotificationPreferencesChanges {
  @Field(() => Boolean, { nullable: true, description: 'Master switch: when false, no notification is sent.' })
  isNotificationsEnabled?: boolean | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'Whether the user wants notifications by email; kept for clients, this service sends no email.',
  })
  isEmailNotificationsEnabled?: boolean | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'Whether the user wants push notifications; kept for clients, this service sends no push.',
  })
  isPushNotificationsEnabled?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: "Whether the app's email subscription popup has been dismissed." })
  isEmailSubscribePopupDismissed?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'Notify of rewards: REWARD_AVAILABLE at resolution and REWARD_CLAIMED once paid.' })
  rewardClaimed?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'Notify of refunds: REFUND_AVAILABLE at resolution and REFUND_CLAIMED once paid.' })
  refundClaimed?: boolean | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'Notify of streak rewards: STREAK_REWARD_AVAILABLE when granted and STREAK_REWARD_RECEIVED once paid.',
  })
  streakRewardReceived?: boolean | null;
}
