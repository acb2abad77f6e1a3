import type { GraphQLSchema } from 'graphql';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { ERROR_CODES } from '../../errors.js';
import { retryAfterOf } from '../pipeline/format-error.js';
import { JsonText, OperationAnswer } from './answer.js';
import { RestError } from './rest-error.js';
import { restParameterName } from './mapping.js';
import { normalizeQuery } from './query-parameters.js';
import type { GraphQLOperation, OperationError, OperationResult, RunOperation } from './run-operation.js';

/**
 * One REST route: its JSON schemas (validation and OpenAPI), the fixed GraphQL operation it
 * runs for a request, and how the operation's data becomes the response body.
 */
export interface RestRoute {
  method: 'GET' | 'POST';
  url: string;
  schema: FastifySchema & { summary: string; tags: string[] };
  operation(request: FastifyRequest): GraphQLOperation;
  /**
   * The response body made of the operation's data (JsonText is sent as it is); may set
   * headers (paging) or answer an error (a RestError, NOT_FOUND say).
   */
  respond(data: OperationAnswer, reply: FastifyReply, request: FastifyRequest): unknown;
}

export interface RestOptions {
  runOperation: RunOperation;
  /** The GraphQL schema the operations run against: the resources' fields and JSON schemas derive from its types (resources.ts). */
  schema: GraphQLSchema;
  /** Serve `schema` as SDL at /schema.graphql (where introspection is on: it tells what introspection tells). */
  serveSchemaDocument: boolean;
  /** Include stack traces of unexpected errors (development). */
  exposeInternals?: boolean;
}

function statusOf(code: string, fallback: number): number {
  return (ERROR_CODES as Record<string, { status: number }>)[code]?.status ?? (fallback >= 400 ? fallback : 500);
}

/** The REST body of a GraphQL error: its code and message, its facts, argument names as REST parameters. */
function errorBody(error: OperationError): { error: Record<string, unknown> } {
  const { code, http: _http, stacktrace: _stacktrace, ...facts } = error.extensions ?? {};
  let message = error.message;
  if (typeof facts.argumentName === 'string') {
    const argumentName = facts.argumentName;
    facts.argumentName = restParameterName(argumentName);
    message = restMessage(message, argumentName, facts.argumentName as string);
  }
  return { error: { code: typeof code === 'string' ? code : 'INTERNAL_SERVER_ERROR', message, ...facts } };
}

/**
 * A GraphQL error's message as the REST caller reads it: the argument it names (`input.value`,
 * at the start or quoted) becomes the REST parameter the caller sent (`value`).
 */
function restMessage(message: string, argumentName: string, parameter: string): string {
  if (argumentName === parameter) return message;
  const quoted = message.replaceAll(`"${argumentName}"`, `"${parameter}"`);
  return quoted.startsWith(`${argumentName} `) ? `${parameter}${quoted.slice(argumentName.length)}` : quoted;
}

function sendOperationError(reply: FastifyReply, result: OperationResult, error: OperationError): FastifyReply {
  const body = errorBody(error);
  const status = statusOf(String(body.error.code), result.status);
  // 429 and 503 are what clients retry (the SDK waits for Retry-After): always say when, as GraphQL's answer does.
  const retryAfter = result.headers['retry-after'] ?? retryAfterOf([error], status);
  if (retryAfter !== null) reply.header('retry-after', String(retryAfter));
  return reply.code(status).send(body);
}

/** The RateLimit headers of an operation's answer, which a REST answer carries as GraphQL's does. */
function budgetHeadersOf(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name === 'ratelimit' || name === 'ratelimit-policy'));
}

/** Runs `route`'s operation for each request through the pipeline (which also keeps the request's time budget). */
export function registerRoute(app: FastifyInstance, options: RestOptions, route: RestRoute): void {
  app.route({
    method: route.method,
    url: route.url,
    schema: route.schema,
    preValidation: async (request) => normalizeQuery(request),
    async handler(request, reply) {
      const result = await options.runOperation(request, reply, route.operation(request));
      reply.headers(budgetHeadersOf(result.headers));
      const error = result.body.errors?.[0];
      if (error) return sendOperationError(reply, result, error);
      // The cache hints' policy, as GraphQL's answer carries it: a public read may be kept by a CDN, the viewer's never.
      const cacheControl = result.headers['cache-control'];
      if (cacheControl) reply.header('cache-control', cacheControl);
      const body: unknown = await route.respond(new OperationAnswer(result.body.data), reply, request);
      // Already JSON in the interface's form (a rendered read's text): not serialized again.
      if (body instanceof JsonText) return reply.code(200).type('application/json; charset=utf-8').send(body.body);
      return reply.code(200).send(body);
    },
  });
}

/** The REST parameter a fastify validation error is about (`querystring/limit` -> `limit`). */
function parameterOf(error: FastifyError): string | undefined {
  const first = error.validation?.[0];
  if (!first) return undefined;
  const missing = (first.params as { missingProperty?: string; additionalProperty?: string }) ?? {};
  const path = first.instancePath.split('/').filter(Boolean);
  return missing.missingProperty ?? missing.additionalProperty ?? path[0];
}

/**
 * The REST scope's error answers: schema validation fails with BAD_USER_INPUT, bodies that
 * are not JSON likewise, oversized ones with REQUEST_TOO_LARGE; the rest is logged and
 * answered INTERNAL_SERVER_ERROR with the request id. And any GraphQL-shaped error body
 * made for a REST request outside the operation (load shedding's 503, the time budget's
 * 504) leaves in the REST shape.
 */
export function registerErrorShape(app: FastifyInstance, options: Pick<RestOptions, 'exposeInternals'>): void {
  app.setErrorHandler((error: FastifyError | RestError, request, reply) => {
    if (error instanceof RestError) {
      return reply.code(statusOf(error.code, 500)).send({ error: { code: error.code, message: error.message, ...error.details } });
    }
    if (error.validation) {
      const parameter = parameterOf(error);
      const allowed = (error.validation[0]?.params as { allowedValues?: unknown[] } | undefined)?.allowedValues;
      const message = Array.isArray(allowed) ? `${error.message}: ${allowed.join(', ')}` : error.message;
      return reply.code(400).send({ error: { code: 'BAD_USER_INPUT', message, ...(parameter ? { argumentName: parameter } : {}) } });
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.code(413).send({ error: { code: 'REQUEST_TOO_LARGE', message: error.message } });
    }
    if (error.code?.startsWith('FST_ERR_CTP_') || error.statusCode === 415) {
      return reply.code(400).send({ error: { code: 'BAD_USER_INPUT', message: `${error.message}; send application/json` } });
    }
    request.log.error({ err: error }, 'REST request failed');
    const message = options.exposeInternals ? error.message : 'Internal server error';
    return reply.code(500).send({ error: { code: 'INTERNAL_SERVER_ERROR', message, requestId: request.id } });
  });
  // Before serialization: the routes' error response schema is the REST shape.
  app.addHook('preSerialization', async (_request, reply, payload: unknown) => {
    const errors = reply.statusCode >= 400 ? (payload as { errors?: OperationError[] } | null)?.errors : undefined;
    return Array.isArray(errors) && errors[0] ? errorBody(errors[0]) : payload;
  });
}
