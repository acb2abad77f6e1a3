import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, rateLimited } from '../errors.js';
import { authenticate, type Credentials, type Session } from '../modules/auth/auth.service.js';
import type { Viewer } from '../modules/auth/viewer.js';
import type { FixedWindowLimiter } from '../modules/common/fixed-window.js';
import type { ServiceContext, ServiceDependencies } from '../modules/context.js';
import { createLoaders, type Loaders } from '../modules/loaders.js';
import type { OperationRecord } from './logging.js';
import { clearSessionCookies, readCookie, REFRESH_COOKIE, ACCESS_COOKIE, setSessionCookies } from './cookies.js';

/** What only the transport knows: the request id, and the session cookies of browsers. */
export interface Transport {
  requestId: string;
  /** The refresh token of the request's cookie, if any. */
  refreshCookie: string | null;
  setSessionCookies(session: Session): void;
  clearSessionCookies(): void;
  /** The request's log record, filled in by the GraphQL steps (HTTP; a socket keeps its own). */
  record?: OperationRecord;
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
  return new RequestContext(deps, parts);
}

/**
 * A context as a class rather than a spread object with an accessor defined on it: that
 * made every context a dictionary-mode object (slow to build, and every `ctx.loaders` and
 * `ctx.viewer` a hash lookup); here each has the same hidden class and `loaders` is a
 * getter of the prototype.
 */
class RequestContext {
  private cachedLoaders: Loaders | undefined;

  constructor(deps: ServiceDependencies, parts: { viewer: Viewer | null; clientAddress: string; now: Date; transport: Transport }) {
    Object.assign(this, deps, parts);
    this.cachedLoaders = undefined;
  }

  get loaders(): Loaders {
    return (this.cachedLoaders ??= createLoaders((this as unknown as GraphQLContext).database.db));
  }
}
// The deps and parts are assigned in the constructor; the class adds only `loaders`.
interface RequestContext extends Omit<GraphQLContext, 'loaders'> {}

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
  record?: OperationRecord,
): Promise<GraphQLContext> {
  const viewer = await authenticateClient(deps, credentialsOfRequest(request), request.ip, failures);
  return createContext(deps, { viewer, clientAddress: request.ip, now: deps.clock(), transport: new HttpTransport(request, reply, secureCookies, record) });
}

/** An HTTP request's transport: its id, and its session cookies read from the request and set on the reply. */
class HttpTransport implements Transport {
  readonly requestId: string;
  readonly refreshCookie: string | null;

  constructor(
    request: FastifyRequest,
    private readonly reply: FastifyReply,
    private readonly secureCookies: boolean,
    readonly record?: OperationRecord,
  ) {
    this.requestId = request.id;
    this.refreshCookie = readCookie(request.headers.cookie, REFRESH_COOKIE);
  }

  setSessionCookies(session: Session): void {
    setSessionCookies(this.reply, session, this.secureCookies);
  }

  clearSessionCookies(): void {
    clearSessionCookies(this.reply, this.secureCookies);
  }
}
