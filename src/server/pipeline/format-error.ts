import { HeaderMap, type HTTPGraphQLHead } from '@apollo/server';
import { type ASTNode, GraphQLError, isValueNode, Kind, parse, type SourceLocation, visit } from 'graphql';
import { isConnectionError } from '../../db/client.js';
import { isStatementCancelled } from '../../db/statement-scope.js';
import { AppError, ERROR_CODES, type ErrorCode, isErrorCode } from '../../errors.js';
import { isTokenLimitError, limitError } from '../limits.js';

/** An error as every response carries it, over HTTP, WebSocket and REST alike. */
export interface FormattedError {
  message: string;
  locations?: readonly SourceLocation[];
  path?: ReadonlyArray<string | number>;
  extensions: { code: ErrorCode; [key: string]: unknown };
}

/** fastify's and Apollo Server's own refusals by status (Apollo codes them all BAD_REQUEST), as catalogue codes. */
export const CODE_OF_STATUS: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  404: 'ROUTE_NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  413: 'REQUEST_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  503: 'OVERLOADED',
};

/** The innermost cause a GraphQL error wraps (resolver errors arrive wrapped, sometimes twice). */
export function originalOf(error: unknown): unknown {
  let current = error;
  while (current instanceof GraphQLError && current.originalError) current = current.originalError;
  return current;
}

/**
 * The one formatter: gives any error its catalogue code and keeps internals out of
 * responses. An AppError keeps its code and details; a database connection failure is
 * DATABASE_UNAVAILABLE; a GraphQL error the pipeline coded keeps its code; anything else
 * is INTERNAL_SERVER_ERROR with the request id that finds it in the logs, its original put
 * in `internals` to be logged (its message and stack shown only with `exposeInternals`, in
 * development). An AppError needs none of these.
 */
export function formatError(error: unknown, requestId = '', exposeInternals = false, internals?: unknown[]): FormattedError {
  const located = error instanceof GraphQLError ? error : null;
  const where = {
    ...(located?.locations ? { locations: located.locations } : {}),
    ...(located?.path ? { path: located.path } : {}),
  };
  const original = originalOf(error);
  if (original instanceof AppError)
    return { message: original.message, ...where, extensions: { ...original.details, code: original.code } };
  if (isConnectionError(original))
    return { message: 'The database is unavailable; retry shortly.', ...where, extensions: { code: 'DATABASE_UNAVAILABLE' } };
  if (isStatementCancelled(original))
    return { message: 'A database statement ran out of time and was cancelled', ...where, extensions: { code: 'OPERATION_TIMEOUT' } };
  // A variable's value graphql-js could not coerce, so nothing ran (over every transport): the caller's input at fault.
  if (located?.nodes?.[0]?.kind === Kind.VARIABLE_DEFINITION && located.extensions.code === undefined) {
    return { message: located.message, extensions: { code: 'BAD_USER_INPUT' } };
  }
  const refusal = located ? apolloRefusalOf(located, original) : null;
  // The token limit names no location: it would point past the document's text.
  if (refusal) return refusal.extensions.limit === 'tokens' ? refusal : { ...refusal, ...where };
  // A wrapper's code counts when what it wraps has none (graphql's validation errors, wrapped by Apollo Server).
  const coded = [original, located].find((e): e is GraphQLError => e instanceof GraphQLError && isErrorCode(e.extensions.code));
  const code = coded?.extensions.code;
  if (isErrorCode(code) && code !== 'INTERNAL_SERVER_ERROR') {
    const { http: _http, ...extensions } = coded!.extensions;
    return { message: coded!.message, ...where, extensions: { ...extensions, code } };
  }
  internals?.push(original);
  const message = exposeInternals && original instanceof Error ? original.message : 'Internal server error';
  const stacktrace = exposeInternals && original instanceof Error && original.stack ? { stacktrace: original.stack.split('\n') } : {};
  // Formatted once already (a failed context, refused before Apollo knows the request), it names its request.
  const named = located?.extensions.requestId;
  return {
    message,
    ...where,
    extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: requestId || (typeof named === 'string' ? named : ''), ...stacktrace },
  };
}

/**
 * The HTTP status of a response. A request refused before execution takes its first
 * error's status. An executed operation answers 200 (GraphQL over HTTP), unless one of its
 * errors is retryable (DATABASE_UNAVAILABLE, CHAIN_UNAVAILABLE, RATE_LIMITED,
 * OPERATION_TIMEOUT, ...): then the first such error's status (503, 429, 504), whatever
 * else the query answered, so generic HTTP clients and proxies see one status for one
 * cause and retry after Retry-After. A mutation that produced data keeps 200: retrying the
 * whole request would repeat what it did.
 */
export function statusOf(errors: readonly FormattedError[], executed: boolean, data: unknown, operationType?: string | null): number {
  const first = errors[0];
  if (!first) return 200;
  if (!executed) return ERROR_CODES[first.extensions.code].status;
  const retryable = errors.find((error) => ERROR_CODES[error.extensions.code].retryable);
  if (!retryable) return 200;
  if (operationType === 'mutation' && !producedNoData(data)) return 200;
  return ERROR_CODES[retryable.extensions.code].status;
}

