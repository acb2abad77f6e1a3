import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, rateLimited } from '../errors.js';
import { authenticate, type Credentials, type Session } from '../modules/auth/auth.service.js';
import type { Viewer } from '../modules/auth/viewer.js';
import type { FixedWindowLimiter } from '../modules/common/fixed-window.js';
import type { ServiceContext, ServiceDependencies } from '../modules/context.js';
import { createLoaders, type Loaders } from '../modules/loaders.js';
import { clearSessionCookies, readCookie, REFRESH_COOKIE, ACCESS_COOKIE, setSessionCookies } from './cookies.js';

/** What only the transport knows: the request id, and the session cookies of browsers. */
export interface Transport {
  requestId: string;
  /** The refresh token of the request's cookie, if any. */
  refreshCookie: string | null;
  setSessionCookies(session: Session): void;
  clearSessionCookies(): void;
}

/** The GraphQL context: a service context plus the transport. */
export interface GraphQLContext extends ServiceContext {
  transport: Transport;
}

/**
 * The one way a context is made, over every transport. Loaders are created on first use:
 * an operation that reads nothing (`{ __typename }`, most mutations' refusals) and idle
 * subscriptions hold none.
 */
export function createContext(
  deps: ServiceDependencies,
  parts: { viewer: Viewer | null; clientAddress: string; now: Date; transport: Transport },
): GraphQLContext {
  let loaders: Loaders | undefined;
  const context = { ...deps, ...parts } as Omit<GraphQLContext, 'loaders'>;
  return Object.defineProperty(context, 'loaders', {
    get: () => (loaders ??= createLoaders(deps.database.db)),
    enumerable: false,
  }) as GraphQLContext;
}

/**
 * The credentials step: authenticates `credentials`, counting failures per client address
 * in `failures` (a guessed token or API key costs a lookup each); once the address is over
 * that budget it is refused with RATE_LIMITED before any lookup, until the window ends.
 * Invalid credentials fail the whole request with UNAUTHENTICATED rather than silently
 * running signed out.
 */
export async function authenticateClient(
  deps: ServiceDependencies,
  credentials: Credentials,
  clientAddress: string,
  failures: FixedWindowLimiter,
): Promise<Viewer | null> {
  if (!credentials.apiKey && !credentials.bearerToken) return null;
  const wait = failures.blocked(clientAddress);
  if (wait !== null) throw rateLimited(wait, `Too many failed authentications from this address; retry after ${wait} s`);
  try {
    return await authenticate(deps, credentials, deps.clock());
  } catch (error) {
    if (error instanceof AppError && error.code === 'UNAUTHENTICATED') failures.take(clientAddress);
    throw error;
  }
}

/** The credentials of an HTTP request: `Authorization: Bearer`, else the access cookie; and `x-api-key`. */
export function credentialsOfRequest(request: FastifyRequest): Credentials {
  const header = request.headers.authorization;
  const apiKey = request.headers['x-api-key'];
  let bearerToken: string | null;
  if (header) {
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw new AppError('UNAUTHENTICATED', 'The Authorization header must be "Bearer <token>"', { reason: 'TOKEN_INVALID' });
    bearerToken = match[1]!;
  } else {
    bearerToken = readCookie(request.headers.cookie, ACCESS_COOKIE);
  }
  return { bearerToken, apiKey: typeof apiKey === 'string' ? apiKey : null };
}

/** Builds the context of one HTTP operation (GraphQL or REST): credentials, then a fresh context. */
export async function createHttpContext(
  deps: ServiceDependencies,
  request: FastifyRequest,
  reply: FastifyReply,
  secureCookies: boolean,
  failures: FixedWindowLimiter,
): Promise<GraphQLContext> {
  const viewer = await authenticateClient(deps, credentialsOfRequest(request), request.ip, failures);
  return createContext(deps, {
    viewer,
    clientAddress: request.ip,
    now: deps.clock(),
    transport: {
      requestId: request.id,
      refreshCookie: readCookie(request.headers.cookie, REFRESH_COOKIE),
      setSessionCookies: (session) => setSessionCookies(reply, session, secureCookies),
      clearSessionCookies: () => clearSessionCookies(reply, secureCookies),
    },
  });
}
