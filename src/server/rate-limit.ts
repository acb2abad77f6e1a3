import { type DocumentNode, Kind, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import type { RateLimitConfig } from '../config.js';
import { rateLimited } from '../errors.js';
import { type LimiterFactory, memoryLimiters } from '../modules/common/limiter.js';
import type { GraphQLContext } from './context.js';
import { fragmentsOf } from './limits.js';

/**
 * The root fields an operation runs, fragments expanded: each response key counts once
 * (15 aliases of one mutation are 15), `__typename` counts nothing.
 */
export function rootFieldCount(document: DocumentNode, operation: OperationDefinitionNode): number {
  const fragments = fragmentsOf(document);
  const keys = new Set<string>();
  const seen = new Set<string>();
  const collect = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value !== '__typename') keys.add(selection.alias?.value ?? selection.name.value);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        collect(selection.selectionSet);
      } else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) collect(fragment.selectionSet);
      }
    }
  };
  collect(operation.selectionSet);
  return keys.size;
}

/** Who an operation is counted against: the signed-in user, else the client's address. */
export function rateLimitKey(context: Pick<GraphQLContext, 'viewer' | 'clientAddress'>): string {
  return context.viewer ? `user:${context.viewer.userId}` : `address:${context.clientAddress}`;
}

/**
 * Counts operations, not HTTP requests: each root field of a mutation takes one unit of
 * the mutation budget, each root field of a query or subscription one of the query
 * budget, per signed-in user or else per client address, over a one-minute window.
 * Returns a check to run once the operation is known and before it executes; it throws
 * RATE_LIMITED (HTTP 429 with Retry-After) when the budget has no room. The budgets live
 * where `limiters` keeps them: this process's memory, or Redis shared by every replica.
 */
export function createRateLimitCheck(config: RateLimitConfig, limiters: LimiterFactory = memoryLimiters) {
  const budgets = {
    query: config.queriesPerMinute > 0 ? limiters('queries', config.queriesPerMinute, 60_000) : null,
    mutation: config.mutationsPerMinute > 0 ? limiters('mutations', config.mutationsPerMinute, 60_000) : null,
  };
  // The pipeline hands the same parsed document to every request of a query: count it once.
  const counted = new WeakMap<OperationDefinitionNode, number>();
  return async (document: DocumentNode, operation: OperationDefinitionNode, context: GraphQLContext): Promise<void> => {
    const budget = operation.operation === 'mutation' ? budgets.mutation : budgets.query;
    if (!budget) return;
    let units = counted.get(operation);
    if (units === undefined) counted.set(operation, (units = rootFieldCount(document, operation)));
    if (units === 0) return;
    const retryAfter = (await budget.consume(rateLimitKey(context), units)).retryAfterSeconds;
    if (retryAfter === null) return;
    throw units > budget.limit
      ? rateLimited(60, `The operation has ${units} root fields; at most ${budget.limit} may run per minute`)
      : rateLimited(retryAfter);
  };
}
