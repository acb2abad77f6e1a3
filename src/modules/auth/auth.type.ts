import { Field, ID, ObjectType } from 'type-graphql';
import { Entity } from '../common/entity.type.js';
import { DateTime } from '../common/scalars.js';
import { User } from '../users/user.type.js';

@ObjectType({ simpleResolvers: true, description: 'A message for the wallet to sign (Sign-In With Solana layout), single use.' })
export class SignInChallenge {
  @Field(() => String, { description: 'Sign exactly these bytes (UTF-8) with the wallet, then call signInWithWallet.' })
  message!: string;

  @Field(() => String, { description: 'The single-use nonce inside the message.' })
  nonce!: string;

  @Field(() => DateTime, { description: 'Sign in before this; the message says the same.' })
  expiresAt!: Date;
}

@ObjectType({
  simpleResolvers: true,
  description: 'A signed-in session. Send accessToken as `Authorization: Bearer`; browsers also get HttpOnly cookies.',
})
export class AuthSession {
  @Field(() => String, { description: 'Bearer token for `Authorization: Bearer`; short-lived.' })
  accessToken!: string;

  @Field(() => DateTime, { description: 'When the access token stops working; refresh before then.' })
  accessTokenExpiresAt!: Date;

  @Field(() => String, { description: 'Exchange it with refreshSession before the access token expires; single use.' })
  refreshToken!: string;

  @Field(() => DateTime, { description: 'When the refresh token stops working; sign in again after that.' })
  refreshTokenExpiresAt!: Date;

  @Field(() => User, { description: 'The signed-in user.' })
  user!: User;
}

@ObjectType({ simpleResolvers: true, description: 'An API key of a user (never the key itself).' })
export class ApiKey extends Entity {
  @Field(() => ID, { description: 'Id of the user the key acts for.' })
  userId!: string;

  @Field(() => String, { description: 'Label the user gave the key.' })
  name!: string;

  @Field(() => String, { description: 'SHA-256 of the key, hex.' })
  keyHash!: string;

  @Field(() => Boolean, { description: 'False once revoked; a revoked key is refused (API_KEY_REVOKED).' })
  isActive!: boolean;

  @Field(() => DateTime, { nullable: true, description: 'When the key was last used (recorded at most once a minute); null if never.' })
  lastUsedAt!: Date | null;
}

@ObjectType({ simpleResolvers: true, description: 'A new API key: the only time the key itself is shown.' })
export class CreatedApiKey {
  @Field(() => String, { description: 'The key, shown this once: send it as the `x-api-key` header.' })
  apiKey!: string;

  @Field(() => ApiKey, { description: "The key's record, as apiKeys lists it." })
  key!: ApiKey;
}

@ObjectType({ simpleResolvers: true, description: 'A session of a user (its refresh token is never shown).' })
export class RefreshToken extends Entity {
  @Field(() => ID, { description: 'Id of the signed-in user.' })
  userId!: string;

  @Field(() => String, { description: 'Rotation version of the session: changes at every refresh.' })
  version!: string;

  @Field(() => DateTime, { description: 'When the current refresh token expires; the session ends then unless refreshed.' })
  expiresAt!: Date;

  @Field(() => DateTime, {
    nullable: true,
    description:
      'When the session was ended (sign-out, revokeSession, a reused refresh token, a role change or the revocation of the API key it was opened with); null while it is live.',
  })
  revokedAt!: Date | null;
}
