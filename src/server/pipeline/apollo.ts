import {
  type ApolloServerOptions,
  type ApolloServerPlugin,
  type GraphQLRequestListener,
  type GraphQLResponse,
  HeaderMap,
} from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled, ApolloServerPluginSchemaReportingDisabled } from '@apollo/server/plugin/disabled';
import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import type { DocumentNode, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { confirmViewer, type GraphQLContext, type Transport } from '../context.js';
import { limitParseOptions, type OperationLimits, shapeLimitRules } from '../limits.js';
import type { OperationRecord } from '../logging.js';
import { rateLimitHeaders } from '../rate-limit.js';
import type { OperationToCheck } from './checks.js';
import { ApolloServer } from './apollo-server.js';
import { type FormattedError, formatError, originalOf, retryAfterOf, statusOf } from './format-error.js';
import { responseMediaType } from './media-type.js';
import { plannedReadGateway, RenderedData } from './planned-read.js';
import type { OperationWalks } from '../../read/operation-walks.js';
import type { ReadRenderer } from '../read-renderer.js';

/** Apollo Server's logger interface (pino's matches it). */
type Logger = NonNullable<ApolloServerOptions<GraphQLContext>['logger']>;

/**
 * Apollo Server's serializer: a rendered read's bytes pass through; anything else is
 * JSON.stringify'd. Apollo hands the "string" to the HTTP handler untouched (only batching,
 * which is off, would read it as text), and fastify sends a Buffer as it is.
 */
function stringifyResult(value: { data?: unknown; errors?: unknown; extensions?: unknown }): string {
  if (value.data instanceof RenderedData && value.errors === undefined) return value.data.body(value.extensions) as unknown as string;
  return JSON.stringify(value);
}

export interface PoolgraphApolloOptions {
  schema: GraphQLSchema;
  limits: OperationLimits;
  introspection: boolean;
  /** The server's walks of its operations, which the checks made (read/operation-walks.ts). */
  walks: OperationWalks;
  /** Answers the queries that render (ReadRenderer); null, every operation is executed. */
  renderer: ReadRenderer | null;
  /** Messages and stack traces of unexpected errors in responses (development only). */
  exposeInternals: boolean;
  /** With trusted documents, their store (TrustedDocumentStore.apolloCache); else Apollo's own cache holds automatic persisted queries. */
  persistedQueries?: KeyValueCache<string>;
  /** The checks before execution (see createOperationChecks). */
  checkOperation: (operation: OperationToCheck) => Promise<void>;
  /** Time budget of an operation's execution in ms (0 = none); past it, OPERATION_TIMEOUT and its statements cancelled. */
  budgetMs: number;
  /** The deployment's own Apollo plugins (src/server/apollo-plugins.ts), run after ours. */
  plugins?: ApolloServerPlugin<GraphQLContext>[];
  /** No plugin but Apollo's cache control follows fields (see PlannedReadOptions). */
  cacheControlAloneFollowsFields?: boolean;
  /** Where Apollo's own messages go (the process's log, so they are JSON lines like the rest); its console logger if none. */
  logger?: Logger;
}

/**
 * Apollo Server as poolgraph runs it: the GraphQL protocol (GET and POST parsing, CSRF
 * prevention, batch refusal, automatic persisted queries, the parse and validation cache,
 * the token limit, introspection, hidden suggestions) and the request's whole life are
 * Apollo's, its execution phase included: what it executes is the planned read
 * (plannedReadGateway, given through Apollo's gateway seam). poolgraph's steps are one
 * plugin ({@link poolgraphPlugin}) before the deployment's own; Apollo installs its cache
 * control plugin (and, for a federated subgraph, its inline traces) as it does by default.
 * Schema reporting and the landing page stay off. Started by the caller; stopped from
 * fastify's close (our shutdown handles signals).
 */
export function createApolloServer(options: PoolgraphApolloOptions): ApolloServer<GraphQLContext> {
  return new ApolloServer<GraphQLContext>({
    gateway: plannedReadGateway(options),
    introspection: options.introspection,
    hideSchemaDetailsFromClientErrors: !options.introspection,
    validationRules: shapeLimitRules(options.limits),
    parseOptions: limitParseOptions(options.limits),
    persistedQueries: { cache: options.persistedQueries },
    csrfPrevention: true,
    allowBatchedHttpRequests: false,
    includeStacktraceInErrorResponses: false,
    stopOnTerminationSignals: false,
    logger: options.logger,
    // Every error Apollo answers; willSendResponse gives an unexpected one its request id.
    formatError: (_formatted, error) => formatError(error, '', options.exposeInternals),
    stringifyResult,
    plugins: [
      poolgraphPlugin(options),
      ...(options.plugins ?? []),
      socketSubscriptionsPlugin(),
      ApolloServerPluginSchemaReportingDisabled(),
      ApolloServerPluginLandingPageDisabled(),
    ],
  });
}

/**
 * graphql-ws hands every operation to executeOperation, subscriptions too, by the context's
 * transport, which it enters here first: Apollo takes a subscription's document (persisted
 * queries included), parses, validates and checks it as any other, and the plugin leaves it
 * here, resolved (its document and operation), for the socket to run (Apollo Server does not).
 */
export const socketSubscriptions = new WeakMap<Transport, { document: DocumentNode; operation: OperationDefinitionNode } | null>();

/** What a hook that has nothing to wait for returns (Apollo awaits every hook). */
const SETTLED: Promise<void> = Promise.resolve();

/** The head of a plugin's response: nothing of its own (willSendResponse sets the status). */
const NO_HEAD = { status: undefined, headers: new HeaderMap() };

/**
 * poolgraph's steps as one Apollo plugin (one, because Apollo runs different plugins'
 * hooks of a stage in parallel, and these run in order):
 * - didResolveOperation: the operation's name and type for the log, then the checks before
 *   execution (subscription over HTTP, cost, rate limit: see createOperationChecks).
 * - willSendResponse: the status policy (statusOf) with Retry-After, the media type Apollo
 *   would choose (responseMediaType), and the codes for the request's log line and metrics.
 * It answers nothing itself: Apollo's execution phase runs the planned read
 * (plannedReadGateway). The listener holds no per-request state: one object serves every request.
 */
export function poolgraphPlugin(options: PoolgraphApolloOptions): ApolloServerPlugin<GraphQLContext> {
  const { checkOperation } = options;
  // Every transport gives an operation's context a record: the GraphQL route and REST their tracker's, graphql-ws its own.
  const recordOf = (context: GraphQLContext): OperationRecord => context.transport.record!;

  // The hooks that need not wait are plain functions: an async function costs a promise and
  // a turn of the microtask queue per request and hook.
  const listener: GraphQLRequestListener<GraphQLContext> = {
    didResolveOperation(rc) {
      // No operation of that name: Apollo's execution answers OPERATION_RESOLUTION_FAILURE.
      if (!rc.operation) return SETTLED;
      const record = recordOf(rc.contextValue);
      record.name = rc.operationName;
      record.type = rc.operation.operation;
      const checked = checkOperation({
        document: rc.document!,
        operation: rc.operation,
        variables: rc.request.variables,
        context: rc.contextValue,
        overHttp: rc.operation.operation !== 'subscription' || !socketSubscriptions.has(rc.contextValue.transport),
      });
      if (!rc.contextValue.unconfirmedSession) return checked;
      // Refused with its session not yet read: an ended session answers as the credentials step would have.
      return checked.catch(async (error: unknown) => {
        await confirmViewer(rc.contextValue);
        throw error;
      });
    },

    willSendResponse(rc) {
      if (rc.response.body.kind !== 'single') return SETTLED;
      const result = rc.response.body.singleResult;
      const context = rc.contextValue;
      const record = recordOf(context);
      const errors = (result.errors ?? []) as FormattedError[];
      record.codes = errors.map((error) => error.extensions.code);
      for (const error of errors) if (error.extensions.requestId === '') error.extensions.requestId = context.transport.requestId;
      // Errors Apollo met (didEncounterErrors): an unexpected one is logged with the request.
      if (rc.errors && record.codes.includes('INTERNAL_SERVER_ERROR')) record.internalErrors.push(...rc.errors.map(originalOf));
      const status = statusOf(errors, 'data' in result, result.data, rc.operation?.operation);
      rc.response.http.status = status;
      // Apollo's own choice of media type, made once per Accept header rather than by Apollo at every request.
      const mediaType = rc.request.http && responseMediaType(rc.request.http.headers.get('accept'));
      if (mediaType) rc.response.http.headers.set('content-type', mediaType);
      const retryAfter = retryAfterOf(errors, status);
      if (retryAfter !== null) rc.response.http.headers.set('retry-after', String(retryAfter));
      // Every answer of a counted operation says what is left of its budget, the 429 included.
      if (context.rateLimit)
        for (const [name, value] of Object.entries(rateLimitHeaders(context.rateLimit))) rc.response.http.headers.set(name, value);
      return SETTLED;
    },
  };
  const started = Promise.resolve(listener);
  return { requestDidStart: () => started };
}

/**
 * Hands a subscription, past the checks, back to the socket that opens it (graphql-ws's
 * subscribe path; refused over HTTP by the checks). Last among the plugins, so that every
 * other plugin's responseForOperation is asked first; Apollo then runs no execution phase
 * for it: the socket's events run through graphql-js subscribe. It listens to a socket's
 * operations only (the socket enters them in socketSubscriptions first): a listener costs
 * every hook of every request a call and a promise, and HTTP and REST never hand one over.
 */
function socketSubscriptionsPlugin(): ApolloServerPlugin<GraphQLContext> {
  const listener: GraphQLRequestListener<GraphQLContext> = {
    responseForOperation(rc) {
      if (rc.operation?.operation !== 'subscription') return NOT_ANSWERED;
      socketSubscriptions.set(rc.contextValue.transport, { document: rc.document, operation: rc.operation });
      return SUBSCRIPTION_HANDED_OVER;
    },
  };
  const started = Promise.resolve(listener);
  return { requestDidStart: (rc) => (socketSubscriptions.has(rc.contextValue.transport) ? started : NOT_LISTENING) };
}

const NOT_LISTENING: Promise<void> = Promise.resolve();
const NOT_ANSWERED: Promise<null> = Promise.resolve(null);
const SUBSCRIPTION_HANDED_OVER: Promise<GraphQLResponse> = Promise.resolve({ http: NO_HEAD, body: { kind: 'single', singleResult: {} } });