function producedNoData(data: unknown): boolean {
  if (data === null || data === undefined) return true;
  return Object.values(data as Record<string, unknown>).every((value) => value === null);
}

/** Seconds a client waits before retrying a 429 or 503 whose errors name no time of their own (as /readyz answers). */
const DEFAULT_RETRY_AFTER_SECONDS = 5;

/** Retry-After (seconds) of a response with `status`: its first error that gives one, else the default for 429 and 503; null for none. */
export function retryAfterOf(errors: readonly FormattedError[], status: number): number | null {
  if (status < 400) return null;
  for (const error of errors) {
    const value = error.extensions.retryAfter;
    if (typeof value === 'number') return value;
  }
  return status === 429 || status === 503 ? DEFAULT_RETRY_AFTER_SECONDS : null;
}

/**
 * The catalogue's form of a refusal Apollo Server words its own way, or null: a status it
 * gives a BAD_REQUEST (405 for a mutation over GET, 415 for a GET with a body type), the
 * persisted query protocol's (an unknown version, the hash mismatch), the token limit (a syntax error to graphql), and a
 * validation error about an argument's literal (BAD_USER_INPUT naming the argument).
 */
function apolloRefusalOf(located: GraphQLError, original: unknown): Omit<FormattedError, 'locations' | 'path'> | null {
  const { code, http } = located.extensions as { code?: unknown; http?: { status?: number } };
  const byStatus = code === 'BAD_REQUEST' && http?.status !== undefined ? CODE_OF_STATUS[http.status] : undefined;
  if (byStatus) return { message: located.message, extensions: { code: byStatus } };
  // The persisted query protocol's refusals (an unknown version, a hash mismatch) carry a status and no code.
  if (code === undefined && http?.status === 400) {
    if (located.message !== 'provided sha does not match query') return { message: located.message, extensions: { code: 'BAD_REQUEST' } };
    return {
      message: 'The persisted query hash is not the SHA-256 of the document sent with it',
      extensions: { code: 'PERSISTED_QUERY_HASH_MISMATCH' },
    };
  }
  const inner = original instanceof GraphQLError ? original : located;
  // Apollo's own wording tells the operator to pass an ApolloServer option; here it is a setting.
  if (code === 'GRAPHQL_VALIDATION_FAILED' && located.message.startsWith('GraphQL introspection is not allowed')) {
    return {
      message:
        'GraphQL introspection is not allowed on this server (off by default in production); its operator can allow it with INTROSPECTION=true',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    };
  }
  if (code === 'GRAPHQL_PARSE_FAILED' && isTokenLimitError(inner.message)) {
    const limit = limitError('tokens', null, Number(/(\d+) tokens/.exec(inner.message)?.[1]));
    return { message: limit.message, extensions: limit.extensions as FormattedError['extensions'] };
  }
  if (code === 'GRAPHQL_VALIDATION_FAILED' && inner.extensions.code === undefined) {
    const argumentName = argumentNameOf(located);
    if (argumentName)
      return {
        message: `Invalid value for argument "${argumentName}": ${located.message}`,
        extensions: { code: 'BAD_USER_INPUT', argumentName },
      };
  }
  return null;
}

/** The argument (and input fields, dotted) a validation error's literal lies in, or null (the document is parsed again: errors only). */
function argumentNameOf(error: GraphQLError): string | null {
  const node = error.nodes?.[0];
  const body = error.source?.body ?? node?.loc?.source.body;
  const start = node?.loc?.start;
  if (!node || !isValueNode(node) || body === undefined || start === undefined) return null;
  const contains = (n: ASTNode) => n.loc !== undefined && n.loc.start <= start && start < n.loc.end;
  let path: string[] | null = null;
  visit(parse(body), {
    Argument(argument) {
      if (!contains(argument)) return false;
      path = [argument.name.value];
      return undefined;
    },
    ObjectField(field) {
      if (!path || !contains(field)) return false;
      path.push(field.name.value);
      return undefined;
    },
  });
  return path ? (path as string[]).join('.') : null;
}

/**
 * A request refused as a whole before its operation ran (credentials, say): its error, and
 * the head it is answered with (the catalogue's status, Retry-After), recorded for the log line.
 */
export function formatRefusal(
  error: unknown,
  requestId: string,
  record: { codes: string[]; internalErrors: unknown[] },
  exposeInternals: boolean,
): { error: FormattedError; http: HTTPGraphQLHead } {
  const formatted = formatError(error, requestId, exposeInternals, record.internalErrors);
  record.codes = [formatted.extensions.code];
  const status = ERROR_CODES[formatted.extensions.code].status;
  const retryAfter = retryAfterOf([formatted], status);
  return { error: formatted, http: { status, headers: new HeaderMap(retryAfter === null ? [] : [['retry-after', String(retryAfter)]]) } };
}
