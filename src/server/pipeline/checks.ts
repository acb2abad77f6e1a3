import type { DocumentNode, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { RateLimitConfig } from '../../config.js';
import { AppError } from '../../errors.js';
import type { GraphQLContext } from '../context.js';
import { createCostCheck, type OperationLimits } from '../limits.js';
import type { LimiterFactory } from '../../modules/common/limiter.js';
import { pageArgumentErrors } from '../arguments.js';
import { createRateLimitCheck } from '../rate-limit.js';

/** One resolved operation about to run, as every transport has it. */
export interface OperationToCheck {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  variables: Readonly<Record<string, unknown>> | undefined;
  context: GraphQLContext;
  /** HTTP (GraphQL or REST), where subscriptions cannot run; false for graphql-ws. */
  overHttp: boolean;
}

export interface OperationChecksOptions {
  schema: GraphQLSchema;
  limits: OperationLimits;
  rateLimit: RateLimitConfig;
  /** Where subscriptions are served, named in the refusal of one over HTTP. */
  webSocketPath: string;
  /** Where the operation budgets are kept: this process's memory (the default), or Redis shared by the replicas. */
  limiters?: LimiterFactory;
}

/**
 * The checks every operation passes after it is parsed, validated and resolved, and before
 * anything of it runs, over HTTP, REST and graphql-ws alike: in order, a subscription over
 * HTTP is refused, then every page argument and cursor of the operation is read (so a bad
 * one nested in a list refuses the request before any resolver runs, rather than failing
 * one item while its siblings' promises are abandoned), then the operation's cost and size
 * for these variables (a large answer marks its statements to queue), then the caller's
 * rate limit (last, so a refused operation spends none of the budget). Each throws the
 * refusal as an AppError. This is the one place to add a check that must hold before execution.
 */
export function createOperationChecks(options: OperationChecksOptions): (operation: OperationToCheck) => Promise<void> {
  const costCheck = createCostCheck(options.limits);
  const rateLimitCheck = createRateLimitCheck(options.rateLimit, options.limiters);
  const { schema, webSocketPath } = options;
  const { largeAnswerBytes } = options.limits;
  // Not async: only the rate limit waits; the other checks cost no promise.
  return ({ document, operation, variables, context, overHttp }) => {
    try {
      if (overHttp && operation.operation === 'subscription') {
        throw new AppError(
          'SUBSCRIPTION_REQUIRES_WEBSOCKET',
          `Subscriptions run over graphql-ws (WebSocket) at ${webSocketPath}, not over HTTP`,
          {
            endpoint: webSocketPath,
          },
        );
      }
      const badArguments = pageArgumentErrors(schema, document, variables, operation.name?.value);
      if (badArguments.length) throw badArguments[0];
      const measure = costCheck(schema, document, operation, variables);
      // A large answer's reads queue behind other large ones (LargeReadQueue).
      if (measure && largeAnswerBytes > 0 && measure.bytes >= largeAnswerBytes) context.statements.large = true;
    } catch (error) {
      return Promise.reject(error);
    }
    return rateLimitCheck(document, operation, context);
  };
}
