// type-graphql's decorators need the metadata API before any module declaring a type loads: whoever starts the app (main, bench, tests) gets it here.
import 'reflect-metadata';
/**
 * `createApp`: the HTTP server assembled from its parts, in the order a request meets them:
 * edge checks, load shedding, limits, GraphQL over HTTP (Apollo Server with poolgraph's
 * plugin), the explorer, images, the REST form, graphql-ws on the same path, and the
 * operational routes (/, /healthz, /readyz, /metrics).
 */
import './graphql-production.js';
import { randomUUID } from 'node:crypto';
import type { ApolloServerPlugin } from '@apollo/server';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { DestinationStream } from 'pino';
import type { ChainRuntime } from '../chain/runtime.js';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import { createSignInLimits } from '../modules/auth/auth.service.js';
import { type LimiterFactory, memoryLimiters } from '../modules/common/limiter.js';
import { EventHub } from '../modules/events/event-hub.js';
import { registerImageRoutes } from './image.routes.js';
import { type ContextDependencies, createHttpContext, type GraphQLContext } from './context.js';
import { ReadRouting } from './read-routing.js';
import { answerClientError, isAllowedOrigin, registerEdge, refuseUpgradeAtEdge } from './edge.js';
import { registerExplorerAssets } from './explorer.js';
import { LoadMonitor, registerLoadShedding, retryAfterSeconds } from './load-shedding.js';
import { apolloPlugins } from './apollo-plugins.js';
import { logRequest, type OperationRecord, OperationTracker } from './logging.js';
import { Metrics, registerMetricsRoute } from './metrics.js';
import { createApolloServer } from './pipeline/apollo.js';
import { responseCache } from './response-cache.js';
import { createOperationChecks } from './pipeline/checks.js';
import { ReadRenderer } from './read-renderer.js';
import { OperationWalks } from '../read/operation-walks.js';
import { registerGraphQLRoute } from './pipeline/http.js';
import { TrustedDocumentStore } from './pipeline/persisted.js';
import { registerRefusals } from './pipeline/refusals.js';
import { createRunOperation, type RunOperation } from './pipeline/run-operation.js';
import { getSchema } from './schema.js';
import { loadTrustedDocuments } from './trusted-documents.js';
import { attachGraphQLWebSocket } from './websocket/transport.js';
import { redisLimiters } from './redis-limiter.js';
import { openSharedRedis, type SharedRedis } from './redis.js';
import { type ConnectionCapFactory, memoryCaps, redisCaps } from './connection-caps.js';
import { registerRest } from './rest/index.js';
import { requestIdOf } from '../db/statement-scope.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Logs (with the id of the request whose work created the promise) and counts a promise
     * rejection nothing handled; main.ts makes it the process's `unhandledRejection` handler.
     * One request's defect then costs that request, not every request the process serves.
     */
    reportUnhandledRejection(reason: unknown): void;
    /** The process's event hub (services publish through it; subscriptions listen on it). */
    readonly events: EventHub;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Closes every graphql-ws socket with 1001 and stops accepting them; peers that have not
     * closed within `graceMs` are terminated (the SIGTERM drain, src/server/shutdown.ts).
     */
    closeWebSockets(graceMs: number): Promise<void>;
  }
}

export interface AppOptions {
  config: Pick<
    Config,
    | 'mode'
    | 'introspection'
    | 'renderedReads'
    | 'responseCache'
    | 'logLevel'
    | 'auth'
    | 'limits'
    | 'http'
    | 'rateLimit'
    | 'loadShedding'
    | 'metrics'
    | 'trustedDocumentsPath'
    | 'images'
  > & {
    chain: Pick<Config['chain'], 'minWithdrawAmount'>;
    redis?: Config['redis'];
    /** True: an Apollo Federation subgraph too (modules/federation). */
    federationSubgraph?: Config['federationSubgraph'];
    /** With an OTLP endpoint: a span per operation, exported (src/server/telemetry.ts); none = no spans. */
    telemetry?: Config['telemetry'];
    /** With `readDatabase`: the primary's and the standby's connection strings, and the standby's lag bound. */
    databaseUrl?: Config['databaseUrl'];
    databaseRead?: Config['databaseRead'];
  };
  database: Database;
  /** A streaming standby of `database` (DATABASE_READ_URL) that serves queries; none = everything on `database`. */
  readDatabase?: Database | null;
  /** The chain transactions go to; none means the transaction mutations answer CHAIN_UNAVAILABLE. */
  chain?: ChainRuntime | null;
  /** The time source of every request (tests move it); the system clock by default. */
  clock?: () => Date;
  /** Where log lines go (tests read them); standard output by default. */
  logStream?: DestinationStream;
  /** Apollo Server plugins run after poolgraph's; src/server/apollo-plugins.ts by default. */
  plugins?: ApolloServerPlugin<GraphQLContext>[];
}

