/**
 * The context of an operation over every transport: who asks (credentials read from the
 * bearer token, session cookie or API key, with the checks on failures), the services'
 * dependencies, and which database answers (the standby for reads when it keeps up).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OperationTypeNode } from 'graphql';
import type { Database } from '../db/client.js';
import type { AnswerForm } from '../read/answer-form.js';
import type { OperationWalk } from '../read/operation-walk.js';
import { type FirstStatementCheck, StatementScope } from '../db/statement-scope.js';
import { AppError, rateLimited } from '../errors.js';
import {
  confirmSession,
  type Credentials,
  hasCredentials,
  judgeSession,
  type Session,
  sessionGuard,
  type SessionRow,
  verifyCredentials,
} from '../modules/auth/auth.service.js';
import type { AccessClaims } from '../modules/auth/tokens.js';
import type { Viewer } from '../modules/auth/viewer.js';
import type { Limiter } from '../modules/common/limiter.js';
import type { ResolverContext, ServiceDependencies, SessionCookies } from '../modules/context.js';
import { createLoaders, type Loaders } from '../modules/loaders.js';
import type { OperationBudget } from './rate-limit.js';
import type { ReadRouting } from './read-routing.js';
import type { OperationRecord } from './logging.js';
import { clearSessionCookies, readCookie, REFRESH_COOKIE, ACCESS_COOKIE, setSessionCookies } from './cookies.js';

/** What only the transport knows: the request id, and the session cookies of browsers. */
export interface Transport extends SessionCookies {
  requestId: string;
  /** A header of the HTTP request the operation came in (GraphQL over HTTP and REST); none over a socket. */
  header?(name: string): string | undefined;
  /** The operation's record, filled in by Apollo's plugin: HTTP's is logged; a socket's query or mutation has one too, not logged. */
  record?: OperationRecord;
}

/** An operation past its checks: its walk and its coerced variables. */
export interface CheckedOperation {
  walk: OperationWalk;
  variables: Record<string, unknown>;
}

/** The GraphQL context: what resolvers are given (modules/context.ts), plus what only the server uses. */
export interface GraphQLContext extends ResolverContext {
  transport: Transport;
  /**
   * The operation's statements, cancelled as a whole past its time budget: `database` is a
   * view scoped to it, through which every statement of the operation goes.
   */
  statements: StatementScope;
  /** The budget the running operation was counted against; set by the rate-limit check before it runs. */
  rateLimit: OperationBudget | null;
  /**
   * The operation as the checks walked it (read/operation-walk.ts) with its coerced variables,
   * set by them before it runs: the executor reads the same walk. Null before, and for variables that do not coerce.
   */
  checked: CheckedOperation | null;
  /** The form a rendered read writes the answer in: GraphQL's, or the REST form for a REST route's operation (rest/run-operation.ts). */
  answerForm: AnswerForm;
  /**
   * The viewer's session while it is not yet read (see UnconfirmedSession), else null:
   * nothing of the operation may run before it is confirmed.
   */
  unconfirmedSession: UnconfirmedSession | null;
}

/**
 * The one way a context is made, over every transport. Loaders are created on first use:
 * an operation that reads nothing (`{ __typename }`, most mutations' refusals) and idle
 * subscriptions hold none.
 */
export function createContext(deps: ContextDependencies, parts: ContextParts): GraphQLContext {
  return new (contextClassOf(deps))(deps.database, parts);
}

/**
 * The context class of one set of dependencies: they sit on its prototype, shared, so a
 * request's context holds only what is its own. Apollo Server copies the context it is given
 * (cloneObject, property by property onto an object of the same prototype) at every request;
 * with the ten dependencies own properties, that copy alone was about 2 % of `{ __typename }`'s
 * time in Node, and the constructor copied them first.
 */
function contextClassOf(deps: ContextDependencies): new (database: Database, parts: ContextParts) => RequestContext {
  let made = contextClasses.get(deps);
  if (!made) {
    made = class extends RequestContext {};
    Object.assign(made.prototype, deps, { reads: deps.reads ?? null });
    contextClasses.set(deps, made);
  }
  return made;
}

const contextClasses = new WeakMap<ContextDependencies, new (database: Database, parts: ContextParts) => RequestContext>();

type ContextParts = {
  viewer: Viewer | null;
  clientAddress: string;
  now: Date;
  transport: Transport;
  unconfirmedSession?: UnconfirmedSession | null;
};

/** The service dependencies, plus what only the server uses around the services: where reads go. */
export interface ContextDependencies extends ServiceDependencies {
  /** With a standby (DATABASE_READ_URL): which database each query reads from; null or absent = every statement on `database`. */
  reads?: ReadRouting | null;
}

/**
 * Runs an operation of type `type` on the database it belongs on: the one way reads are routed,
 * so services never choose. A context starts on the primary (credentials, rate limits and
 * everything before the operation run there); a query then reads from the standby when
 * {@link ReadRouting} allows, and runs again on the primary if the standby fails under it or
 * refuses a write the query makes (a query's writes keep derived rows current and are
 * idempotent, so running it twice is safe). After a mutation the caller's write
 * position is remembered, so its next reads see what it wrote. Subscriptions stay on the
 * primary: their events are read as they are announced, which the standby may not have yet.
 */
