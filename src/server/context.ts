import type { FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError } from 'graphql';
import { AppError } from '../errors.js';
import { authenticate, type Session } from '../modules/auth/auth.service.js';
import type { ServiceContext, ServiceDependencies } from '../modules/context.js';
import { createLoaders } from '../modules/loaders.js';
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

function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw new AppError('UNAUTHENTICATED', 'The Authorization header must be "Bearer <token>"', { reason: 'TOKEN_INVALID' });
    return match[1]!;
  }
  return readCookie(request.headers.cookie, ACCESS_COOKIE);
}

/**
 * Builds the context of one HTTP operation: authenticates the caller (bearer token,
 * access cookie or `x-api-key`) and creates fresh loaders. Invalid credentials fail the
 * whole request with UNAUTHENTICATED (HTTP 401) rather than silently running signed out.
 */
export async function createHttpContext(
  deps: ServiceDependencies,
  request: FastifyRequest,
  reply: FastifyReply,
  secureCookies: boolean,
): Promise<GraphQLContext> {
  const now = deps.clock();
  let viewer;
  try {
    const apiKey = request.headers['x-api-key'];
    viewer = await authenticate(deps, { bearerToken: bearerToken(request), apiKey: typeof apiKey === 'string' ? apiKey : null }, now);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    throw new GraphQLError(error.message, {
      extensions: { code: error.code, ...error.details, http: { status: 401 } },
    });
  }
  return {
    ...deps,
    loaders: createLoaders(deps.database.db),
    viewer,
    clientAddress: request.ip,
    now,
    transport: {
      requestId: request.id,
      refreshCookie: readCookie(request.headers.cookie, REFRESH_COOKIE),
      setSessionCookies: (session) => setSessionCookies(reply, session, secureCookies),
      clearSessionCookies: () => clearSessionCookies(reply, secureCookies),
    },
  };
}
