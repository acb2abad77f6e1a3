import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { connectionHosts, targetRole } from './db/hosts.js';
import type { ChainConfig, Config } from './config.types.js';
import { resolveAuthSecret } from './config-secret.js';

/**
 * Configuration: the environment, parsed and validated once at start-up. Every problem is
 * reported at once, one clear line per setting, instead of failing on first use.
 */
export type * from './config.types.js';

/** Every variable the service reads, with its meaning and "(default: ...)": the one source of docs/configuration.md (npm run docs:config). */
export const ENV_VARS = {
  POOLGRAPH_MODE: 'development | production | test (default: development; NODE_ENV=production also selects production)',
  HOST: 'interface to listen on (default: 127.0.0.1)',
  PORT: 'port to listen on (default: 4000)',
  DATABASE_URL:
    'Postgres connection string; unset = embedded PGlite. A pair under a failover system: every host, ' +
    'postgres://user@host1:5432,host2:5432/db?target_session_attrs=read-write (each connection goes to whichever is primary)',
  DATABASE_READ_URL:
    'Postgres connection string of a streaming standby (pg_basebackup -R) of DATABASE_URL that serves queries ' +
    '(of a failover pair: every host, target_session_attrs=standby); ' +
    'mutations, credentials, limits and subscriptions stay on the primary, and a caller reads its own writes. ' +
    'Unreachable or lagging: reads go to the primary (default: none, everything on DATABASE_URL)',
  DATABASE_READ_MAX_LAG_MS: 'how far behind the primary the standby may be before reads leave it for the primary (default: 5000)',
  PGLITE_DATA_DIR: 'where the embedded PGlite keeps its files (default: ./data/pglite; memory:// for none)',
  DATABASE_STATEMENT_TIMEOUT_MS:
    'longest a database statement may run before it is cancelled with OPERATION_TIMEOUT (default: 5000; 0 = no limit)',
  SHUTDOWN_TIMEOUT_MS: 'longest a SIGTERM drain may take before the process exits anyway, naming what it cut off (default: 10000)',
  SHUTDOWN_GRACE_MS:
    'how long after SIGTERM connections with no request being handled (idle keep-alives, silent or half-sent, ' +
    'WebSocket peers not answering the close frame) stay before they are destroyed (default: 1000)',
  RECONCILE_INTERVAL_MS:
    'how often each replica settles PENDING chain submissions no live request owns, leasing each so replicas never ' +
    'settle one twice (default: 30000; 0 = at start-up only)',
  REDIS_URL:
    'Redis shared by the replicas for rate limits and budgets (operations, sign-in attempts, failed ' +
    'authentications), the socket and subscription caps, and the write positions of read-your-writes ' +
    '(DATABASE_READ_URL); unset = each process counts alone, in memory. While Redis is unreachable each process ' +
    'counts alone (logged once per outage; /readyz answers 200 "degraded")',
  REDIS_KEY_PREFIX: 'prefix of the keys poolgraph writes in Redis (default: poolgraph)',
  REDIS_COMMAND_TIMEOUT_MS:
    'longest a request waits for Redis: a Redis that does not answer within it (stalled, overloaded, a network ' +
    'partition) is treated as unreachable, and requests count in this process until it answers again (default: 250)',
  SEED_DEMO_DATA: 'seed demo data into an empty database at start-up (default: true on PGlite, false on Postgres)',
  INTROSPECTION: 'serve introspection and the explorer (default: true outside production)',
  FEDERATION_SUBGRAPH:
    'serve as an Apollo Federation 2 subgraph: `_service { sdl }` for the router (answered whatever INTROSPECTION ' +
    'says: expose a subgraph to its router alone) and `_entities` for Pool, User, Prediction, Streak and Image, ' +
    'keyed by id (default: false)',
  RENDERED_READS:
    'answer queries whose whole selection renders with statements that write the response JSON, without the ' +
    'executor; false executes every operation (default: true)',
  RESPONSE_CACHE:
    'keep answers the cache hints allow (public reads, for their max age) and serve them again without running ' +
    "anything: Apollo's response cache, in Redis when REDIS_URL is set so the replicas share it, in memory " +
    'otherwise (default: false)',
  OTEL_EXPORTER_OTLP_ENDPOINT:
    'OpenTelemetry collector (OTLP over HTTP, its port 4318) that receives a span for every GraphQL operation, ' +
    'POSTed to its /v1/traces: http://collector:4318, say; unset, with OTEL_EXPORTER_OTLP_TRACES_ENDPOINT unset too, ' +
    'no span is made and nothing of OpenTelemetry is loaded (default: none)',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT:
    'the URL spans are POSTed to, used as it is (/v1/traces not added); overrides OTEL_EXPORTER_OTLP_ENDPOINT (default: none)',
  OTEL_SERVICE_NAME: 'service.name of the exported spans (default: poolgraph)',
  LOG_LEVEL: 'pino log level (default: info; silent in test)',
  AUTH_SECRET:
    'service secret, at least 32 characters of about 72 bits estimated entropy (`openssl rand -hex 32`); the ' +
    'access-token and proof keys derive from it (required in production, beyond loopback HOST and with ' +
    'SOLANA_RPC_URL; generated into AUTH_SECRET_FILE in development otherwise)',
  AUTH_SECRET_FILE:
    'where loopback development keeps its generated secret, owner-only (default: ./data/auth-secret; memory for a new one each start)',
  AUTH_DOMAIN: 'domain named in sign-in messages (default: HOST:PORT)',
  AUTH_URI: 'URI named in sign-in messages (default: http://AUTH_DOMAIN)',
  ACCESS_TOKEN_TTL_SECONDS: 'lifetime of an access token (default: 900)',
  REFRESH_TOKEN_TTL_SECONDS: 'lifetime of a session without refresh (default: 2592000, 30 days)',
  SIGN_IN_CHALLENGE_TTL_SECONDS: 'how long a sign-in challenge can be signed (default: 300)',
  SIGN_IN_ATTEMPTS_PER_MINUTE: 'sign-in attempts per wallet address from one client each minute (default: 10)',
  SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE:
    'sign-in attempts, and failed credentials (invalid tokens or API keys; valid ones are never refused for it), per client address each minute (default: 30)',
  MAX_QUERY_DEPTH: 'deepest field nesting of an operation (default: 15; 0 = no limit)',
  MAX_QUERY_ALIASES: 'aliased fields in an operation, fragments expanded (default: 30; 0 = no limit)',
  MAX_QUERY_DIRECTIVES: 'directive uses in an operation, fragments expanded (default: 50; 0 = no limit)',
  MAX_QUERY_TOKENS: 'lexical tokens in a document (default: 2000; 0 = no limit)',
  MAX_QUERY_COST: 'cost budget of an operation: objects it can return, lists counted by their page size (default: 20000; 0 = no limit)',
  LARGE_ANSWER_BYTES:
    "estimated answer size (as MAX_QUERY_BYTES measures it) from which an operation's reads run one at a time per process, so the largest reads cannot take every core of the database from the rest (default: 1000000; 0 = never)",
  MAX_QUERY_BYTES:
    "size budget of an operation: its answer's bytes, estimated from the fields asked (a typical value each) and lists counted by their page size (default: 2000000; 0 = no limit)",
  BODY_LIMIT_BYTES: 'largest request body accepted (default: 102400)',
  REQUEST_TIMEOUT_MS: 'time budget of a request before it fails with OPERATION_TIMEOUT (default: 15000; 0 = none)',
  ALLOWED_ORIGINS:
    'origins browsers may call from with credentials (CORS) and open cookie-authenticated sockets from, ' +
    'comma-separated; * as a port matches any (default: http://localhost:*,http://127.0.0.1:* in development, none ' +
    "in production; the server's own origin always)",
  ALLOWED_HOSTS:
    'host names served, comma-separated, others get 403 HOST_NOT_ALLOWED (default: localhost, 127.0.0.1, ::1, HOST ' +
    'and AUTH_DOMAIN outside production; any in production)',
  REQUEST_BODY_TIMEOUT_MS: 'time to receive a whole request before 408 (default: 10000; 0 = none)',
  MAX_SOCKETS_PER_CLIENT:
    'open WebSockets per client address, across the replicas with REDIS_URL; more get 429 (default: 100, off in test mode; 0 = unlimited)',
  MAX_SUBSCRIPTIONS_PER_CLIENT:
    'open subscriptions per client address, across the replicas with REDIS_URL; more get RATE_LIMITED (default: 1000, off in test mode; 0 = unlimited)',
  SOCKET_SET_UPS_AT_ONCE:
    "sockets' credential checks and subscription openings a process runs at once; more wait their turn (default: 32, a few times the database's connections)",
  TRUST_PROXY:
    'proxies whose X-Forwarded-For is trusted: true, or addresses/CIDR ranges/loopback,linklocal,uniquelocal, comma-separated (default: none)',
  RATE_LIMIT_QUERIES_PER_MINUTE:
    'root query fields per user (all their sessions and API keys together), else per client address, each minute ' +
    '(default: 600, off in test mode; 0 = unlimited)',
  RATE_LIMIT_MUTATIONS_PER_MINUTE:
    'root mutation fields per user (all their sessions and API keys together), else per client address, each minute ' +
    '(default: 60, off in test mode; 0 = unlimited)',
  RATE_LIMIT_QUERIES_PER_ADDRESS_PER_MINUTE:
    'root query fields per client address each minute, whoever is signed in there: the ceiling that bounds many ' +
    'users (fresh wallets) behind one address; 0 or at least RATE_LIMIT_QUERIES_PER_MINUTE (default: 3000, off in test mode; 0 = none)',
  RATE_LIMIT_MUTATIONS_PER_ADDRESS_PER_MINUTE:
    'root mutation fields per client address each minute, whoever is signed in there; 0 or at least ' +
    'RATE_LIMIT_MUTATIONS_PER_MINUTE (default: 300, off in test mode; 0 = none)',
  LOAD_SHED_EVENT_LOOP_DELAY_MS: 'event-loop delay above which requests get 503 (default: 1000, off in test mode; 0 = never)',
  LOAD_SHED_DATABASE_WAIT_MS:
    'wait for a database connection (PGlite: its worker) above which requests get 503 (default: 1000, off in test mode; 0 = never)',
  LOAD_SHED_HEAP_USED_RATIO: 'share of the heap limit in use above which requests get 503 (default: 0.9; 0 = never)',
  METRICS: 'serve Prometheus metrics at /metrics (default: true)',
  METRICS_TOKEN: 'bearer token /metrics requires (default: none, open)',
  TRUSTED_DOCUMENTS: 'path of a manifest of the only documents that may run (default: none; any document runs, and APQ)',
  SOLANA_RPC_URL: 'JSON-RPC endpoint of the Solana cluster (default: none; the embedded chain runs in-process, outside production only)',
  EMBEDDED_CHAIN_IN_PRODUCTION:
    'allow production mode to run without SOLANA_RPC_URL, on the embedded devchain and its faucet (test tokens for anyone): for demos only (default: false)',
  CHAIN_DATA_DIR: 'where the embedded chain keeps its ledger and service keys (default: ./data/chain; memory for none)',
  RELAYER_SECRET_KEY: 'fee payer key, a JSON byte array or base58 (required with SOLANA_RPC_URL)',
  CUSTODY_SECRET_KEY: 'owner key of pool vaults and streak accumulators, as RELAYER_SECRET_KEY (required with SOLANA_RPC_URL)',
  STAKE_MINT: 'address of the SPL stake token mint (required with SOLANA_RPC_URL)',
  PROOF_TTL_SECONDS: 'how long a built transaction can be submitted (default: 120)',
  MIN_WITHDRAW_AMOUNT: 'smallest withdrawal in whole tokens (default: 1)',
  IMAGE_STORAGE_DIR: 'where uploaded images are kept (default: ./data/images)',
  IMAGE_MAX_BYTES: 'largest image upload in bytes (default: 5242880)',
  IMAGE_MAX_DIMENSION: 'largest width and height of an uploaded image in pixels (default: 4096)',
  IMAGE_UPLOADS_PER_MINUTE:
    'image uploads each user may attempt per minute; more are refused with RATE_LIMITED, unread (default: 10; 0 = no limit)',
  IMAGE_UPLOADS_PER_ADDRESS_PER_MINUTE:
    'image uploads attempted from one client address per minute, whoever uploads (bounding bytes per address to it ' +
    'times IMAGE_MAX_BYTES); more are refused with RATE_LIMITED, unread; 0 or at least IMAGE_UPLOADS_PER_MINUTE (default: 30, off in test mode; 0 = none)',
  IMAGE_QUOTA_BYTES:
    'bytes of images each user may have stored; an upload past it is refused with QUOTA_EXCEEDED (default: 52428800; 0 = no quota)',
} as const;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const modeText = env.POOLGRAPH_MODE ?? (env.NODE_ENV === 'production' ? 'production' : 'development');
  const mode = (['development', 'production', 'test'] as const).find((m) => m === modeText);
  if (!mode) problems.push(`POOLGRAPH_MODE must be development, production or test, got "${modeText}"`);

  const bool = (name: keyof typeof ENV_VARS, fallback: boolean): boolean => {
    const value = env[name];
    if (value === undefined || value === '') return fallback;
    if (/^(1|true|yes|on)$/i.test(value)) return true;
    if (/^(0|false|no|off)$/i.test(value)) return false;
    problems.push(`${name} must be true or false, got "${value}"`);
    return fallback;
  };

  const portText = env.PORT ?? '4000';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push(`PORT must be a port number, got "${portText}"`);

  const databaseUrl = env.DATABASE_URL || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must start with postgres:// or postgresql://');
  } else if (databaseUrl && connectionHosts(databaseUrl).length > 1 && targetRole(databaseUrl) !== 'primary') {
    problems.push('DATABASE_URL names several hosts: add target_session_attrs=read-write, so writes go to whichever is primary');
  }

  const databaseReadUrl = env.DATABASE_READ_URL || null;
  if (databaseReadUrl && !/^postgres(ql)?:\/\//.test(databaseReadUrl)) {
    problems.push('DATABASE_READ_URL must start with postgres:// or postgresql://');
  } else if (databaseReadUrl && targetRole(databaseReadUrl) === null) {
    problems.push('DATABASE_READ_URL: target_session_attrs must be one of read-write, primary, read-only, standby, prefer-standby, any');
  } else if (databaseReadUrl && !databaseUrl) {
    problems.push('DATABASE_READ_URL needs DATABASE_URL: the standby serves reads for a Postgres primary, not for the embedded PGlite');
  }

  const integer = (name: keyof typeof ENV_VARS, fallback: number, min: number): number => {
    const value = env[name];
    if (value === undefined || value === '') return fallback;
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min) {
      problems.push(`${name} must be an integer of at least ${min}, got "${value}"`);
      return fallback;
    }
    return parsed;
  };

  const ratio = (name: keyof typeof ENV_VARS, fallback: number): number => {
    const value = env[name];
    if (value === undefined || value === '') return fallback;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed < 0 || parsed >= 1) {
      problems.push(`${name} must be a number from 0 up to (not including) 1, got "${value}"`);
      return fallback;
    }
    return parsed;
  };

  const production = mode === 'production';
  const testing = mode === 'test';
  /**
   * A per-address ceiling over a per-credential budget `of` (named `ofName`): 0 (none), or at
   * least that budget, else one person alone at an address could not spend their own budget.
   */
  const ceiling = (name: keyof typeof ENV_VARS, fallback: number, ofName: string, of: number): number => {
    const value = integer(name, fallback, 0);
    if (value === 0 || of === 0 || value >= of) return value;
    if (env[name] === undefined || env[name] === '') return of;
    problems.push(`${name} must be 0 or at least ${ofName} (${of}), got ${value}`);
    return value;
  };
  const queriesPerMinute = integer('RATE_LIMIT_QUERIES_PER_MINUTE', testing ? 0 : 600, 0);
  const mutationsPerMinute = integer('RATE_LIMIT_MUTATIONS_PER_MINUTE', testing ? 0 : 60, 0);
  const uploadsPerMinute = integer('IMAGE_UPLOADS_PER_MINUTE', 10, 0);
  const trustProxy = parseTrustProxy(env.TRUST_PROXY, problems);
  const metricsToken = env.METRICS_TOKEN || null;
  const trustedDocumentsPath = env.TRUSTED_DOCUMENTS || null;
  // The manifest's contents are checked when the server loads it, at start-up too.
  if (trustedDocumentsPath && !existsSync(trustedDocumentsPath))
    problems.push(`TRUSTED_DOCUMENTS names no file: "${trustedDocumentsPath}"`);
  if (metricsToken !== null && metricsToken.length < 16) problems.push('METRICS_TOKEN must be at least 16 characters');
  const chain = parseChainConfig(env, problems, integer);
  // The embedded devchain mints test tokens for anyone: a production service runs on a real cluster unless told otherwise.
  if (production && !chain.rpcUrl && !bool('EMBEDDED_CHAIN_IN_PRODUCTION', false)) {
    problems.push(
      'SOLANA_RPC_URL is required in production: without it the embedded devchain would run, with its faucet ' +
        '(set EMBEDDED_CHAIN_IN_PRODUCTION=true to run a demo on it anyway)',
    );
  }
  const telemetry = parseTelemetryConfig(env, problems);
  const host = env.HOST || '127.0.0.1';
  const secret = resolveAuthSecret(
    {
      mode: mode ?? 'development',
      host,
      rpcUrl: chain.rpcUrl,
      secret: env.AUTH_SECRET,
      secretFile: env.AUTH_SECRET_FILE || './data/auth-secret',
    },
    problems,
  );
  const domain = env.AUTH_DOMAIN || `${host === '0.0.0.0' ? 'localhost' : host}:${port}`;
  const config: Config = {
    mode: mode ?? 'development',
    host,
    port,
    databaseUrl,
    databaseRead: { url: databaseReadUrl, maxLagMs: integer('DATABASE_READ_MAX_LAG_MS', 5000, 0) },
    pgliteDataDir: env.PGLITE_DATA_DIR || './data/pglite',
    statementTimeoutMs: integer('DATABASE_STATEMENT_TIMEOUT_MS', 5000, 0),
    shutdownTimeoutMs: integer('SHUTDOWN_TIMEOUT_MS', 10_000, 100),
    shutdownGraceMs: integer('SHUTDOWN_GRACE_MS', 1000, 0),
    reconcileIntervalMs: integer('RECONCILE_INTERVAL_MS', 30_000, 0),
    redis: {
      url: env.REDIS_URL || null,
      keyPrefix: env.REDIS_KEY_PREFIX || 'poolgraph',
      commandTimeoutMs: integer('REDIS_COMMAND_TIMEOUT_MS', 250, 1),
    },
    seedDemoData: bool('SEED_DEMO_DATA', !databaseUrl),
    introspection: bool('INTROSPECTION', !production),
    federationSubgraph: bool('FEDERATION_SUBGRAPH', false),
    renderedReads: bool('RENDERED_READS', true),
    responseCache: bool('RESPONSE_CACHE', false),
    telemetry,
    logLevel: env.LOG_LEVEL || (mode === 'test' ? 'silent' : 'info'),
    auth: {
      secret,
      domain,
      uri: env.AUTH_URI || `http://${domain}`,
      accessTokenTtlSeconds: integer('ACCESS_TOKEN_TTL_SECONDS', 900, 10),
      refreshTokenTtlSeconds: integer('REFRESH_TOKEN_TTL_SECONDS', 30 * 24 * 3600, 60),
      challengeTtlSeconds: integer('SIGN_IN_CHALLENGE_TTL_SECONDS', 300, 10),
      signInAttemptsPerMinute: {
        perAddress: integer('SIGN_IN_ATTEMPTS_PER_MINUTE', 10, 1),
        perClient: integer('SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE', 30, 1),
      },
      secureCookies: production,
    },
    limits: {
      maxDepth: integer('MAX_QUERY_DEPTH', 15, 0),
      maxAliases: integer('MAX_QUERY_ALIASES', 30, 0),
      maxDirectives: integer('MAX_QUERY_DIRECTIVES', 50, 0),
      maxTokens: integer('MAX_QUERY_TOKENS', 2000, 0),
      maxCost: integer('MAX_QUERY_COST', 20_000, 0),
      maxBytes: integer('MAX_QUERY_BYTES', 2_000_000, 0),
      largeAnswerBytes: integer('LARGE_ANSWER_BYTES', 1_000_000, 0),
    },
    http: {
      bodyLimitBytes: integer('BODY_LIMIT_BYTES', 100 * 1024, 1024),
      requestTimeoutMs: integer('REQUEST_TIMEOUT_MS', 15_000, 0),
      trustProxy,
      allowedOrigins: list(env.ALLOWED_ORIGINS) ?? (production || testing ? [] : ['http://localhost:*', 'http://127.0.0.1:*']),
      allowedHosts:
        list(env.ALLOWED_HOSTS) ??
        (production
          ? []
          : [
              ...new Set(
                ['localhost', '127.0.0.1', '::1', host, domain.replace(/:\d+$/, '')].filter((name) => name !== '0.0.0.0' && name !== '::'),
              ),
            ]),
      bodyTimeoutMs: integer('REQUEST_BODY_TIMEOUT_MS', 10_000, 0),
      // Many users can share one address (NAT): caps that stop one client hoarding, not a crowd.
      maxSocketsPerClient: integer('MAX_SOCKETS_PER_CLIENT', testing ? 0 : 100, 0),
      maxSubscriptionsPerClient: integer('MAX_SUBSCRIPTIONS_PER_CLIENT', testing ? 0 : 1000, 0),
      socketSetUpsAtOnce: integer('SOCKET_SET_UPS_AT_ONCE', 32, 1),
    },
    rateLimit: {
      queriesPerMinute,
      mutationsPerMinute,
      queriesPerAddressPerMinute: ceiling(
        'RATE_LIMIT_QUERIES_PER_ADDRESS_PER_MINUTE',
        testing ? 0 : 3000,
        'RATE_LIMIT_QUERIES_PER_MINUTE',
        queriesPerMinute,
      ),
      mutationsPerAddressPerMinute: ceiling(
        'RATE_LIMIT_MUTATIONS_PER_ADDRESS_PER_MINUTE',
        testing ? 0 : 300,
        'RATE_LIMIT_MUTATIONS_PER_MINUTE',
        mutationsPerMinute,
      ),
    },
    loadShedding: {
      maxEventLoopDelayMs: integer('LOAD_SHED_EVENT_LOOP_DELAY_MS', testing ? 0 : 1000, 0),
      maxHeapUsedRatio: ratio('LOAD_SHED_HEAP_USED_RATIO', 0.9),
      maxDatabaseWaitMs: integer('LOAD_SHED_DATABASE_WAIT_MS', testing ? 0 : 1000, 0),
    },
    metrics: { enabled: bool('METRICS', true), token: metricsToken },
    trustedDocumentsPath,
    chain,
    images: {
      storageDir: env.IMAGE_STORAGE_DIR || './data/images',
      maxBytes: integer('IMAGE_MAX_BYTES', 5 * 1024 * 1024, 1024),
      maxDimension: integer('IMAGE_MAX_DIMENSION', 4096, 1),
      uploadsPerMinute,
      uploadsPerAddressPerMinute: ceiling(
        'IMAGE_UPLOADS_PER_ADDRESS_PER_MINUTE',
        testing ? 0 : 30,
        'IMAGE_UPLOADS_PER_MINUTE',
        uploadsPerMinute,
      ),
      quotaBytes: integer('IMAGE_QUOTA_BYTES', 50 * 1024 * 1024, 0),
    },
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}