export function runOnItsDatabase<T>(context: GraphQLContext, type: OperationTypeNode, work: () => Promise<T>): Promise<T> {
  const reads = (context as RequestContext).reads;
  // Without a standby, the work's own promise: an async function around it would cost a promise and turns of the queue.
  if (!reads || type === 'subscription') return work();
  return runRouted(context, type, reads, work);
}

async function runRouted<T>(context: GraphQLContext, type: OperationTypeNode, reads: ReadRouting, work: () => Promise<T>): Promise<T> {
  const principals = principalsOf(context);
  if (type === 'mutation') {
    try {
      return await work();
    } finally {
      await reads.wrote(principals);
    }
  }
  const requestContext = context as RequestContext;
  const database = await reads.databaseForReads(principals);
  requestContext.useDatabase(database);
  let outcome: T;
  try {
    outcome = await work();
  } catch (error) {
    if (reads.rerouteReason(database, error) === null) throw error;
    requestContext.useDatabase(reads.rerouted(error));
    return work();
  }
  const failure = standbyFailureIn(outcome, (error) => reads.rerouteReason(database, error) !== null);
  if (failure === undefined) return outcome;
  requestContext.useDatabase(reads.rerouted(failure));
  return work();
}

/** Who a caller is for read-your-writes: its user (every session and API key of it) and its client address (signed out, or signing in). */
function principalsOf(context: GraphQLContext): string[] {
  const client = `client:${context.clientAddress}`;
  return context.viewer ? [`user:${context.viewer.userId}`, client] : [client];
}

/** The first error of an execution result that `isFailure` picks (resolvers' errors are caught into the result); undefined when none. */
function standbyFailureIn(outcome: unknown, isFailure: (error: unknown) => boolean): unknown {
  const errors = (outcome as { errors?: readonly { originalError?: unknown }[] } | null)?.errors;
  return errors?.map((error) => error.originalError ?? error).find(isFailure);
}

/**
 * A context as a class rather than a spread object with an accessor defined on it: that
 * made every context a dictionary-mode object (slow to build, and every `ctx.loaders` and
 * `ctx.viewer` a hash lookup); here each has the same hidden class and `loaders` is a
 * getter of the prototype.
 */
class RequestContext {
  private cachedLoaders: Loaders | undefined;

  constructor(database: Database, parts: ContextParts) {
    this.viewer = parts.viewer;
    this.clientAddress = parts.clientAddress;
    this.now = parts.now;
    this.transport = parts.transport;
    this.unconfirmedSession = parts.unconfirmedSession ?? null;
    this.statements = new StatementScope(parts.transport.requestId, parts.viewer?.userId ?? null, parts.now);
    this.database = database.scopedTo(this.statements);
    this.cachedLoaders = undefined;
    this.rateLimit = null;
    this.checked = null;
    this.answerForm = 'graphql';
  }

  /** Reads (and loaders made from now on) go to `database`, in the operation's statement scope. */
  useDatabase(database: Database): void {
    this.database = database.scopedTo(this.statements);
    this.cachedLoaders = undefined;
  }

  get loaders(): Loaders {
    return (this.cachedLoaders ??= createLoaders((this as unknown as GraphQLContext).database.db));
  }
}
/**
 * Drops what the context's reads made: its loaders (and the rows they cached) and its Drizzle
 * handle, made again if it reads later. A subscription's context lives for hours and each of its
 * events reads with loaders of its own, so what its set-up read with (checking the pool exists,
 * say) would only hold memory: about a kilobyte a subscription.
 */
export function forgetReads(context: GraphQLContext): void {
  (context as unknown as RequestContext).useDatabase(context.database.shared);
}

/**
 * The context one event of a subscription is resolved with: the subscription's (its viewer,
 * transport and the service's dependencies, which its class's prototype holds), with the
 * event's loaders and time. A spread of the subscription's context would drop the dependencies:
 * a field reading the chain (a user's balance) would answer CHAIN_UNAVAILABLE.
 */
export function eventContext(subscription: GraphQLContext, loaders: Loaders, now: Date): GraphQLContext {
  return Object.create(Object.getPrototypeOf(subscription) as object, {
    ...Object.getOwnPropertyDescriptors(subscription),
    loaders: { value: loaders, enumerable: true },
    now: { value: now, enumerable: true },
  }) as GraphQLContext;
}

// The parts are assigned in the constructor, the deps are its class's prototype's (contextClassOf); the class adds `loaders`, and `useDatabase` for runOnItsDatabase.
interface RequestContext extends Omit<GraphQLContext, 'loaders'> {
  reads: ReadRouting | null;
}

/**
 * The credentials step: authenticates `credentials`; invalid ones fail the whole request
 * with UNAUTHENTICATED rather than silently running signed out. The cheap checks come
 * first and need no database (an access token's signature and expiry, an API key's
 * checksum), so a guessed or mistyped credential costs no lookup. Each failure is counted
 * per client address in `failures`; a failure over that budget answers RATE_LIMITED with
 * Retry-After instead. A valid credential is never refused for its address's failures.
 *
 * With `deferSession`, a bearer token's session is not read here: it comes back as an
 * {@link UnconfirmedSession} for the operation to confirm (a rendered read folds the check
 * into its one statement). Only for a transport whose every operation goes through the
 * Apollo plugin, which confirms it before anything of the operation runs.
 */
