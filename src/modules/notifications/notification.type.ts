import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { Connection } from '../common/connection.type.js';
import { Entity } from '../common/entity.type.js';
import { DateTime } from '../common/scalars.js';

export const NotificationType = {
  POOL_CREATED: 'POOL_CREATED',
  REWARD_CLAIMED: 'REWARD_CLAIMED',
  REFUND_CLAIMED: 'REFUND_CLAIMED',
  STREAK_REWARD_RECEIVED: 'STREAK_REWARD_RECEIVED',
  REWARD_AVAILABLE: 'REWARD_AVAILABLE',
  REFUND_AVAILABLE: 'REFUND_AVAILABLE',
  STREAK_REWARD_AVAILABLE: 'STREAK_REWARD_AVAILABLE',
} as const;
registerEnumType(NotificationType, { name: 'NotificationType' });

export const DevicePlatform = { WEB: 'WEB', IOS: 'IOS', ANDROID: 'ANDROID' } as const;
registerEnumType(DevicePlatform, { name: 'DevicePlatform' });

@ObjectType({ simpleResolvers: true })
export class Notification extends Entity {
  @Field(() => ID)
  userId!: string;

  @Field(() => String)
  title!: string;

  @Field(() => String)
  message!: string;

  @Field(() => NotificationType)
  type!: keyof typeof NotificationType;

  @Field(() => GraphQLJSONObject)
  data!: Record<string, unknown>;

  @Field(() => DateTime, { nullable: true })
  readAt!: Date | null;
}

@ObjectType({ simpleResolvers: true })
export class NotificationConnection extends Connection('Notification', Notification) {}

@ObjectType({ simpleResolvers: true, description: 'A device registered for push notifications.' })
export class DeviceToken extends Entity {
  @Field(() => ID)
  userId!: string;

  @Field(() => DevicePlatform)
  platform!: keyof typeof DevicePlatform;
}
