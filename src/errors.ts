/**
 * The one error catalogue. Services throw `AppError`s with a code from here; the server
 * turns them into GraphQL errors carrying `extensions.code` (and HTTP status where the
 * whole request fails). Nothing here knows GraphQL.
 */
export const ERROR_CODES = {
  BAD_USER_INPUT: { status: 400, description: 'An argument is malformed or out of range; `argumentName` names it.' },
  UNAUTHENTICATED: { status: 401, description: 'The operation needs a signed-in viewer, or the credentials are invalid.' },
  FORBIDDEN: { status: 403, description: 'The viewer may not read or do this.' },
  NOT_FOUND: { status: 404, description: 'The referenced record does not exist.' },
  POOL_CLOSED: { status: 409, description: 'The pool is not open for predictions.' },
  ALREADY_PREDICTED: { status: 409, description: 'The viewer already has a prediction on this pool.' },
  POOL_NOT_ENDED: { status: 409, description: 'The pool is still taking predictions; it can be resolved once its prediction end has passed.' },
  ALREADY_RESOLVED: { status: 409, description: 'The pool already has a resolution.' },
  ALREADY_CLAIMED: { status: 409, description: 'The reward was already claimed.' },
  ALREADY_REDEEMED: { status: 409, description: 'The viewer has already redeemed a referral code.' },
  INSUFFICIENT_FUNDS: { status: 409, description: 'The balance does not cover the amount.' },
  PROOF_INVALID: { status: 400, description: 'The proof or the signed transaction does not match the build.' },
  PROOF_EXPIRED: { status: 400, description: 'The proof or its blockhash has expired; build again.' },
  TRANSACTION_FAILED: { status: 422, description: 'The chain rejected the transaction.' },
  CHAIN_UNAVAILABLE: { status: 503, description: 'The chain could not be reached; nothing was written.' },
  DATABASE_UNAVAILABLE: { status: 503, description: 'The database could not be reached; retry shortly.' },
  RATE_LIMITED: { status: 429, description: 'Too many operations; retry after `retryAfter` seconds.' },
  QUERY_TOO_COMPLEX: { status: 400, description: 'The operation exceeds a size limit; `limit` names it (depth, aliases, directives, tokens, cost).' },
  REQUEST_TOO_LARGE: { status: 413, description: 'The request body exceeds the size limit.' },
  OPERATION_TIMEOUT: { status: 504, description: 'The request did not complete within its time budget.' },
  UNTRUSTED_DOCUMENT: { status: 400, description: 'Trusted documents are on and the document (or hash) is not registered.' },
  OVERLOADED: { status: 503, description: 'The server is overloaded and refused the request unread; retry after `retryAfter` seconds.' },
  SUBSCRIBER_TOO_SLOW: { status: 503, description: 'A subscriber fell too far behind its events and was dropped; subscribe again (with its resume argument) to catch up.' },
  INTERNAL_SERVER_ERROR: { status: 500, description: 'An unexpected failure; `requestId` identifies it in the logs.' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class AppError extends Error {
  override readonly name = 'AppError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra machine-readable facts, copied into `extensions` (e.g. argumentName). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** A BAD_USER_INPUT error naming the argument at fault. */
export function badInput(argumentName: string, message: string): AppError {
  return new AppError('BAD_USER_INPUT', message, { argumentName });
}
