import type { ChainRuntime } from '../chain/runtime.js';
import type { AuthConfig } from '../config.js';
import type { Database } from '../db/client.js';
import type { Limiter } from './common/limiter.js';
import type { Viewer } from './auth/viewer.js';
import type { EventHub } from './events/event-hub.js';
import type { Loaders } from './loaders.js';
import type { Session } from './auth/session.service.js';
import type { RateLimit } from './rate-limit/rate-limit.type.js';
import type { ChainSubmissionOutcome, OperationName, RelayerSpend } from './transactions/operations.js';

/** What lives as long as the process and every request shares: configuration, limiters. */
export interface ServiceDependencies {
  database: Database;
  auth: AuthConfig;
  signInLimits: { perAddress: Limiter; perClient: Limiter };
  /** The time; injectable so tests can move it (token and challenge expiry). */
  clock: () => Date;
  /** The chain stakes and payouts move on; null when the service runs without one (reads only). */
  chain: ChainRuntime | null;
  /** Smallest withdrawal, in whole tokens. */
  minWithdrawAmount: number;
  /** Where committed changes are announced (`publish`) and followed (`on`), across replicas. */
  events: EventHub;
  /**
   * Told of every transaction sent to the chain, once, with how it ended (the server
   * counts them in its metrics); must not throw. None by default.
   */
  onChainSubmission?: (submission: { operation: OperationName; outcome: ChainSubmissionOutcome }) => void;
  /** Told what the relayer paid for each confirmed transaction, as the chain recorded it (metrics); must not throw. */
  onRelayerSpend?: (spend: RelayerSpend) => void;
}

/**
 * What a service call sees of the request: the shared dependencies, the request's loaders,
 * its viewer and client address, and the request's clock (one `now` per request, so every
 * filter in it agrees on the time).
 */
export interface ServiceContext extends ServiceDependencies {
  loaders: Loaders;
  viewer: Viewer | null;
  clientAddress: string;
  now: Date;
}

/** What a transport lets a resolver do with the session's cookies (nothing, but on HTTP). */
export interface SessionCookies {
  /** The refresh token of the request's cookie, if any. */
  refreshCookie: string | null;
  setSessionCookies(session: Session): void;
  clearSessionCookies(): void;
}

/**
 * What a resolver is given: the service context, what the request's transport lets a
 * resolver do (session cookies, on HTTP), and the operation's rate budget. The server makes
 * it (server/context.ts, GraphQLContext, which adds what only the server uses), so the
 * modules name nothing of the server's.
 */
export interface ResolverContext extends ServiceContext {
  transport: SessionCookies;
  /** The budget the running operation was counted against; set by the rate-limit check before it runs. */
  rateLimit: RateLimit | null;
}
