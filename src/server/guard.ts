import type { ApolloServerPlugin, GraphQLRequestContextDidResolveOperation } from '@apollo/server';
import type { OperationDefinitionNode } from 'graphql';
import type { GraphQLContext } from './context.js';

/** A check of a resolved operation; throws a GraphQLError to refuse it. */
export type OperationCheck = (
  requestContext: GraphQLRequestContextDidResolveOperation<GraphQLContext>,
  operation: OperationDefinitionNode,
) => void;

/**
 * Runs `checks` in order once the operation is parsed, validated and resolved, and before
 * anything of it executes; the first to throw refuses the operation, and the later ones do
 * not run (so an operation refused for its cost does not use up its rate-limit budget).
 */
export function operationGuardPlugin(checks: OperationCheck[]): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation(requestContext) {
          // No operation (an unknown operationName): execution reports it, nothing runs.
          const { operation } = requestContext;
          if (!operation) return;
          for (const check of checks) check(requestContext, operation);
        },
      };
    },
  };
}
