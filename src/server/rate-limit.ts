import { HeaderMap } from '@apollo/server';
import { type DocumentNode, GraphQLError, Kind, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import type { RateLimitConfig } from '../config.js';
import type { GraphQLContext } from './context.js';
import { fragmentsOf } from './limits.js';

/**
 * A fixed-window budget per key, in memory (per process: N replicas allow N times the
 * budget). An operation takes all the units it needs or none, so one too large to fit
 * does not use up what smaller ones could still have.
 */
export class OperationBudget {
  private readonly windows = new Map<string, { startedAt: number; used: number }>();

  constructor(
    readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes `units` for `key`; returns null when granted, else the seconds until the window resets. */
  take(key: string, units: number): number | null {
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || now - window.startedAt >= this.windowMs) {
      if (this.windows.size >= 10_000) this.sweep(now);
      window = { startedAt: now, used: 0 };
      this.windows.set(key, window);
    }
    if (window.used + units <= this.limit) {
      window.used += units;
      return null;
    }
    return Math.max(1, Math.ceil((window.startedAt + this.windowMs - now) / 1000));
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (now - window.startedAt >= this.windowMs) this.windows.delete(key);
  }
}

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

export function rateLimitedError(retryAfter: number, message?: string): GraphQLError {
  return new GraphQLError(message ?? `Too many operations; retry after ${retryAfter} second${retryAfter === 1 ? '' : 's'}`, {
    extensions: {
      code: 'RATE_LIMITED',
      retryAfter,
      http: { status: 429, headers: new HeaderMap([['retry-after', String(retryAfter)]]) },
    },
  });
}

/**
 * Counts operations, not HTTP requests: each root field of a mutation takes one unit of
 * the mutation budget, each root field of a query or subscription one of the query
 * budget, per signed-in user or else per client address, over a one-minute window.
 * Returns a check to run once the operation is known and before it executes; it throws
 * RATE_LIMITED (HTTP 429 with Retry-After) when the budget has no room.
 */
export function createRateLimitCheck(config: RateLimitConfig, now: () => number = Date.now) {
  const budgets = {
    query: config.queriesPerMinute > 0 ? new OperationBudget(config.queriesPerMinute, 60_000, now) : null,
    mutation: config.mutationsPerMinute > 0 ? new OperationBudget(config.mutationsPerMinute, 60_000, now) : null,
  };
  // Apollo hands the same parsed document to every request of a query: count it once.
  const counted = new WeakMap<OperationDefinitionNode, number>();
  return (document: DocumentNode, operation: OperationDefinitionNode, context: GraphQLContext): void => {
    const budget = operation.operation === 'mutation' ? budgets.mutation : budgets.query;
    if (!budget) return;
    let units = counted.get(operation);
    if (units === undefined) counted.set(operation, (units = rootFieldCount(document, operation)));
    if (units === 0) return;
    const retryAfter = budget.take(rateLimitKey(context), units);
    if (retryAfter === null) return;
    throw units > budget.limit
      ? rateLimitedError(60, `The operation has ${units} root fields; at most ${budget.limit} may run per minute`)
      : rateLimitedError(retryAfter);
  };
}
