import { randomUUID } from 'node:crypto';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { DestinationStream } from 'pino';
import type { ChainRuntime } from '../chain/runtime.js';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import { createSignInLimits } from '../modules/auth/auth.service.js';
import type { ServiceDependencies } from '../modules/context.js';
import { EventHub } from '../modules/events/event-hub.js';
import { createHttpContext, type GraphQLContext } from './context.js';
import { argumentErrorsPlugin, createFormatError } from './errors.js';
import { explorerPage, registerExplorerAssets, wantsExplorer } from './explorer.js';
import { operationGuardPlugin } from './guard.js';
import { createCostCheck, limitParseOptions, structuralLimitRules } from './limits.js';
import { LoadMonitor, registerLoadShedding, retryAfterSeconds } from './load-shedding.js';
import { logRequest, OperationTracker } from './logging.js';
import { Metrics, registerMetricsRoute } from './metrics.js';
import { createRateLimitCheck } from './rate-limit.js';
import { getSchema } from './schema.js';
import { sendTimeout, TIMED_OUT, withinBudget } from './time-budget.js';
import { attachGraphQLWebSocket } from './websocket.js';
import { apolloRunOperation, registerRest } from './rest/index.js';
import { loadTrustedDocuments, trustedDocumentsCache, trustedDocumentsGuard } from './trusted-documents.js';

export interface AppOptions {
  config: Pick<
    Config,
    | 'mode'
    | 'introspection'
    | 'logLevel'
    | 'auth'
    | 'limits'
    | 'http'
    | 'rateLimit'
    | 'loadShedding'
    | 'metrics'
    | 'trustedDocumentsPath'
  > & { chain: Pick<Config['chain'], 'minWithdrawAmount'> };
  database: Database;
  /** The chain transactions go to; none means the transaction mutations answer CHAIN_UNAVAILABLE. */
  chain?: ChainRuntime | null;
  /** The time source of every request (tests move it); the system clock by default. */
  clock?: () => Date;
  /** Where log lines go (tests read them); standard output by default. */
  logStream?: DestinationStream;
}

/**
 * The HTTP server: GraphQL at /graphql (POST and GET; the explorer for browsers),
 * /healthz (the process answers) and /readyz (the database answers and the process is not
 * shedding load); graphql-ws on /graphql too.
 */