/**
 * The HTTP server: GraphQL at /graphql (POST and GET; the explorer for browsers),
 * /healthz (the process answers) and /readyz (the database answers, the process listens for
 * events and is not shedding load; 200 `degraded` while Redis does not answer); graphql-ws on /graphql too.
 */
export async function createApp({
  config,
  database,
  readDatabase = null,
  chain = null,
  clock = () => new Date(),
  logStream,
  plugins = apolloPlugins,
}: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: config.logLevel, ...(logStream ? { stream: logStream } : {}) },
    // One line per request is written by logRequest, with the operation's name.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.http.bodyLimitBytes,
    // Headers must arrive within this time too (Node's check; bodies: see registerEdge).
    requestTimeout: config.http.bodyTimeoutMs,
    trustProxy: config.http.trustProxy,
    clientErrorHandler: answerClientError,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && /^[\w-]{1,64}$/.test(given) ? given : randomUUID();
    },
  });
  // The hooks every request passes are callback-style: an async hook costs a promise each.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  const metrics = new Metrics({ primary: database, standby: readDatabase });
  app.decorate('reportUnhandledRejection', (reason: unknown) => {
    metrics.unhandledRejections.inc();
    // A failed statement names its operation's request (statement-scope.ts); no async context is kept to name others.
    app.log.error({ reqId: requestIdOf(reason), err: reason }, 'unhandled promise rejection (a defect): logged and counted, serving on');
  });
  metrics.trackSockets(app.server);
  if (chain) metrics.watchRelayerBalance(() => chain.client.lamports(chain.keys.relayer.publicKey));
  const tracker = new OperationTracker();
  const loadMonitor = new LoadMonitor(config.loadShedding, database);
  await registerEdge(app, config.http);
  registerLoadShedding(app, loadMonitor, (pressure) => metrics.shed.inc({ pressure }));
  app.addHook('onResponse', (request, reply, done) => {
    const record = tracker.recordOf(request);
    logRequest(request, reply, record);
    metrics.observe(request, reply, record);
    done();
  });
  registerRefusals(app, config.http.bodyLimitBytes);
  registerMetricsRoute(app, metrics, config.metrics);

  // Budgets and caps shared by the replicas when Redis is configured; this process's memory otherwise.
  const redis = config.redis?.url ? openRedis(app, { ...config.redis, url: config.redis.url }) : null;
  const limiters: LimiterFactory = redis ? redisLimiters(redis, config.redis!.keyPrefix) : memoryLimiters;
  let caps: ConnectionCapFactory = memoryCaps;
  if (redis) {
    const shared = redisCaps(redis, config.redis!.keyPrefix);
    app.addHook('onClose', async () => shared.close());
    caps = shared.caps;
  }
  const trustedDocuments = config.trustedDocumentsPath ? loadTrustedDocuments(config.trustedDocumentsPath) : null;
  const schema = await getSchema({ devTokens: chain?.isDevchain ?? false, subgraph: config.federationSubgraph ?? false });
  // Every operation is walked once per shape; the walk carries its checks and, for a query that renders, its rendered read.
  const renderer = config.renderedReads ? new ReadRenderer(schema) : null;
  const walks = new OperationWalks(schema, renderer?.planner);
  const checkOperation = createOperationChecks({
    walks,
    limits: config.limits,
    rateLimit: config.rateLimit,
    webSocketPath: '/graphql',
    limiters,
  });
  const exposeInternals = config.mode === 'development';
  // With a manifest, its documents by hash for every transport; without, Apollo keeps automatic persisted queries.
  const trusted = trustedDocuments ? new TrustedDocumentStore(trustedDocuments) : null;
  // A span per operation when an OTLP endpoint is set; unset, nothing of OpenTelemetry is loaded. It reads no viewer: sessions stay deferred.
  const telemetry = config.telemetry?.tracesEndpoint ? (await import('./telemetry.js')).openTelemetry(app, config.telemetry) : null;
  const apollo = createApolloServer({
    schema,
    limits: config.limits,
    introspection: config.introspection,
    walks,
    renderer,
    exposeInternals,
    persistedQueries: trusted?.apolloCache,
    checkOperation,
    budgetMs: config.http.requestTimeoutMs,
    logger: app.log,
    // Telemetry and the response cache follow no field; a deployment's plugin may, as Apollo's
    // inline traces (a subgraph) and usage reporting (APOLLO_KEY, read by Apollo) do.
    cacheControlAloneFollowsFields: plugins.length === 0 && !config.federationSubgraph && !process.env.APOLLO_KEY,
    plugins: [
      ...(telemetry ? [telemetry] : []),
      ...(config.responseCache ? [responseCache(redis && { shared: redis, keyPrefix: config.redis!.keyPrefix })] : []),
      ...plugins,
    ],
  });
  await apollo.start();
  app.addHook('onClose', () => apollo.stop());
  // Failed authentications per client address, over HTTP and sockets alike.
  const authFailures = limiters('authFailures', config.auth.signInAttemptsPerMinute.perClient, 60_000);

  const events = new EventHub(database, clock, (error) => app.log.warn({ err: error }, 'an event could not be announced to subscribers'));
  await events.start();
  app.addHook('onClose', () => events.stop());
  app.decorate('events', events);

  const reads = readDatabase ? await openReadRouting(app, { config, primary: database, standby: readDatabase, redis, metrics }) : null;
  const deps: ContextDependencies = {
    reads,
    database,
    auth: config.auth,
    signInLimits: createSignInLimits(config.auth, limiters),
    clock,
    chain,
    minWithdrawAmount: config.chain.minWithdrawAmount,
    events,
    onChainSubmission: (submission) => metrics.chainSubmissions.inc(submission),
    onRelayerSpend: (spend) => metrics.recordRelayerSpend(spend),
  };
  const context = (request: FastifyRequest, reply: FastifyReply, record?: OperationRecord) =>
    createHttpContext(deps, request, reply, config.auth.secureCookies, authFailures, record);
  // On /graphql, where poolgraph's plugin is the only code that sees a context before its
  // operation runs, a bearer token's session is read by the operation itself: folded into a
  // rendered read's one statement, else read first (UnconfirmedSession). A deployment's own
  // plugins may read the viewer earlier, so with any, it is read before, as everywhere else.
  const deferSession = plugins.length === 0;
  registerGraphQLRoute(app, {
    path: '/graphql',
    apollo,
    tracker,
    context: (request, reply, record) =>
      createHttpContext(deps, request, reply, config.auth.secureCookies, authFailures, record, deferSession),
    explorer: config.introspection,
    trusted,
    exposeInternals,
  });
  if (config.introspection) registerExplorerAssets(app);
  const runOperation: RunOperation = createRunOperation({ apollo, tracker, context, exposeInternals });
  registerImageRoutes(app, config.images, context, limiters);
  await registerRest(app, { runOperation, exposeInternals, schema, serveSchemaDocument: config.introspection });

  const sockets = attachGraphQLWebSocket({
    server: app.server,
    path: '/graphql',
    schema,
    apollo,
    trusted,
    exposeInternals,
    deps,
    config,
    authFailures,
    caps,
    onSubscriptionCount: (delta) => metrics.subscriptions.inc(delta),
    // A new socket under pressure is refused like a request: 503 with Retry-After.
    refuseUpgrade: (request) => {
      const atEdge = refuseUpgradeAtEdge(request, config.http);
      if (atEdge) return atEdge;
      const pressure = loadMonitor.enabled ? loadMonitor.pressure() : null;
      if (!pressure) return null;
      metrics.shed.inc({ pressure });
      return { status: 503, reason: 'Service Unavailable', headers: { 'retry-after': String(retryAfterSeconds(loadMonitor, pressure)) } };
    },
    allowCookieOrigin: (request) =>
      request.headers.origin === undefined || isAllowedOrigin(request.headers.origin, config.http.allowedOrigins, request.headers.host),
  });
  // Graceful shutdown: sockets close with 1001 while in-flight HTTP requests finish.
  app.decorate('closeWebSockets', (graceMs: number) => sockets.close(graceMs));
  app.addHook('preClose', () => sockets.close());

  app.get('/healthz', async () => ({ status: 'ok' }));
  // Someone opening the server's root finds where things are; a browser's icon request gets an empty answer, not a 404.
  app.get('/', async () => ({
    name: 'poolgraph',
    graphql: '/graphql',
    ...(config.introspection ? { explorer: '/graphql (in a browser)' } : {}),
    rest: '/docs',
    openapi: '/openapi.json',
    health: '/healthz',
  }));
  app.get('/favicon.ico', async (_request, reply) => reply.code(204).send());
  // Not ready while subscribers here would miss events (the listener is reconnecting), or
  // while the database does not answer: the balancer sends new clients elsewhere meanwhile.
  app.get('/readyz', async (_request, reply) => {
    if (!events.listening) {
      return reply.code(503).header('retry-after', '1').send({ status: 'unavailable', database: database.kind, events: 'not listening' });
    }
    try {
      await database.ping(2000);
      // Without Redis a replica still serves, each counting its limits alone: ready, saying it is degraded.
      if (!redis) return { status: 'ready', database: database.kind };
      // A PING (bounded by the command timeout, skipped while an outage is known): idle, the replica still notices a stall.
      const answers = await redis.attempt(
        async (client) => (await client.ping()) === 'PONG',
        () => false,
      );
      return answers
        ? { status: 'ready', database: database.kind, redis: 'ok' }
        : { status: 'degraded', database: database.kind, redis: 'unreachable' };
    } catch (error) {
      app.log.warn({ err: error }, 'readiness check failed: database unreachable');
      return reply.code(503).header('retry-after', '5').send({ status: 'unavailable', database: database.kind });
    }
  });
  return app;
}