function parseChainConfig(
  env: NodeJS.ProcessEnv,
  problems: string[],
  integer: (name: keyof typeof ENV_VARS, fallback: number, min: number) => number,
): ChainConfig {
  const rpcUrl = env.SOLANA_RPC_URL || null;
  if (rpcUrl && !/^https?:\/\//.test(rpcUrl)) problems.push('SOLANA_RPC_URL must start with http:// or https://');
  const fromEnv = (name: 'RELAYER_SECRET_KEY' | 'CUSTODY_SECRET_KEY' | 'STAKE_MINT'): string | null => {
    const value = env[name] || null;
    if (rpcUrl && !value) problems.push(`${name} is required with SOLANA_RPC_URL`);
    return value;
  };
  const devchainDir = env.CHAIN_DATA_DIR || './data/chain';
  const minWithdrawText = env.MIN_WITHDRAW_AMOUNT ?? '1';
  const minWithdrawAmount = Number(minWithdrawText);
  if (!Number.isFinite(minWithdrawAmount) || minWithdrawAmount <= 0) {
    problems.push(`MIN_WITHDRAW_AMOUNT must be a positive number of tokens, got "${minWithdrawText}"`);
  }
  return {
    rpcUrl,
    devchainDataDir: devchainDir === 'memory' ? null : devchainDir,
    relayerSecretKey: fromEnv('RELAYER_SECRET_KEY'),
    custodySecretKey: fromEnv('CUSTODY_SECRET_KEY'),
    stakeMint: fromEnv('STAKE_MINT'),
    proofTtlSeconds: integer('PROOF_TTL_SECONDS', 120, 10),
    minWithdrawAmount,
  };
}

/**
 * The OTLP endpoint of the spans, by OpenTelemetry's own variables and rules: the traces
 * endpoint as it is, else the general endpoint with `v1/traces` added to its path.
 */
function parseTelemetryConfig(env: NodeJS.ProcessEnv, problems: string[]): Config['telemetry'] {
  const serviceName = env.OTEL_SERVICE_NAME || 'poolgraph';
  const given = (name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' | 'OTEL_EXPORTER_OTLP_ENDPOINT'): string | null => {
    const value = env[name]?.trim() || null;
    if (value === null) return null;
    if (!/^https?:$/.test(URL.parse(value)?.protocol ?? '')) {
      problems.push(`${name} must be an http:// or https:// URL (the collector's OTLP/HTTP receiver), got "${value}"`);
      return null;
    }
    return value;
  };
  const traces = given('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = given('OTEL_EXPORTER_OTLP_ENDPOINT');
  const tracesEndpoint = traces ?? (base === null ? null : `${base.endsWith('/') ? base : `${base}/`}v1/traces`);
  return { tracesEndpoint, serviceName };
}

/** A comma-separated list; undefined when the variable is unset or empty. */
function list(value: string | undefined): string[] | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** TRUST_PROXY: unset/false, true, or a comma-separated list of addresses, CIDR ranges and names. */
function parseTrustProxy(value: string | undefined, problems: string[]): boolean | string[] {
  if (value === undefined || value === '' || /^(0|false|no|off)$/i.test(value)) return false;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  const entries = value.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !PROXY_NAMES.has(entry) && !isAddressOrRange(entry));
  if (bad.length) {
    problems.push(
      `TRUST_PROXY must be true, false, or a comma-separated list of addresses, CIDR ranges, loopback, linklocal or ` +
        `uniquelocal; "${bad.join('", "')}" is none of these`,
    );
    return false;
  }
  return entries;
}

function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (!version || rest.length) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d+$/.test(prefix) && bits <= (version === 4 ? 32 : 128);
}
