import { type ApolloServer, HeaderMap } from '@apollo/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLContext } from '../context.js';

/** A GraphQL operation a REST route runs: its fixed document and the variables mapped from the request. */
export interface GraphQLOperation {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/** A GraphQL error as the pipeline formats it: `extensions.code` from the catalogue (src/errors.ts). */
export interface OperationError {
  message: string;
  extensions?: Record<string, unknown>;
}

/** What the pipeline answered: the HTTP status and headers it chose (429 with Retry-After, say), and the GraphQL body. */
export interface OperationResult {
  status: number;
  headers: Record<string, string>;
  body: { data?: any; errors?: OperationError[] };
}

/**
 * Runs one GraphQL operation for an HTTP request through the same pipeline as /graphql:
 * the request's credentials (Bearer, cookies, `x-api-key`), limits, rate limits, error
 * formatting, metrics and the request's log line. The REST routes call nothing else, so
 * no rule of the API exists twice. Cookies the operation sets (sign-in) go on `reply`.
 *
 * The routes guarantee what CSRF prevention asks of /graphql: a REST request carries a
 * body only as `application/json` (other types get 415 before this runs), and mutations
 * only run from POST routes. So the runner treats every call as a JSON POST.
 */
export type RunOperation = (request: FastifyRequest, reply: FastifyReply, operation: GraphQLOperation) => Promise<OperationResult>;

/**
 * The runner over Apollo Server, with the context factory of /graphql (so its plugins,
 * guards and the operation tracker see REST calls as they see GraphQL requests).
 */
export function apolloRunOperation(
  apollo: ApolloServer<GraphQLContext>,
  context: (request: FastifyRequest, reply: FastifyReply) => Promise<GraphQLContext>,
): RunOperation {
  return async (request, reply, operation) => {
    const headers = new HeaderMap();
    for (const [name, value] of Object.entries(request.headers)) {
      if (value === undefined || name === 'content-length') continue;
      headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    headers.set('content-type', 'application/json');
    const response = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: 'POST', headers, search: '', body: operation },
      context: () => context(request, reply),
    });
    if (response.body.kind !== 'complete') throw new Error('A REST operation answered with a streamed (incremental) response');
    const responseHeaders: Record<string, string> = {};
    for (const [name, value] of response.headers) responseHeaders[name] = value;
    return { status: response.status ?? 200, headers: responseHeaders, body: JSON.parse(response.body.string) };
  };
}
