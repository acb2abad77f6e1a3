import { Directive, Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { PUBLIC } from '../common/cache-hints.js';
import { Entity } from '../common/entity.type.js';
import { DateTime } from '../common/scalars.js';
import { enumObject } from '../common/enums.js';
import { userRole } from '../../../schema/index.js';

export const UserRole = enumObject(userRole.enumValues);
export type UserRole = (typeof UserRole)[keyof typeof UserRole];
registerEnumType(UserRole, {
  name: 'UserRole',
  description: 'What a user may do.',
  valuesConfig: {
    USER: { description: 'A wallet owner: predicts, claims and reads their own private data.' },
    ADMIN: {
      description: "An operator: creates and resolves pools, runs streaks and referral codes, and reads every user's private data.",
    },
  },
});

@Directive(PUBLIC)
@ObjectType({ simpleResolvers: true, description: 'A wallet owner using the service.' })
export class User extends Entity {
  @Field(() => DateTime, { nullable: true, description: 'When the user last signed in with their wallet; null if never.' })
  lastSeenAt!: Date | null;

  @Field(() => String, { description: 'Public name, unique: 3 to 32 letters, digits or underscores.' })
  username!: string;

  @Field(() => Boolean, {
    description: "True once the user has seen the app's introductory tour (set by the client through updateProfile).",
  })
  hasSeenTour!: boolean;

  @Field(() => UserRole, { description: 'USER, or ADMIN for operators.' })
  role!: UserRole;

  @Field(() => String, { description: 'Solana wallet address (base58).' })
  walletAddress!: string;

  @Field(() => ID, { nullable: true, description: "Id of the user's avatar image; null when they have none." })
  avatarId!: string | null;

  @Field(() => String, { nullable: true, description: 'Twitter (X) handle; null when not given.' })
  twitterUsername!: string | null;
}

@Directive(PUBLIC)
@ObjectType({ simpleResolvers: true, description: 'An uploaded image: a pool picture or a user avatar.' })
export class Image extends Entity {
  @Field(() => ID, { description: 'Id of the user who uploaded it.' })
  userId!: string;

  @Field(() => String, {
    description: 'Where the image is served: /images/{id} on this service (relative to its origin) for uploads, an absolute URL otherwise.',
  })
  url!: string;
}

@ObjectType({ simpleResolvers: true, description: 'Notification preferences; every key defaults to true.' })
export class NotificationPreferences {
  @Field(() => Boolean, { description: 'Master switch: when false, no notification is sent.' })
  isNotificationsEnabled!: boolean;

  @Field(() => Boolean, { description: 'Whether the user wants notifications by email; kept for clients, this service sends no email.' })
  isEmailNotificationsEnabled!: boolean;

  @Field(() => Boolean, {
    description: 'Whether the user wants push notifications on their registered devices; kept for clients, this service sends no push.',
  })
  isPushNotificationsEnabled!: boolean;

  @Field(() => Boolean, { description: "True once the user dismissed the app's email subscription popup." })
  isEmailSubscribePopupDismissed!: boolean;

  @Field(() => Boolean, { description: 'Notify of rewards: REWARD_AVAILABLE at resolution and REWARD_CLAIMED once paid.' })
  rewardClaimed!: boolean;

  @Field(() => Boolean, { description: 'Notify of refunds: REFUND_AVAILABLE at resolution and REFUND_CLAIMED once paid.' })
  refundClaimed!: boolean;

  @Field(() => Boolean, {
    description: 'Notify of streak rewards: STREAK_REWARD_AVAILABLE when granted and STREAK_REWARD_RECEIVED once paid.',
  })
  streakRewardReceived!: boolean;
}

@ObjectType({ simpleResolvers: true, description: "A user's settings. Private to the user and ADMINs." })
export class Settings extends Entity {
  @Field(() => ID, { description: 'Id of the user they belong to.' })
  userId!: string;
}

@ObjectType({ simpleResolvers: true, description: 'A code a user shares to refer others.' })
export class ReferralCode extends Entity {
  @Field(() => String, { description: 'The code to enter in redeemReferralCode (letters and digits; case does not matter there).' })
  code!: string;

  @Field(() => String, { nullable: true, description: "The creator's note on what the code is for; null when none." })
  notes!: string | null;

  @Field(() => ID, { description: 'Id of the user who created the code.' })
  userId!: string;
}

@ObjectType({ simpleResolvers: true, description: 'A use of a referral code by a user (once per user).' })
export class ReferralRedemption extends Entity {
  @Field(() => ID, { description: 'Id of the code redeemed.' })
  referralCodeId!: string;

  @Field(() => DateTime, { description: 'When the code was redeemed.' })
  appliedAt!: Date;
}
