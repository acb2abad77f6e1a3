/**
 * The one error catalogue: every refusal of every layer (fastify's, the GraphQL pipeline's,
 * the services') carries one of these codes in `extensions.code`, with the HTTP status and
 * retry advice given here. docs/errors.md is generated from this table
 * (`npm run docs:errors`). Nothing here knows GraphQL or HTTP frameworks.
 */
export interface ErrorSpec {
  /** The HTTP status of a response refused with this code. */
  status: number;
  /** Whether the same request can succeed later unchanged (after `retryAfter` seconds where given). */
  retryable: boolean;
  /** What it means, for docs/errors.md and the default message. */
  description: string;
}

const spec = (status: number, retryable: boolean, description: string): ErrorSpec => ({ status, retryable, description });

export const ERROR_CODES = {
  // The request itself (HTTP and GraphQL syntax).
  BAD_REQUEST: spec(
    400,
    false,
    'The HTTP request is malformed: unreadable JSON, no `query`, a batch, a body that is not an object, or a ' +
      'request a browser could send cross-site without a preflight (CSRF prevention).',
  ),
  ROUTE_NOT_FOUND: spec(404, false, 'No route answers this method and path.'),
  METHOD_NOT_ALLOWED: spec(405, false, 'The method is not allowed here (mutations only over POST); `Allow` lists the methods.'),
  NOT_ACCEPTABLE: spec(406, false, 'The `Accept` header allows neither application/graphql-response+json nor application/json.'),
  UNSUPPORTED_MEDIA_TYPE: spec(415, false, 'The request body has a content type the server does not read (send application/json).'),
  REQUEST_TIMEOUT: spec(
    408,
    true,
    'The request (its headers or its body) did not arrive within REQUEST_BODY_TIMEOUT_MS; the connection is closed.',
  ),
  HEADERS_TOO_LARGE: spec(431, false, "The request headers exceed the size limit (Node's, 16 KiB by default); the connection is closed."),
  REQUEST_TOO_LARGE: spec(413, false, 'The request body exceeds the size limit; `limit` gives it in bytes.'),
  HOST_NOT_ALLOWED: spec(403, false, 'The `Host` header names a host this server does not serve (ALLOWED_HOSTS).'),
  ORIGIN_NOT_ALLOWED: spec(403, false, 'The `Origin` is not in ALLOWED_ORIGINS (cookie-authenticated WebSocket upgrades).'),
  GRAPHQL_PARSE_FAILED: spec(400, false, 'The document is not valid GraphQL syntax.'),
  GRAPHQL_VALIDATION_FAILED: spec(
    400,
    false,
    'The document does not validate against the schema (or asks for introspection where it is off).',
  ),
  OPERATION_RESOLUTION_FAILURE: spec(
    400,
    false,
    'The operation to run cannot be chosen: `operationName` names none, or several operations and no name.',
  ),
  SUBSCRIPTION_REQUIRES_WEBSOCKET: spec(400, false, 'Subscriptions run over graphql-ws (WebSocket) on `endpoint`, not over HTTP.'),
  PERSISTED_QUERY_NOT_FOUND: spec(404, true, 'The hash of an automatic persisted query is unknown; send the document with its hash once.'),
  PERSISTED_QUERY_HASH_MISMATCH: spec(400, false, 'The persisted query hash is not the SHA-256 of the document sent with it.'),
  UNTRUSTED_DOCUMENT: spec(400, false, 'Trusted documents are on and the document (or hash) is not registered.'),
  QUERY_TOO_COMPLEX: spec(
    400,
    false,
    'The operation exceeds a size limit; `limit` names it (depth, aliases, directives, tokens, cost, bytes).',
  ),
  // Who is asking.
  UNAUTHENTICATED: spec(401, false, 'The operation needs a signed-in viewer, or the credentials are invalid; `reason` says which.'),
  FORBIDDEN: spec(403, false, 'The viewer may not read or do this.'),
  QUOTA_EXCEEDED: spec(
    413,
    false,
    'The upload would take the viewer past their storage quota (IMAGE_QUOTA_BYTES); `limit` and `used` give it in bytes. Nothing was stored.',
  ),
  RATE_LIMITED: spec(
    429,
    true,
    'Too many operations (or failed sign-ins); retry after `retryAfter` seconds (also the `Retry-After` header).',
  ),
  // The domain.
  BAD_USER_INPUT: spec(400, false, 'An argument is malformed or out of range; `argumentName` names it.'),
  NOT_FOUND: spec(404, false, 'The referenced record does not exist.'),
  POOL_CLOSED: spec(409, false, 'The pool is not open for predictions.'),
  ALREADY_PREDICTED: spec(409, false, 'The viewer already has a prediction on this pool.'),
  POOL_NOT_ENDED: spec(409, false, 'The pool is still taking predictions; it can be resolved once its prediction end has passed.'),
  ALREADY_RESOLVED: spec(409, false, 'The pool already has a resolution.'),
  ALREADY_CLAIMED: spec(409, false, 'The reward was already claimed.'),
  ALREADY_REDEEMED: spec(409, false, 'The viewer has already redeemed a referral code.'),
  INSUFFICIENT_FUNDS: spec(409, false, 'The balance does not cover the amount.'),
  PROOF_INVALID: spec(400, false, 'The proof or the signed transaction does not match the build.'),
  PROOF_EXPIRED: spec(400, false, 'The proof or its blockhash has expired; build again.'),
  TRANSACTION_FAILED: spec(422, false, 'The chain rejected the transaction.'),
  // The service.
  CHAIN_UNAVAILABLE: spec(503, true, 'The chain could not be reached; nothing was written.'),
  DATABASE_UNAVAILABLE: spec(503, true, 'The database could not be reached; retry shortly.'),
  OPERATION_TIMEOUT: spec(
    504,
    true,
    'The request did not complete within its time budget (`budgetMs`); a mutation may still complete, so read before retrying one.',
  ),
  OVERLOADED: spec(503, true, 'The server is overloaded and refused the request unread; retry after `retryAfter` seconds.'),
  SUBSCRIBER_TOO_SLOW: spec(
    503,
    true,
    'A subscriber fell too far behind its events and was dropped; subscribe again (with its resume argument) to catch up.',
  ),
  EVENTS_EXPIRED: spec(
    410,
    false,
    'A subscription cannot resume after `afterSequence`: events after it were pruned from the event outbox (it keeps an ' +
      'hour), or more than `limit` of them concern the subscription. Read the current state, then subscribe with the ' +
      '`eventSequence` read with it.',
  ),
  INTERNAL_SERVER_ERROR: spec(500, false, 'An unexpected failure; `requestId` identifies it in the logs.'),
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CODES, code);
}

/** The one constructor of refusals: a code of the catalogue, a message, and machine-readable facts. */
export class AppError extends Error {
  override readonly name = 'AppError';

  constructor(
    readonly code: ErrorCode,
    message: string = ERROR_CODES[code].description,
    /** Extra machine-readable facts, copied into `extensions` (e.g. argumentName, retryAfter). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** The HTTP status of a request refused with this error. */
  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  /** Seconds to wait before retrying, when the error says. */
  get retryAfter(): number | null {
    const value = this.details.retryAfter;
    return typeof value === 'number' ? value : null;
  }
}

/** A BAD_USER_INPUT error naming the argument at fault. */
export function badInput(argumentName: string, message: string): AppError {
  return new AppError('BAD_USER_INPUT', message, { argumentName });
}

/** RATE_LIMITED with its wait: clients read `retryAfter`, and over HTTP the Retry-After header. */
export function rateLimited(retryAfter: number, message?: string): AppError {
  return new AppError('RATE_LIMITED', message ?? `Too many operations; retry after ${retryAfter} second${retryAfter === 1 ? '' : 's'}`, {
    retryAfter,
  });
}
