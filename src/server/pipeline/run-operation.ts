import type { ApolloServer, HTTPGraphQLHead } from '@apollo/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLContext } from '../context.js';
import type { OperationRecord, OperationTracker } from '../logging.js';
import { type FormattedError, formatRefusal } from './format-error.js';

/** A GraphQL operation a REST route runs: its fixed document and the variables mapped from the request. */
export interface GraphQLOperation {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/** What an operation answered: the HTTP status and headers the status policy chose (429 with Retry-After, say), and the GraphQL body. */
export interface OperationResult {
  status: number;
  headers: Record<string, string>;
  body: { data?: unknown; errors?: FormattedError[] };
}
/**
 * Runs one GraphQL operation for an HTTP request through Apollo Server's executeOperation,
 * so the steps of /graphql apply: the request's credentials (Bearer, cookies, `x-api-key`)
 * and failed-authentication budget, then poolgraph's plugin (checks, cost, rate limits,
 * execution within the time budget, error formatting, the status policy with Retry-After)
 * and the request's log line and metrics. Cookies the operation sets (sign-in) go on
 * `reply`. The document is the route's own, so it runs where trusted documents are on too
 * (they are checked before Apollo, on /graphql only).
 */
export type RunOperation = (request: FastifyRequest, reply: FastifyReply, operation: GraphQLOperation) => Promise<OperationResult>;

export function createRunOperation(options: {
  apollo: ApolloServer<GraphQLContext>;
  tracker: OperationTracker;
  context: (request: FastifyRequest, reply: FastifyReply, record: OperationRecord) => Promise<GraphQLContext>;
  exposeInternals: boolean;
}): RunOperation {
  return async (request, reply, operation) => {
    const record = options.tracker.start(request);
    let contextValue: GraphQLContext;
    try {
      contextValue = await options.context(request, reply, record);
    } catch (error) {
      const { error: refused, http } = formatRefusal(error, request.id, record, options.exposeInternals);
      return resultOf(http, { errors: [refused] });
    }
    // A rendered read writes the REST form itself (read/answer-form.ts): the route sends its text as it is.
    contextValue.answerForm = 'rest';
    const response = await options.apollo.executeOperation(operation, { contextValue });
    if (response.body.kind !== 'single') throw new Error('a REST operation answered incrementally');
    const { data, errors } = response.body.singleResult;
    return resultOf(response.http, { data, errors: errors as FormattedError[] | undefined });
  };
}

/** An answer's head and body as a REST route reads them, whether Apollo Server or the refusal of a failed context gave it. */
function resultOf(http: HTTPGraphQLHead, body: OperationResult['body']): OperationResult {
  const headers: Record<string, string> = {};
  for (const [name, value] of http.headers) headers[name] = value;
  return { status: http.status ?? 200, headers, body };
}
