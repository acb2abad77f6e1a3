import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, rateLimited } from '../errors.js';
import { authenticate, type Credentials, type Session } from '../modules/auth/auth.service.js';
import type { Viewer } from '../modules/auth/viewer.js';
import type { Limiter } from '../modules/common/limiter.js';
import type { ServiceContext, ServiceDependencies } from '../modules/context.js';
import { createLoaders, type Loaders } from '../modules/loaders.js';
import type { OperationBudget } from './rate-limit.js';
import type { OperationRecord } from './logging.js';
import { clearSessionCookies, readCookie, REFRESH_COOKIE, ACCESS_COOKIE, setSessionCookies } from './cookies.js';

/** What only the transport knows: the request id, and the session cookies of browsers. */
export interface Transport {
  requestId: string;
  /** The refresh token of the request's cookie, if any. */
  refreshCookie: string | null;
  setSessionCookies(session: Session): void;
  clearSessionCookies(): void;
  /** The operation's record, filled in by Apollo's plugin: HTTP's is logged; a socket's query or mutation has one too, not logged. */
  record?: OperationRecord;
}

/** The GraphQL context: a service context plus the transport. */
export interface GraphQLContext extends ServiceContext {
  transport: Transport;
  /** The budget the running operation was counted against; set by the rate-limit check before it runs. */
  rateLimit: OperationBudget | null;
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
    this.rateLimit = null;
  }

  get loaders(): Loaders {
    return (this.cachedLoaders ??= createLoaders((this as unknown as GraphQLContext).database.db));
  }
}
// The deps and parts are assigned in the constructor; the class adds only `loaders`.
interface RequestContext extends Omit<GraphQLContext, 'loaders'> {}

/**
 * The credentials step: authenticates `credentials`; invalid ones fail the whole request
 * with UNAUTHENTICATED rather than silently running signed out. The cheap checks come
 * first and need no database (an access token's signature and expiry, an API key's
 * checksum), so a guessed or mistyped credential costs no lookup. Each failure is counted
 * per client address in `failures`; a failure over that budget answers RATE_LIMITED with
 * Retry-After instead. A valid credential is never refused for its address's failures.
 */
export async function authenticateClient(
  deps: ServiceDependencies,
  credentials: Credentials,
  clientAddress: string,
  failures: Limiter,
): Promise<Viewer | null> {
  if (!credentials.apiKey && !credentials.bearerToken) return null;
  try {
    return await authenticate(deps, credentials, deps.clock());
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'UNAUTHENTICATED') throw error;
    // Only failures are counted, and only after the credential failed: a valid one is never refused by this budget.
    const wait = (await failures.consume(clientAddress)).retryAfterSeconds;
    if (wait !== null) throw rateLimited(wait, `Too many failed authentications from this address; retry after ${wait} s`);
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
  failures: Limiter,
  record?: OperationRecord,
): Promise<GraphQLContext> {
  const viewer = await authenticateClient(deps, credentialsOfRequest(request), request.ip, failures);
  return createContext(deps, {
    viewer,
    clientAddress: request.ip,
    now: deps.clock(),
    transport: new HttpTransport(request, reply, secureCookies, record),
  });
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
