import {
  ApolloServer,
  type ApolloServerPlugin,
  type GraphQLRequestContext,
  type GraphQLRequestListener,
  type GraphQLResponse,
  HeaderMap,
} from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
  ApolloServerPluginSchemaReportingDisabled,
  ApolloServerPluginUsageReportingDisabled,
} from '@apollo/server/plugin/disabled';
import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import { type DocumentNode, execute, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { AppError } from '../../errors.js';
import { confirmViewer, type GraphQLContext, runOnItsDatabase, type Transport } from '../context.js';
import { limitParseOptions, type OperationLimits, structuralLimitRules } from '../limits.js';
import type { OperationRecord } from '../logging.js';
import { TIMED_OUT, withinBudget } from '../time-budget.js';
import { rateLimitHeaders } from '../rate-limit.js';
import type { OperationToCheck } from './checks.js';
import { type FormattedError, formatError, retryAfterOf, statusOf } from './format-error.js';
import { responseMediaType } from './media-type.js';
import { ReadRenderer } from '../read-renderer.js';

/**
 * A rendered read's whole `data`, already JSON (ReadRenderer's pieces): it stands in the
 * result's `data` so that {@link stringifyResult} writes it as is, never parsed and
 * serialized again.
 */
export class RenderedData {
  constructor(private readonly pieces: string[]) {}

  /**
   * The response body, `{"data":…}`, encoded once from the pieces into one Buffer: joining
   * them first would copy the whole body into a new string, then encode it again.
   */
  body(): Buffer {
    const pieces = this.pieces;
    let length = DATA_OPEN.length + 1;
    for (const piece of pieces) length += Buffer.byteLength(piece);
    const body = Buffer.allocUnsafe(length);
    let offset = body.write(DATA_OPEN, 0);
    for (const piece of pieces) offset += body.write(piece, offset);
    body.write('}', offset);
    return body;
  }

  /** The data as a value, for a plugin that reads it (the server itself never does). */
  toJSON(): unknown {
    return JSON.parse(this.pieces.join(''));
  }
}

const DATA_OPEN = '{"data":';

/**
 * Apollo Server's serializer: a rendered read's bytes pass through; anything else is
 * JSON.stringify'd. Apollo hands the "string" to the HTTP handler untouched (only batching,
 * which is off, would read it as text), and fastify sends a Buffer as it is.
 */
function stringifyResult(value: { data?: unknown; errors?: unknown }): string {
  if (value.data instanceof RenderedData && value.errors === undefined) return value.data.body() as unknown as string;
  return JSON.stringify(value);
}

export interface PoolgraphApolloOptions {
  schema: GraphQLSchema;
  limits: OperationLimits;
  introspection: boolean;
  /** Queries answered by rendered reads where they render (ReadRenderer); off, every operation is executed. */
  renderedReads: boolean;
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
}

/**
 * Apollo Server as poolgraph runs it: the GraphQL protocol (GET and POST parsing, CSRF
 * prevention, batch refusal, automatic persisted queries, the parse and validation cache,
 * the token limit, introspection, hidden suggestions) is Apollo's; poolgraph's steps are
 * one plugin ({@link poolgraphPlugin}); Apollo's features that cost every request
 * (cache-control, inline traces, usage and schema reporting, the landing page) are off.
 * Started by the caller; stopped from fastify's close (our shutdown handles signals).
 */
export function createApolloServer(options: PoolgraphApolloOptions): ApolloServer<GraphQLContext> {
  return new ApolloServer<GraphQLContext>({
    schema: options.schema,
    introspection: options.introspection,
    hideSchemaDetailsFromClientErrors: !options.introspection,
    validationRules: structuralLimitRules(options.limits),
    parseOptions: limitParseOptions(options.limits),
    persistedQueries: { cache: options.persistedQueries },
    csrfPrevention: true,
    allowBatchedHttpRequests: false,
    includeStacktraceInErrorResponses: false,
    stopOnTerminationSignals: false,
    // Errors Apollo meets before the plugin answers; willSendResponse gives an unexpected one its request id.
    formatError: (_formatted, error) => formatError(error, '', options.exposeInternals),
    stringifyResult,
    plugins: [
      poolgraphPlugin(options),
      ...(options.plugins ?? []),
      ApolloServerPluginCacheControlDisabled(),
      ApolloServerPluginInlineTraceDisabled(),
      ApolloServerPluginUsageReportingDisabled(),
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
 * - responseForOperation: a subscription (graphql-ws's) handed back to the socket; a rendered
 *   read where the query renders (HTTP GraphQL only), else execution by graphql-js, within the time budget;
 *   errors formatted by the one formatter with the request id.
 * - willSendResponse: the status policy (statusOf) with Retry-After, the media type Apollo
 *   would choose (responseMediaType), and the codes for the request's log line and metrics.
 * The listener holds no per-request state: one object serves every request.
 */
export function poolgraphPlugin(options: PoolgraphApolloOptions): ApolloServerPlugin<GraphQLContext> {
  const { schema, checkOperation, budgetMs, exposeInternals } = options;
  const renderer = options.renderedReads ? new ReadRenderer(schema) : null;
  // Every transport gives an operation's context a record: the GraphQL route and REST their tracker's, graphql-ws its own.
  const recordOf = (context: GraphQLContext): OperationRecord => context.transport.record!;

  const format = (errors: readonly unknown[], context: GraphQLContext): FormattedError[] =>
    errors.map((error) => formatError(error, context.transport.requestId, exposeInternals, recordOf(context).internalErrors));

  const answer = (rc: GraphQLRequestContext<GraphQLContext>): Promise<ExecutionResult | RenderedData> => {
    const context = rc.contextValue;
    const document = rc.document!;
    const operation = rc.operation!;
    const variables = rc.request.variables;
    return runOnItsDatabase(context, operation.operation, async () => {
      // Only a /graphql request (it has an HTTP head) is written by stringifyResult; executeOperation's callers read values.
      if (renderer && rc.request.http) {
        const data = await renderer.answer(document, operation, context, variables);
        if (data !== null) {
          recordOf(context).rendered = true;
          return new RenderedData(data);
        }
      }
      await confirmViewer(context);
      return execute({ schema, document, operationName: rc.operationName, contextValue: context, variableValues: variables });
    });
  };

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

    async responseForOperation(rc): Promise<GraphQLResponse | null> {
      if (!rc.operation) return null;
      // Past the checks, a subscription is a socket's (refused over HTTP): the socket opens it.
      if (rc.operation.operation === 'subscription') {
        socketSubscriptions.set(rc.contextValue.transport, { document: rc.document!, operation: rc.operation });
        return { http: NO_HEAD, body: { kind: 'single', singleResult: {} } };
      }
      let outcome: ExecutionResult | RenderedData | typeof TIMED_OUT;
      try {
        // Past the budget, the statements of the operation's scope are cancelled.
        outcome = await withinBudget(budgetMs, answer(rc), rc.contextValue.statements);
        if (outcome === TIMED_OUT)
          throw new AppError('OPERATION_TIMEOUT', `The request did not complete within its time budget of ${budgetMs} ms`, { budgetMs });
      } catch (error) {
        return { http: NO_HEAD, body: { kind: 'single', singleResult: { errors: format([error], rc.contextValue) } } };
      }
      if (outcome instanceof RenderedData) return { http: NO_HEAD, body: { kind: 'single', singleResult: { data: outcome as never } } };
      // No `data`: the variables could not be coerced, so nothing ran (a request error, BAD_USER_INPUT).
      const errors = outcome.errors ? format(outcome.errors, rc.contextValue) : undefined;
      const singleResult = 'data' in outcome ? (errors ? { data: outcome.data, errors } : { data: outcome.data }) : { errors: errors! };
      return { http: NO_HEAD, body: { kind: 'single', singleResult } };
    },

    willSendResponse(rc) {
      if (rc.response.body.kind !== 'single') return SETTLED;
      const result = rc.response.body.singleResult;
      const context = rc.contextValue;
      const record = recordOf(context);
      const errors = (result.errors ?? []) as FormattedError[];
      record.codes = errors.map((error) => error.extensions.code);
      for (const error of errors) if (error.extensions.requestId === '') error.extensions.requestId = context.transport.requestId;
      // Errors Apollo met and formatted (before execution; the plugin records its own): an unexpected one is logged with the request.
      if (rc.errors && record.codes.includes('INTERNAL_SERVER_ERROR')) record.internalErrors.push(...rc.errors);
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
