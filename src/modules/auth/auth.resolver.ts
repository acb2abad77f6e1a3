import { Arg, Ctx, Field, FieldResolver, ID, InputType, Mutation, Resolver, Root } from 'type-graphql';
import type { ApiKeyRow, RefreshTokenRow } from '../../../schema/index.js';
import type { ResolverContext } from '../context.js';
import { User } from '../users/user.type.js';
import {
  createApiKey,
  refreshSession,
  requestSignInChallenge,
  revokeApiKey,
  revokeSession,
  type Session,
  signInWithApiKey,
  signInWithWallet,
  signOut,
} from './auth.service.js';
import { ApiKey, AuthSession, CreatedApiKey, RefreshToken, SignInChallenge } from './auth.type.js';

@InputType({ description: 'A signed sign-in challenge.' })
class SignInWithWalletInput {
  @Field(() => String, { description: 'Base58 address of the signing wallet.' })
  walletAddress!: string;

  @Field(() => String, { description: 'The challenge message, exactly as requestSignInChallenge returned it.' })
  message!: string;

  @Field(() => String, { description: 'Ed25519 signature of the message bytes, base58 (as wallets return it) or base64.' })
  signature!: string;
}

/** Sessions go back in the body, and to browsers as HttpOnly cookies as well. */
function withCookies(ctx: ResolverContext, session: Session): Session {
  ctx.transport.setSessionCookies(session);
  return session;
}

@Resolver()
export class AuthResolver {
  @Mutation(() => SignInChallenge, { description: 'Step 1 of wallet sign-in: a message for the wallet to sign.' })
  requestSignInChallenge(
    @Arg('walletAddress', () => String, { description: 'Base58 address of the wallet that will sign.' }) walletAddress: string,
    @Ctx() ctx: ResolverContext,
  ) {
    return requestSignInChallenge(ctx, walletAddress);
  }

  @Mutation(() => AuthSession, { description: 'Step 2 of wallet sign-in: the signed challenge opens a session.' })
  async signInWithWallet(
    @Arg('input', () => SignInWithWalletInput, { description: 'The challenge and its signature.' }) input: SignInWithWalletInput,
    @Ctx() ctx: ResolverContext,
  ) {
    return withCookies(ctx, await signInWithWallet(ctx, input));
  }

  @Mutation(() => AuthSession, { description: 'Exchanges an API key for a session.' })
  async signInWithApiKey(
    @Arg('apiKey', () => String, { description: 'An active API key (pgk_…), as createApiKey returned it.' }) apiKey: string,
    @Ctx() ctx: ResolverContext,
  ) {
    return withCookies(ctx, await signInWithApiKey(ctx, apiKey));
  }

  @Mutation(() => AuthSession, {
    description: 'Rotates the session: the refresh token (argument, or the browser cookie) is spent and a new pair issued.',
  })
  async refreshSession(
    @Arg('refreshToken', () => String, { nullable: true, description: 'The refresh token to spend; the refresh cookie when omitted.' })
    refreshToken: string | null,
    @Ctx() ctx: ResolverContext,
  ) {
    return withCookies(ctx, await refreshSession(ctx, refreshToken ?? ctx.transport.refreshCookie ?? ''));
  }

  @Mutation(() => Boolean, {
    description: 'Ends the session of the refresh token given (or cookie), else the current one; false when it had already ended.',
  })
  async signOut(
    @Arg('refreshToken', () => String, {
      nullable: true,
      description: 'Refresh token of the session to end; the refresh cookie, else the current session, when omitted.',
    })
    refreshToken: string | null,
    @Ctx() ctx: ResolverContext,
  ) {
    const ended = await signOut(ctx, refreshToken ?? ctx.transport.refreshCookie);
    ctx.transport.clearSessionCookies();
    return ended;
  }

  @Mutation(() => CreatedApiKey, { description: `Creates an API key (at most 5 active); the key is shown only here.` })
  createApiKey(
    @Arg('name', () => String, { description: 'A label for the key, up to 64 characters.' }) name: string,
    @Ctx() ctx: ResolverContext,
  ) {
    return createApiKey(ctx, name);
  }

  @Mutation(() => RefreshToken, {
    description:
      "Ends one of your sessions (an ADMIN: anyone's) by id, as viewer.refreshTokens lists them, at once with its sockets; returns it with revokedAt set.",
  })
  revokeSession(@Arg('id', () => ID, { description: 'Id of the session.' }) id: string, @Ctx() ctx: ResolverContext) {
    return revokeSession(ctx, id);
  }

  @Mutation(() => ApiKey, {
    description:
      "Revokes one of your API keys (an ADMIN: anyone's) at once, with the keys minted under it and the sessions opened with them; returns it with isActive false.",
  })
  revokeApiKey(@Arg('id', () => ID, { description: 'Id of the API key.' }) id: string, @Ctx() ctx: ResolverContext) {
    return revokeApiKey(ctx, id);
  }
}

@Resolver(() => ApiKey)
export class ApiKeyResolver {
  @FieldResolver(() => User, { description: 'The user the key acts for.' })
  user(@Root() key: ApiKeyRow, @Ctx() ctx: ResolverContext) {
    return ctx.loaders.userById.load(key.userId);
  }
}

@Resolver(() => RefreshToken)
export class RefreshTokenResolver {
  @FieldResolver(() => User, { description: 'The signed-in user.' })
  user(@Root() session: RefreshTokenRow, @Ctx() ctx: ResolverContext) {
    return ctx.loaders.userById.load(session.userId);
  }
}
