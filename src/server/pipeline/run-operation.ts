import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLContext } from '../context.js';
import type { OperationTracker } from '../logging.js';
import type { OperationPipeline, OperationResult } from './operation.js';

/** A GraphQL operation a REST route runs: its fixed document (or a trusted document's id) and the variables mapped from the request. */
export interface GraphQLOperation {
  query?: string;
  /** SHA-256 of a trusted document, instead of `query`. */
  documentId?: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

export type { OperationResult };

/**
 * Runs one GraphQL operation for an HTTP request through the same pipeline as /graphql:
 * the request's credentials (Bearer, cookies, `x-api-key`) and failed-authentication
 * budget, limits, cost, rate limits, compiled execution, error formatting (catalogue
 * status, Retry-After), metrics and the request's log line. Cookies the operation sets
 * (sign-in) go on `reply`. The document is the route's own, so it runs where trusted
 * documents are on too. Mutations run only from non-GET routes.
 */
export type RunOperation = (request: FastifyRequest, reply: FastifyReply, operation: GraphQLOperation) => Promise<OperationResult>;

declare module 'fastify' {
  interface FastifyInstance {
    /** See {@link RunOperation}; decorated by createApp for the REST routes. */
    runOperation: RunOperation;
  }
}

export function createRunOperation(options: {
  pipeline: OperationPipeline;
  tracker: OperationTracker;
  context: (request: FastifyRequest, reply: FastifyReply) => Promise<GraphQLContext>;
  budgetMs: number;
}): RunOperation {
  return (request, reply, operation) =>
    options.pipeline.run(operation, {
      requestId: request.id,
      record: options.tracker.start(request),
      context: () => options.context(request, reply),
      allowMutations: request.method !== 'GET',
      serverOwned: true,
      budgetMs: options.budgetMs,
    });
}
