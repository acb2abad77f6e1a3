import { Field, ID, ObjectType } from 'type-graphql';
import { Entity } from '../common/entity.type.js';
import { DateTime } from '../common/scalars.js';
import { User } from '../users/user.type.js';

@ObjectType({ simpleResolvers: true, description: 'A message for the wallet to sign (Sign-In With Solana layout), single use.' })
export class SignInChallenge {
  @Field(() => String, { description: 'Sign exactly these bytes (UTF-8) with the wallet, then call signInWithWallet.' })
  message!: string;

  @Field(() => String)
  nonce!: string;

  @Field(() => DateTime)
  expiresAt!: Date;
}

@ObjectType({
  simpleResolvers: true,
  description: 'A signed-in session. Send accessToken as `Authorization: Bearer`; browsers also get HttpOnly cookies.',
})
export class AuthSession {
  @Field(() => String)
  accessToken!: string;

  @Field(() => DateTime)
  accessTokenExpiresAt!: Date;

  @Field(() => String, { description: 'Exchange it with refreshSession before the access token expires; single use.' })
  refreshToken!: string;

  @Field(() => DateTime)
  refreshTokenExpiresAt!: Date;

  @Field(() => User)
  user!: User;
}

@ObjectType({ simpleResolvers: true, description: 'An API key of a user (never the key itself).' })
export class ApiKey extends Entity {
  @Field(() => ID)
  userId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { description: 'SHA-256 of the key, hex.' })
  keyHash!: string;

  @Field(() => Boolean)
  isActive!: boolean;

  @Field(() => DateTime, { nullable: true })
  lastUsedAt!: Date | null;
}

@ObjectType({ simpleResolvers: true })
export class CreatedApiKey {
  @Field(() => String, { description: 'The key, shown this once: send it as the `x-api-key` header.' })
  apiKey!: string;

  @Field(() => ApiKey)
  key!: ApiKey;
}

@ObjectType({ simpleResolvers: true, description: 'A session of a user (its refresh token is never shown).' })
export class RefreshToken extends Entity {
  @Field(() => ID)
  userId!: string;

  @Field(() => String, { description: 'Rotation version of the session.' })
  version!: string;

  @Field(() => DateTime)
  expiresAt!: Date;

  @Field(() => DateTime, { nullable: true })
  revokedAt!: Date | null;
}
