import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLContext } from './context.js';

/**
 * Example: names each operation in an `x-graphql-operation` response header (a proxy's
 * logs can then tell operations apart). Not on by default; add `operationNameHeader()` to
 * {@link apolloPlugins} to use it.
 */
export function operationNameHeader(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ operationName, response }) {
          if (operationName) response.http.headers.set('x-graphql-operation', operationName);
        },
      };
    },
  };
}

/**
 * The deployment's own Apollo Server plugins (inline traces, cache control with options of
 * your own, your own): the one place to add them. They run on every GraphQL operation over
 * HTTP, REST and WebSocket, after poolgraph's plugin (and the response cache when
 * RESPONSE_CACHE is on), in this order, with every hook Apollo documents (docs/operations.md).
 */
export const apolloPlugins: ApolloServerPlugin<GraphQLContext>[] = [];
