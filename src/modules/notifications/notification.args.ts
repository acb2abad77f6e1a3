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
  @Field(() => NotificationFilterEnum, { nullable: true, description: 'READ or UNREAD only; absent lists all. A cursor continues the list of the same filter.' })
  filter?: NotificationFilter | null;
}

@InputType({ description: 'Preferences to change; a field that is absent or null stays as it is.' })
export class NotificationPreferencesInput implements NotificationPreferencesChanges {
  @Field(() => Boolean, { nullable: true, description: 'Master switch: when false, no notification is sent.' })
  isNotificationsEnabled?: boolean | null;

  @Field(() => Boolean, { nullable: true })
  isEmailNotificationsEnabled?: boolean | null;

  @Field(() => Boolean, { nullable: true })
  isPushNotificationsEnabled?: boolean | null;

  @Field(() => Boolean, { nullable: true })
  isEmailSubscribePopupDismissed?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'Notify when a reward is claimed.' })
  rewardClaimed?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'Notify when a refund is claimed.' })
  refundClaimed?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'Notify when a streak reward is received.' })
  streakRewardReceived?: boolean | null;
}
