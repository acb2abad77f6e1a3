import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { Entity } from '../common/entity.type.js';
import { DateTime } from '../common/scalars.js';
import { enumObject } from '../common/enums.js';
import { userRole } from '../../../schema/index.js';

export const UserRole = enumObject(userRole.enumValues);
export type UserRole = (typeof UserRole)[keyof typeof UserRole];
registerEnumType(UserRole, { name: 'UserRole' });

@ObjectType({ simpleResolvers: true, description: 'A wallet owner using the service.' })
export class User extends Entity {
  @Field(() => DateTime, { nullable: true })
  lastSeenAt!: Date | null;

  @Field(() => String)
  username!: string;

  @Field(() => Boolean)
  hasSeenTour!: boolean;

  @Field(() => UserRole)
  role!: UserRole;

  @Field(() => String, { description: 'Solana wallet address (base58).' })
  walletAddress!: string;

  @Field(() => ID, { nullable: true })
  avatarId!: string | null;

  @Field(() => String, { nullable: true })
  twitterUsername!: string | null;
}

@ObjectType({ simpleResolvers: true, description: 'An uploaded image: a pool picture or a user avatar.' })
export class Image extends Entity {
  @Field(() => ID)
  userId!: string;

  @Field(() => String)
  url!: string;
}

@ObjectType({ simpleResolvers: true, description: 'Notification preferences; every key defaults to true.' })
export class NotificationPreferences {
  @Field(() => Boolean, { description: 'Master switch: when false, no notification is sent.' })
  isNotificationsEnabled!: boolean;

  @Field(() => Boolean)
  isEmailNotificationsEnabled!: boolean;

  @Field(() => Boolean)
  isPushNotificationsEnabled!: boolean;

  @Field(() => Boolean)
  isEmailSubscribePopupDismissed!: boolean;

  @Field(() => Boolean, { description: 'Notify when a reward is claimed.' })
  rewardClaimed!: boolean;

  @Field(() => Boolean, { description: 'Notify when a refund is claimed.' })
  refundClaimed!: boolean;

  @Field(() => Boolean, { description: 'Notify when a streak reward is received.' })
  streakRewardReceived!: boolean;
}

@ObjectType({ simpleResolvers: true, description: "A user's settings." })
export class Settings extends Entity {
  @Field(() => ID)
  userId!: string;
}

@ObjectType({ simpleResolvers: true, description: 'A code a user shares to refer others.' })
export class ReferralCode extends Entity {
  @Field(() => String)
  code!: string;

  @Field(() => String, { nullable: true })
  notes!: string | null;

  @Field(() => ID)
  userId!: string;
}

@ObjectType({ simpleResolvers: true, description: 'A use of a referral code by a user (once per user).' })
export class ReferralRedemption extends Entity {
  @Field(() => ID)
  referralCodeId!: string;

  @Field(() => DateTime)
  appliedAt!: Date;
}