export async function createApp({ config, database, chain = null, clock = () => new Date(), logStream }: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: config.logLevel, ...(logStream ? { stream: logStream } : {}) },
    // One line per request is written by logRequest, with the operation's name.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.http.bodyLimitBytes,
    trustProxy: config.http.trustProxy,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && /^[\w-]{1,64}$/.test(given) ? given : randomUUID();
    },
  });
  const metrics = new Metrics(database);
  metrics.trackSockets(app.server);
  const tracker = new OperationTracker();
  const loadMonitor = new LoadMonitor(config.loadShedding);
  registerLoadShedding(app, loadMonitor, (pressure) => metrics.shed.inc({ pressure }));
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    const record = tracker.recordOf(request);
    logRequest(request, reply, record);
    metrics.observe(request, reply, record);
  });
  app.setErrorHandler((error: { code?: string }, _request, reply) => {
    if (error.code !== 'FST_ERR_CTP_BODY_TOO_LARGE') throw error;
    const limit = config.http.bodyLimitBytes;
    return reply.code(413).send({
      errors: [{ message: `The request body exceeds the limit of ${limit} bytes`, extensions: { code: 'REQUEST_TOO_LARGE', limit } }],
    });
  });
  registerMetricsRoute(app, metrics, config.metrics);

  const trustedDocuments = config.trustedDocumentsPath ? loadTrustedDocuments(config.trustedDocumentsPath) : null;
  const costCheck = createCostCheck(config.limits);
  const rateLimitCheck = createRateLimitCheck(config.rateLimit);
  const schema = await getSchema({ devTokens: chain?.isDevchain ?? false });
  const formatError = createFormatError({ exposeInternals: config.mode === 'development' });
  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    introspection: config.introspection,
    // "Did you mean ...?" suggestions reveal the schema as much as introspection does.
    hideSchemaDetailsFromClientErrors: !config.introspection,
    includeStacktraceInErrorResponses: config.mode === 'development',
    // Unexpected errors are logged with their request id by the tracker's plugin.
    formatError,
    // Apollo's defaults, stated because they are part of the contract.
    csrfPrevention: true,
    allowBatchedHttpRequests: false,
    // With trusted documents, persisted queries are read from the manifest only.
    persistedQueries: trustedDocuments ? { cache: trustedDocumentsCache(trustedDocuments) } : undefined,
    parseOptions: limitParseOptions(config.limits),
    validationRules: structuralLimitRules(config.limits),
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      argumentErrorsPlugin(),
      tracker.plugin(),
      operationGuardPlugin([
        ({ schema, document, request }, operation) => costCheck(schema, document, operation, request.variables),
        ({ document, contextValue }, operation) => rateLimitCheck(document, operation, contextValue),
      ]),
    ],
  });
  await apollo.start();
  // fastify drains its own connections on close; Apollo stops after them.
  app.addHook('onClose', () => apollo.stop());

  const events = new EventHub(database, clock, (error) => app.log.warn({ err: error }, 'an event could not be announced to subscribers'));
  await events.start();
  app.addHook('onClose', () => events.stop());

  const deps: ServiceDependencies = {
    database,
    auth: config.auth,
    signInLimits: createSignInLimits(config.auth),
    clock,
    chain,
    minWithdrawAmount: config.chain.minWithdrawAmount,
    events,
    onChainSubmission: (submission) => metrics.chainSubmissions.inc(submission),
  };
  const httpContext = (request: FastifyRequest, reply: FastifyReply) =>
    tracker.track(request, () => createHttpContext(deps, request, reply, config.auth.secureCookies));
  const graphqlHandler = fastifyApolloHandler(apollo, { context: httpContext });
  app.route({
    method: ['GET', 'POST', 'OPTIONS'],
    url: '/graphql',
    ...(trustedDocuments ? { preHandler: trustedDocumentsGuard(trustedDocuments) } : {}),
    async handler(request, reply) {
      if (
        config.introspection &&
        request.method === 'GET' &&
        wantsExplorer(request.headers.accept, request.query as Record<string, unknown>)
      ) {
        return reply.type('text/html; charset=utf-8').send(explorerPage());
      }
      const budgetMs = config.http.requestTimeoutMs;
      const result = await withinBudget(budgetMs, Promise.resolve(graphqlHandler.call(this, request as never, reply as never)));
      if (result !== TIMED_OUT) return result;
      tracker.recordOf(request)?.codes.unshift('OPERATION_TIMEOUT');
      return sendTimeout(reply, budgetMs);
    },
  });
  if (config.introspection) registerExplorerAssets(app);
  await registerRest(app, { runOperation: apolloRunOperation(apollo, httpContext), requestTimeoutMs: config.http.requestTimeoutMs, exposeInternals: config.mode === 'development' });

  const sockets = attachGraphQLWebSocket({
    server: app.server,
    path: '/graphql',
    schema,
    deps,
    config,
    checks: [
      (document, operation, _context, variables) => costCheck(schema, document, operation, variables),
      (document, operation, context) => rateLimitCheck(document, operation, context),
    ],
    formatError,
    onSubscriptionCount: (delta) => metrics.subscriptions.inc(delta),
    // A new socket under pressure is refused like a request: 503 with Retry-After.
    refuseUpgrade: () => {
      const pressure = loadMonitor.enabled ? loadMonitor.pressure() : null;
      if (!pressure) return null;
      metrics.shed.inc({ pressure });
      return { retryAfter: retryAfterSeconds(loadMonitor, pressure) };
    },
  });
  // Graceful shutdown: sockets close with 1001 while in-flight HTTP requests finish.
  app.addHook('preClose', () => sockets.close());

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    try {
      await database.ping(2000);
      return { status: 'ready', database: database.kind };
    } catch (error) {
      app.log.warn({ err: error }, 'readiness check failed: database unreachable');
      return reply.code(503).header('retry-after', '5').send({ status: 'unavailable', database: database.kind });
    }
  });
  return app;
}
