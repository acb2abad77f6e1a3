import type { DocumentNode, OperationDefinitionNode } from 'graphql';
import type { RateLimitConfig } from '../../config.js';
import { AppError } from '../../errors.js';
import type { GraphQLContext } from '../context.js';
import { budgetError, type OperationLimits } from '../limits.js';
import type { LimiterFactory } from '../../modules/common/limiter.js';
import type { OperationWalks } from '../../read/operation-walks.js';
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
  /** The server's walks of its operations: the checks read the operation's, and leave it on the context for the executor. */
  walks: OperationWalks;
  limits: OperationLimits;
  rateLimit: RateLimitConfig;
  /** Where subscriptions are served, named in the refusal of one over HTTP. */
  webSocketPath: string;
  /** Where the operation budgets are kept: this process's memory (the default), or Redis shared by the replicas. */
  limiters?: LimiterFactory;
}

/**
 * The checks every operation passes after it is parsed, validated and resolved, and before
 * anything of it runs, over HTTP, REST and graphql-ws alike, all read from the operation's one
 * walk (read/operation-walk.ts) for its variables: in order, a subscription over HTTP is
 * refused, then every page argument and cursor of the fields that will run is read (so a bad
 * one nested in a list refuses the request before any resolver runs, rather than failing one
 * item while its siblings' promises are abandoned), then the operation's cost and size (a
 * large answer marks its statements to queue), then the caller's rate limit by its root
 * fields (last, so a refused operation spends none of the budget). Each throws the refusal as
 * an AppError. The walk stays on the context (`checked`): the executor reads the same one.
 * Variables that do not coerce leave nothing to walk: the executor refuses them before any
 * resolver, and the rate limit counts the operation as one root field. This is the one place
 * to add a check that must hold before execution.
 */
export function createOperationChecks(options: OperationChecksOptions): (operation: OperationToCheck) => Promise<void> {
  const rateLimitCheck = createRateLimitCheck(options.rateLimit, options.limiters);
  const { walks, webSocketPath, limits } = options;
  const { largeAnswerBytes } = limits;
  // Not async: only the rate limit waits; the other checks cost no promise.
  return ({ document, operation, variables, context, overHttp }) => {
    let rootFields = 1;
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
      const coerced = walks.coerce(operation, variables);
      if (coerced) {
        const walk = walks.of(document, operation, coerced, context.answerForm);
        const badArgument = walk.argumentError(coerced);
        if (badArgument) throw badArgument;
        const overBudget = budgetError(walk.measure, limits);
        if (overBudget) {
          const { code: _code, ...details } = overBudget.extensions;
          throw new AppError('QUERY_TOO_COMPLEX', overBudget.message, details);
        }
        // A large answer's reads queue behind other large ones (LargeReadQueue).
        if (largeAnswerBytes > 0 && walk.measure.bytes >= largeAnswerBytes) context.statements.large = true;
        context.checked = { walk, variables: coerced };
        rootFields = walk.rootFieldCount;
      }
    } catch (error) {
      return Promise.reject(error);
    }
    return rateLimitCheck(operation, context, rootFields);
  };
}
