import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { Connection } from '../common/connection.type.js';
import { Entity } from '../common/entity.type.js';
import { DateTime } from '../common/scalars.js';
import { enumObject } from '../common/enums.js';
import { notificationType } from '../../../schema/index.js';

export const NotificationType = enumObject(notificationType.enumValues);
registerEnumType(NotificationType, {
  name: 'NotificationType',
  description: 'What a notification is about; each value lists the keys of its data (amounts in whole tokens).',
  valuesConfig: {
    POOL_CREATED: { description: 'A new pool is open for predictions. data: poolId, title.' },
    REWARD_CLAIMED: { description: 'A reward was paid to your wallet. data: rewardId, predictionId, amount, signature.' },
    REFUND_CLAIMED: { description: 'A refund was paid to your wallet. data: rewardId, predictionId, amount, signature.' },
    STREAK_REWARD_RECEIVED: { description: 'A streak reward was paid to your wallet. data: streakRewardId, streakId, amount, signature.' },
    REWARD_AVAILABLE: {
      description: 'A resolved pool gave your prediction a reward to claim. data: poolId, predictionId, rewardId, amount.',
    },
    REFUND_AVAILABLE: {
      description: 'A resolved pool gave your prediction a refund to claim. data: poolId, predictionId, rewardId, amount.',
    },
    STREAK_REWARD_AVAILABLE: {
      description: 'Your streak run earned a streak reward to claim. data: streakId, streakRewardId, poolId, amount.',
    },
  },
});

export const DevicePlatform = { WEB: 'WEB', IOS: 'IOS', ANDROID: 'ANDROID' } as const;
registerEnumType(DevicePlatform, {
  name: 'DevicePlatform',
  description: 'Kind of device a push token belongs to.',
  valuesConfig: {
    WEB: { description: 'A web browser.' },
    IOS: { description: 'The app on an iOS device.' },
    ANDROID: { description: 'The app on an Android device.' },
  },
});

@ObjectType({
  simpleResolvers: true,
  description: 'A message to one user about something that concerns them. Private to the user and ADMINs.',
})
export class Notification extends Entity {
  @Field(() => ID, { description: 'Id of the user notified.' })
  userId!: string;

  @Field(() => String, { description: 'Short headline, plain text.' })
  title!: string;

  @Field(() => String, { description: 'The text of the notification, plain text.' })
  message!: string;

  @Field(() => NotificationType, { description: 'What it is about; says which keys data has.' })
  type!: keyof typeof NotificationType;

  @Field(() => GraphQLJSONObject, { description: 'Ids and amounts it refers to, keyed as its type lists; amounts in whole tokens.' })
  data!: Record<string, unknown>;

  @Field(() => DateTime, { nullable: true, description: 'When the user marked it read; null while unread.' })
  readAt!: Date | null;
}

@ObjectType({ simpleResolvers: true, description: 'A page of notifications.' })
export class NotificationConnection extends Connection('Notification', Notification) {}

@ObjectType({ simpleResolvers: true, description: 'A device registered for push notifications.' })
export class DeviceToken extends Entity {
  @Field(() => ID, { description: 'Id of the user the device belongs to.' })
  userId!: string;

  @Field(() => DevicePlatform, { description: 'Kind of device.' })
  platform!: keyof typeof DevicePlatform;
}