/** The routing of queries to the standby, its probes closed with the app; the standby's changes logged, its reads counted. */
async function openReadRouting(
  app: FastifyInstance,
  parts: { config: AppOptions['config']; primary: Database; standby: Database; redis: SharedRedis | null; metrics: Metrics },
): Promise<ReadRouting> {
  const { config, primary, standby, redis, metrics } = parts;
  if (!config.databaseUrl || !config.databaseRead?.url) throw new Error('a read database needs config.databaseUrl and config.databaseRead');
  const reads = new ReadRouting({
    primary,
    standby,
    primaryUrl: config.databaseUrl,
    standbyUrl: config.databaseRead.url,
    maxLagMs: config.databaseRead.maxLagMs,
    redis: redis ? { shared: redis, keyPrefix: config.redis!.keyPrefix } : null,
    onRoute: (route) => metrics.reads.inc({ database: route === 'replayed' ? 'standby' : 'primary', route }),
    onStandbyChange: (serving, reason, error) => {
      if (serving) app.log.info('the standby serves reads again');
      else app.log.warn({ err: error, reason }, `the standby is ${reason}: reads go to the primary until it is back`);
    },
  });
  app.addHook('onClose', () => reads.close());
  await reads.start();
  return reads;
}

/** The process's Redis connection, closed with the app; an outage is logged once, when the fallbacks start, and its end too. */
function openRedis(app: FastifyInstance, redis: NonNullable<Config['redis']> & { url: string }): SharedRedis {
  const shared = openSharedRedis(redis.url, {
    commandTimeoutMs: redis.commandTimeoutMs,
    onOutage: (error) =>
      app.log.warn({ err: error }, 'Redis is unreachable: rate limits, budgets and socket caps count in this process until it is back'),
    onRecovery: () => app.log.info('Redis answers again: rate limits, budgets and socket caps are shared again'),
  });
  app.addHook('onClose', () => shared.close());
  return shared;
}
