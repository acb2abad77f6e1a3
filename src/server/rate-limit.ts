import { type DocumentNode, Kind, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import type { RateLimitConfig } from '../config.js';
import { rateLimited } from '../errors.js';
import { type Limiter, type LimiterFactory, memoryLimiters } from '../modules/common/limiter.js';
import type { GraphQLContext } from './context.js';
import { fragmentsOf } from './limits.js';

/** Root fields that cost nothing: `__typename`, and `rateLimit`, so a client may ask its budget without spending it. */
const FREE_ROOT_FIELDS = new Set(['__typename', 'rateLimit']);

/**
 * The root fields an operation runs, fragments expanded: each response key counts once
 * (15 aliases of one mutation are 15), `__typename` and `rateLimit` count nothing.
 */
export function rootFieldCount(document: DocumentNode, operation: OperationDefinitionNode): number {
  const fragments = fragmentsOf(document);
  const keys = new Set<string>();
  const seen = new Set<string>();
  const collect = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (!FREE_ROOT_FIELDS.has(selection.name.value)) keys.add(selection.alias?.value ?? selection.name.value);
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

/** Who an operation's budget belongs to: the API key it came with, else the signed-in user, else the client's address. */
export type BudgetSubject = 'API_KEY' | 'USER' | 'CLIENT';

/** Who an operation is counted against (see BudgetSubject), and its limiter key. */
export function rateLimitKey(context: Pick<GraphQLContext, 'viewer' | 'clientAddress'>): { key: string; subject: BudgetSubject } {
  const { viewer } = context;
  if (viewer?.apiKeyId) return { key: `apiKey:${viewer.apiKeyId}`, subject: 'API_KEY' };
  if (viewer) return { key: `user:${viewer.userId}`, subject: 'USER' };
  return { key: `address:${context.clientAddress}`, subject: 'CLIENT' };
}

const WINDOW_MS = 60_000;

/** The two budgets: one for queries (and subscriptions), one for mutations. */
export type BudgetPolicy = 'queries' | 'mutations';

/** One operation's budget, once it was counted (or refused): what the `rateLimit` field and the RateLimit headers show. */
export interface OperationBudget {
  policy: BudgetPolicy;
  subject: BudgetSubject;
  /** Units per window. */
  limit: number;
  /** Units this operation costs: its root fields (see rootFieldCount). */
  cost: number;
  /** Units left in the window, this operation's taken. */
  remaining: number;
  resetAt: Date;
  windowSeconds: number;
  /** True when this operation was refused (RATE_LIMITED): its cost was not taken. */
  refused: boolean;
  /** Returns what this operation took to its budget (an operation whose session turned out ended was not its viewer's). */
  giveBack(): Promise<void>;
}

/**
 * Counts operations, not HTTP requests: each root field of a mutation takes one unit of
 * the mutation budget, each root field of a query or subscription one of the query
 * budget, per API key, else signed-in user, else client address, over a one-minute window.
 * Returns a check to run once the operation is known and before it executes: it records
 * the operation's budget on the context (`rateLimit`, read by the field and the headers)
 * and throws RATE_LIMITED (HTTP 429 with Retry-After) when the budget has no room. The
 * budgets live where `limiters` keeps them: this process's memory, or Redis shared by
 * every replica.
 */
export function createRateLimitCheck(config: RateLimitConfig, limiters: LimiterFactory = memoryLimiters) {
  const budgets: Record<BudgetPolicy, Limiter | null> = {
    queries: config.queriesPerMinute > 0 ? limiters('queries', config.queriesPerMinute, WINDOW_MS) : null,
    mutations: config.mutationsPerMinute > 0 ? limiters('mutations', config.mutationsPerMinute, WINDOW_MS) : null,
  };
  // The pipeline hands the same parsed document to every request of a query: count it once.
  const counted = new WeakMap<OperationDefinitionNode, number>();
  return async (document: DocumentNode, operation: OperationDefinitionNode, context: GraphQLContext): Promise<void> => {
    const policy: BudgetPolicy = operation.operation === 'mutation' ? 'mutations' : 'queries';
    const budget = budgets[policy];
    if (!budget) return;
    let units = counted.get(operation);
    if (units === undefined) counted.set(operation, (units = rootFieldCount(document, operation)));
    const { key, subject } = rateLimitKey(context);
    // A free operation (only `__typename` or `rateLimit`) reads its budget without taking from it.
    const standing = units === 0 ? { ...(await budget.state(key)), retryAfterSeconds: null } : await budget.consume(key, units);
    const retryAfter = standing.retryAfterSeconds;
    context.rateLimit = {
      policy,
      subject,
      limit: budget.limit,
      cost: units,
      remaining: standing.remaining,
      resetAt: standing.resetAt ?? new Date(Date.now() + WINDOW_MS),
      windowSeconds: WINDOW_MS / 1000,
      refused: retryAfter !== null,
      giveBack: () => (retryAfter === null && units > 0 ? budget.giveBack(key, units!) : Promise.resolve()),
    };
    if (retryAfter === null) return;
    throw units > budget.limit
      ? rateLimited(60, `The operation has ${units} root fields; at most ${budget.limit} may run per minute`)
      : rateLimited(retryAfter);
  };
}

/**
 * The RateLimit-Policy and RateLimit response headers (the IETF httpapi RateLimit header
 * fields, structured-field syntax) of an operation's budget: the policy it drew on (quota
 * `q` per window `w` seconds) and what is left (`r` units, `t` seconds until the window
 * resets). Empty when no budget applied. Any transport that answers over HTTP adds them.
 */
export function rateLimitHeaders(budget: OperationBudget | null | undefined, nowMs: number = Date.now()): Record<string, string> {
  if (!budget) return {};
  const reset = Math.max(0, Math.ceil((budget.resetAt.getTime() - nowMs) / 1000));
  return {
    'ratelimit-policy': `"${budget.policy}";q=${budget.limit};w=${budget.windowSeconds}`,
    ratelimit: `"${budget.policy}";r=${budget.remaining};t=${reset}`,
  };
}