export async function authenticateClient(
  deps: ServiceDependencies,
  credentials: Credentials,
  clientAddress: string,
  failures: Limiter,
  deferSession = false,
): Promise<{ viewer: Viewer | null; unconfirmedSession: UnconfirmedSession | null }> {
  if (!hasCredentials(credentials)) return { viewer: null, unconfirmedSession: null };
  const refuse = (error: unknown) => refuseCredential(error, clientAddress, failures);
  try {
    const { viewer, session } = await verifyCredentials(deps, credentials, deps.clock());
    if (!session) return { viewer, unconfirmedSession: null };
    if (deferSession) return { viewer, unconfirmedSession: new UnconfirmedSession(session, deps.database, refuse) };
    await confirmSession(deps.database, session);
    return { viewer, unconfirmedSession: null };
  } catch (error) {
    return refuse(error);
  }
}

/** Throws a credential's failure; an UNAUTHENTICATED one counted against its address first (RATE_LIMITED past the budget). */
async function refuseCredential(error: unknown, clientAddress: string, failures: Limiter): Promise<never> {
  if (!(error instanceof AppError) || error.code !== 'UNAUTHENTICATED') throw error;
  // Only failures are counted, and only after the credential failed: a valid one is never refused by this budget.
  const wait = (await failures.consume(clientAddress)).retryAfterSeconds;
  if (wait !== null) throw rateLimited(wait, `Too many failed authentications from this address; retry after ${wait} s`);
  throw error;
}

/**
 * A bearer token's session not read yet. The token's signature and expiry hold, so the
 * operation is counted against its user's rate limit; the session row still decides, before
 * anything of the operation runs: read alone ({@link confirmViewer}), or by a rendered read's
 * one statement ({@link firstStatementCheck}), which computes nothing for an ended session.
 * Refused, the request answers what the credentials step answers (UNAUTHENTICATED, counted
 * against the address), and the units the operation took go back to the user's budget: a
 * stale token never spends its user's budget.
 */
export class UnconfirmedSession {
  constructor(
    private readonly claims: AccessClaims,
    private readonly database: Database,
    private readonly refuse: (error: unknown) => Promise<never>,
  ) {}

  /**
   * The session check folded into the operation's first read statement on `database`
   * (StatementScope.checkWithFirstStatement), judged as {@link judge} judges; undefined on
   * another database than the session's own (a standby may not have a sign-out yet).
   */
  firstStatementCheck(database: Database, context: GraphQLContext): FirstStatementCheck | undefined {
    if (database.shared !== this.database.shared) return undefined;
    const { write, values } = sessionGuard(this.claims);
    return { write, values, judge: (row) => this.judge(context, row as unknown as SessionRow) };
  }

  /** The refusal this session answered, once it has (a read that carried its check rethrows it rather than falling back). */
  refusal: unknown = undefined;

  /** Reads the session; throws the refusal (see the class) when it is not open or not the token's. */
  async confirm(context: GraphQLContext): Promise<void> {
    await this.settle(context, () => confirmSession(this.database.scopedTo(context.statements), this.claims));
  }

  /** Judges the session row a guarded statement read; throws the refusal as {@link confirm} does. */
  async judge(context: GraphQLContext, row: SessionRow): Promise<void> {
    await this.settle(context, () => judgeSession(this.claims, row));
  }

  private async settle(context: GraphQLContext, check: () => unknown): Promise<void> {
    try {
      await check();
    } catch (error) {
      const taken = context.rateLimit;
      context.rateLimit = null;
      await taken?.giveBack();
      try {
        await this.refuse(error);
      } catch (refusal) {
        this.refusal = refusal;
        throw refusal;
      }
    }
    if (context.unconfirmedSession === this) context.unconfirmedSession = null;
  }
}

/** Confirms the context's viewer's session if it is not yet (see UnconfirmedSession); throws its refusal. */
export async function confirmViewer(context: GraphQLContext): Promise<void> {
  await context.unconfirmedSession?.confirm(context);
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
  deps: ContextDependencies,
  request: FastifyRequest,
  reply: FastifyReply,
  secureCookies: boolean,
  failures: Limiter,
  record?: OperationRecord,
  deferSession = false,
): Promise<GraphQLContext> {
  const { viewer, unconfirmedSession } = await authenticateClient(deps, credentialsOfRequest(request), request.ip, failures, deferSession);
  return createContext(deps, {
    viewer,
    unconfirmedSession,
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

  header(name: string): string | undefined {
    const value = this.reply.request.headers[name];
    return Array.isArray(value) ? value.join(',') : value;
  }

  setSessionCookies(session: Session): void {
    setSessionCookies(this.reply, session, this.secureCookies);
  }

  clearSessionCookies(): void {
    clearSessionCookies(this.reply, this.secureCookies);
  }
}
