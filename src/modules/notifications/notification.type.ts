import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { Connection } from '../common/connection.type.js';
import { Entity } from '../common/entity.type.js';
import { DateTime } from '../common/scalars.js';
import { enumObject } from '../common/enums.js';
import { notificationType } from '../../../schema/index.js';

export const NotificationType = enumObject(notificationType.enumValues);
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
