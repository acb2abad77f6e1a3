import { GraphQLError, type SourceLocation } from 'graphql';
import { isConnectionError } from '../../db/client.js';
import { isStatementCancelled } from '../../db/statement-scope.js';
import { AppError, ERROR_CODES, type ErrorCode, isErrorCode } from '../../errors.js';

/** An error as every response carries it, over HTTP, WebSocket and REST alike. */
export interface FormattedError {
  message: string;
  locations?: readonly SourceLocation[];
  path?: ReadonlyArray<string | number>;
  extensions: { code: ErrorCode; [key: string]: unknown };
}

export interface ErrorFormatterOptions {
  /** Messages and stack traces of unexpected errors in responses (development only). */
  exposeInternals: boolean;
}

/** A formatted error and, for an unexpected one, the original to log (never shown in production). */
export interface FormattingOf {
  error: FormattedError;
  internal: unknown;
}

/** The innermost cause a GraphQL error wraps (resolver errors arrive wrapped, sometimes twice). */
function originalOf(error: unknown): unknown {
  let current = error;
  while (current instanceof GraphQLError && current.originalError) current = current.originalError;
  return current;
}

/**
 * The one formatter: gives any error its catalogue code and keeps internals out of
 * responses. An AppError keeps its code and details; a database connection failure is
 * DATABASE_UNAVAILABLE; a GraphQL error the pipeline coded keeps its code; anything else
 * is INTERNAL_SERVER_ERROR with the request id that finds it in the logs.
 */
export function formatError(error: unknown, requestId: string, options: ErrorFormatterOptions): FormattingOf {
  const located = error instanceof GraphQLError ? error : null;
  const where = {
    ...(located?.locations ? { locations: located.locations } : {}),
    ...(located?.path ? { path: located.path } : {}),
  };
  const original = originalOf(error);
  if (original instanceof AppError) {
    return { error: { message: original.message, ...where, extensions: { ...original.details, code: original.code } }, internal: null };
  }
  if (isConnectionError(original)) {
    return { error: { message: 'The database is unavailable; retry shortly.', ...where, extensions: { code: 'DATABASE_UNAVAILABLE' } }, internal: null };
  }
  if (isStatementCancelled(original)) {
    return { error: { message: 'A database statement ran out of time and was cancelled', ...where, extensions: { code: 'OPERATION_TIMEOUT' } }, internal: null };
  }
  const code = (original instanceof GraphQLError ? original : located)?.extensions?.code;
  if (isErrorCode(code) && code !== 'INTERNAL_SERVER_ERROR') {
    const coded = original instanceof GraphQLError ? original : located!;
    return { error: { message: coded.message, ...where, extensions: { ...coded.extensions, code } }, internal: null };
  }
  const message = options.exposeInternals && original instanceof Error ? original.message : 'Internal server error';
  const stacktrace = options.exposeInternals && original instanceof Error && original.stack ? { stacktrace: original.stack.split('\n') } : {};
  return { error: { message, ...where, extensions: { code: 'INTERNAL_SERVER_ERROR', requestId, ...stacktrace } }, internal: original };
}

/**
 * The HTTP status of a response. A request refused before execution takes its first
 * error's status. An executed operation answers 200 (GraphQL over HTTP), except when it
 * produced no data and every error is the same retryable refusal (RATE_LIMITED,
 * DATABASE_UNAVAILABLE, CHAIN_UNAVAILABLE, ...): then the catalogue's status, so generic
 * HTTP clients and proxies see 429 or 503 and retry after Retry-After.
 */
export function statusOf(errors: readonly FormattedError[], executed: boolean, data: unknown): number {
  const first = errors[0];
  if (!first) return 200;
  if (!executed) return ERROR_CODES[first.extensions.code].status;
  const spec = ERROR_CODES[first.extensions.code];
  if (!spec.retryable || errors.some((error) => error.extensions.code !== first.extensions.code)) return 200;
  return producedNoData(data) ? spec.status : 200;
}

function producedNoData(data: unknown): boolean {
  if (data === null || data === undefined) return true;
  return Object.values(data as Record<string, unknown>).every((value) => value === null);
}

/** Retry-After (seconds) of a response, from its first error that gives one. */
export function retryAfterOf(errors: readonly FormattedError[]): number | null {
  for (const error of errors) {
    const value = error.extensions.retryAfter;
    if (typeof value === 'number') return value;
  }
  return null;
}
