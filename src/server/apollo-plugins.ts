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
 * The deployment's own Apollo Server plugins (usage reporting, a response cache, your
 * own): the one place to add them. They run on every GraphQL operation over HTTP and REST,
 * after poolgraph's plugin, in this order.
 */
export const apolloPlugins: ApolloServerPlugin<GraphQLContext>[] = [];
