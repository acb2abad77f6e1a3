import type { ChainSettings } from './chain/runtime.js';

/** The shape of the configuration src/config.ts parses from the environment. */

export type Mode = 'development' | 'production' | 'test';

export interface Config {
  mode: Mode;
  host: string;
  port: number;
  /** postgres.js when set; PGlite under `pgliteDataDir` when not. */
  databaseUrl: string | null;
  /** A streaming standby of the Postgres primary that serves queries (url null = none), and how far behind it may be. */
  databaseRead: { url: string | null; maxLagMs: number };
  pgliteDataDir: string;
  /** Longest a database statement may run, in milliseconds (then OPERATION_TIMEOUT); 0 = no limit. */
  statementTimeoutMs: number;
  /** Longest a SIGTERM/SIGINT drain may take before the process exits anyway, in milliseconds. */
  shutdownTimeoutMs: number;
  /** After SIGTERM, how long connections with nothing being handled stay before they are destroyed. */
  shutdownGraceMs: number;
  /** How often PENDING chain submissions nobody owns are settled, in milliseconds; 0 = at start-up only. */
  reconcileIntervalMs: number;
  /** Redis for the budgets the replicas share; url null = each process counts in memory. */
  redis: { url: string | null; keyPrefix: string; commandTimeoutMs: number };
  /** Seed demo data into an empty database at start-up. */
  seedDemoData: boolean;
  /** Schema introspection (and the explorer) served. */
  introspection: boolean;
  /** Serve as an Apollo Federation 2 subgraph: `_entities`, `_service` (modules/federation). */
  federationSubgraph: boolean;
  /** Queries whose selection renders are answered by statements writing their JSON (server/read-renderer.ts). */
  renderedReads: boolean;
  /** Apollo's response cache (src/server/response-cache.ts). */
  responseCache: boolean;
  /**
   * OpenTelemetry spans, one per GraphQL operation (src/server/telemetry.ts): the OTLP/HTTP URL
   * they are POSTed to (null = no spans, nothing of OpenTelemetry loaded), and the service they name.
   */
  telemetry: { tracesEndpoint: string | null; serviceName: string };
  logLevel: string;
  auth: AuthConfig;
  /** Size limits of an operation, checked before it runs (0 turns one off). */
  limits: OperationLimits;
  http: HttpConfig;
  rateLimit: RateLimitConfig;
  loadShedding: LoadSheddingConfig;
  metrics: MetricsConfig;
  /** Manifest of the only documents that may run; null = any document (and APQ). */
  trustedDocumentsPath: string | null;
  chain: ChainConfig;
  images: ImageConfig;
}

/** Uploaded images: where they are kept, and what is accepted. */
export interface ImageConfig {
  storageDir: string;
  maxBytes: number;
  /** Largest width and height, in pixels. */
  maxDimension: number;
  /** Uploads each user may attempt per minute (0: no limit). */
  uploadsPerMinute: number;
  /** Image uploads attempted from one client address per minute, whoever uploads; 0 = no ceiling. */
  uploadsPerAddressPerMinute: number;
  /** Bytes of stored images each user may have (0: no quota). */
  quotaBytes: number;
}

/** The chain settings (see ChainSettings), plus the business rule of withdrawals. */
export interface ChainConfig extends ChainSettings {
  /** Smallest withdrawal, in whole tokens. */
  minWithdrawAmount: number;
}

/** The size limits every operation must fit before anything of it runs; each a maximum, 0 turns it off. */
export interface OperationLimits {
  /** Nesting of fields, the root fields being depth 1 (default 15, MAX_QUERY_DEPTH). */
  maxDepth: number;
  /** Aliased fields, counted once per use of the fragment they are in (default 30). */
  maxAliases: number;
  /** Directive uses, counted like aliases (default 50). */
  maxDirectives: number;
  /** Lexical tokens of the document, enforced by the parser (default 2000). */
  maxTokens: number;
  /** Cost budget; see OperationMeasure in read/operation-walk.ts (default 20000, MAX_QUERY_COST). */
  maxCost: number;
  /** The answer's estimated size in bytes; see OperationMeasure's `bytes` (default 2,000,000, MAX_QUERY_BYTES). */
  maxBytes: number;
  /** An answer estimated this large or larger has its reads queued one at a time per process (default 1,000,000, LARGE_ANSWER_BYTES; 0 = never). */
  largeAnswerBytes: number;
}

export interface HttpConfig {
  /** Largest request body accepted, in bytes (larger: 413). */
  bodyLimitBytes: number;
  /** Time budget of one request in milliseconds (then OPERATION_TIMEOUT); 0 = none. */
  requestTimeoutMs: number;
  /**
   * Proxies whose X-Forwarded-For is believed (fastify `trustProxy`): false = none (the
   * socket's peer is the client), true = any, or a list of addresses, CIDR ranges and
   * the names loopback, linklocal, uniquelocal.
   */
  trustProxy: boolean | string[];
  /**
   * Origins other than the server's own that browsers may call from (CORS, with
   * credentials) and open cookie-authenticated sockets from; `*` in a port matches any port.
   */
  allowedOrigins: string[];
  /** Host names served (the Host header, port aside); empty = any. Guards against DNS rebinding. */
  allowedHosts: string[];
  /** Time to receive a whole request, headers and body, before it fails with 408 (slow bodies); 0 = none. */
  bodyTimeoutMs: number;
  /** Open WebSockets per client address; 0 = unlimited. */
  maxSocketsPerClient: number;
  /** Open subscriptions per client address, over all its sockets; 0 = unlimited. */
  maxSubscriptionsPerClient: number;
  /** Sockets' credential checks and subscription openings a process runs at once (server/websocket/set-up-queue.ts). */
  socketSetUpsAtOnce: number;
}

export interface RateLimitConfig {
  /** Root query (and subscription) fields per user (all their sessions and keys), else client address, per minute; 0 = unlimited. */
  queriesPerMinute: number;
  /** Root mutation fields per user, else client address, per minute; 0 = unlimited. */
  mutationsPerMinute: number;
  /** Root query fields per client address per minute, whoever is signed in there; 0 = no ceiling. */
  queriesPerAddressPerMinute: number;
  /** Root mutation fields per client address per minute, whoever is signed in there; 0 = no ceiling. */
  mutationsPerAddressPerMinute: number;
}

export interface LoadSheddingConfig {
  /** Event-loop delay (ms) above which requests are refused with 503; 0 = never. */
  maxEventLoopDelayMs: number;
  /** Share of the V8 heap limit in use above which requests are refused with 503; 0 = never. */
  maxHeapUsedRatio: number;
  /** Wait for a database connection (PGlite: its worker) above which requests are refused with 503; 0 = never. */
  maxDatabaseWaitMs?: number;
}

export interface MetricsConfig {
  /** Serve Prometheus metrics at /metrics. */
  enabled: boolean;
  /** When set, /metrics requires `Authorization: Bearer <token>`. */
  token: string | null;
}

export interface AuthConfig {
  /** The service secret (access-token and proof keys are derived from it); shared by every replica. */
  secret: Uint8Array;
  /** The domain sign-in messages name, and must name when signed (host[:port]). */
  domain: string;
  /** Public URI named in sign-in messages. */
  uri: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  challengeTtlSeconds: number;
  /** Sign-in attempts allowed per wallet address from one client, and per client address, each minute. */
  signInAttemptsPerMinute: { perAddress: number; perClient: number };
  /** Mark cookies Secure (HTTPS only). */
  secureCookies: boolean;
}
