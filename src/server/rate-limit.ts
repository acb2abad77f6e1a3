import type { OperationDefinitionNode } from 'graphql';
import type { RateLimitConfig } from '../config.js';
import { rateLimited } from '../errors.js';
import { type Consumption, type Limiter, type LimiterFactory, memoryLimiters } from '../modules/common/limiter.js';
import type { GraphQLContext } from './context.js';

/** Whose budget an operation is counted against: the signed-in user, else the client's address; and beyond it, the address's ceiling. */
export type BudgetSubject = 'USER' | 'CLIENT' | 'ADDRESS';

/** Who an operation is counted against (see BudgetSubject), and its limiter key. */
export function rateLimitKey(context: Pick<GraphQLContext, 'viewer' | 'clientAddress'>): { key: string; subject: BudgetSubject } {
  const { viewer } = context;
  // One person's keys and sessions share one budget: minting keys buys no more.
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
  /** Units this operation costs: its root fields (OperationWalk.rootFieldCount). */
  cost: number;
  /** Units left in the window, this operation's taken. */
  remaining: number;
  resetAt: Date;
  windowSeconds: number;
  /** True when this operation was refused (RATE_LIMITED): its cost was not taken. */
  refused: boolean;
  /** Returns what this operation took to its budgets (an operation whose session turned out ended was not its viewer's). */
  giveBack(): Promise<void>;
}

/** A budget that applies to an operation: its limiter, and its key and subject there. */
interface Applicable {
  limiter: Limiter;
  key: string;
  subject: BudgetSubject;
}

/**
 * Counts operations, not HTTP requests: each root field takes a unit of the mutation or the query (and subscription) budget, per
 * signed-in user, else client address, over a one-minute window; and the same units from the client's address, signed in or not,
 * against its ceiling (when configured), so fresh wallets from one address cannot multiply its budget. The check, run once the
 * operation is known and before it executes, records the binding budget (the refusing one, else the one with less left) on the
 * context's `rateLimit` for the field and headers, and throws RATE_LIMITED (HTTP 429 with Retry-After) when a budget has no room;
 * units are taken from both or neither. `limiters` keeps the budgets in this process's memory, or in Redis shared by every replica.
 */
export function createRateLimitCheck(config: RateLimitConfig, limiters: LimiterFactory = memoryLimiters) {
  const budgetOf = (name: string, limit: number) => (limit > 0 ? limiters(name, limit, WINDOW_MS) : null);
  const budgets: Record<BudgetPolicy, { own: Limiter | null; address: Limiter | null }> = {
    queries: {
      own: budgetOf('queries', config.queriesPerMinute),
      address: budgetOf('queriesPerAddress', config.queriesPerAddressPerMinute),
    },
    mutations: {
      own: budgetOf('mutations', config.mutationsPerMinute),
      address: budgetOf('mutationsPerAddress', config.mutationsPerAddressPerMinute),
    },
  };
  return async (operation: OperationDefinitionNode, context: GraphQLContext, units: number): Promise<void> => {
    const policy: BudgetPolicy = operation.operation === 'mutation' ? 'mutations' : 'queries';
    const { own, address } = budgets[policy];
    if (!own && !address) return;
    const applicable: Applicable[] = [];
    if (own) applicable.push({ limiter: own, ...rateLimitKey(context) });
    if (address) applicable.push({ limiter: address, key: context.clientAddress, subject: 'ADDRESS' });

    let binding: { budget: Applicable; standing: Consumption } | null = null;
    const taken: Applicable[] = [];
    for (const budget of applicable) {
      // A free operation (only `__typename` or `rateLimit`) reads its budget without taking from it.
      const standing: Consumption =
        units === 0
          ? { ...(await budget.limiter.state(budget.key)), retryAfterSeconds: null }
          : await budget.limiter.consume(budget.key, units);
      if (!binding || standing.retryAfterSeconds !== null || standing.remaining < binding.standing.remaining)
        binding = { budget, standing };
      if (standing.retryAfterSeconds !== null) break;
      taken.push(budget);
    }
    const { budget, standing } = binding!;
    const retryAfter = standing.retryAfterSeconds;
    const giveBack = async () => {
      if (units === 0) return;
      for (const { limiter, key } of taken.splice(0)) await limiter.giveBack(key, units);
    };
    // Refused by one budget: what the others took goes back, so a refusal costs nothing.
    if (retryAfter !== null) await giveBack();
    context.rateLimit = {
      policy,
      subject: budget.subject,
      limit: budget.limiter.limit,
      cost: units,
      remaining: standing.remaining,
      resetAt: standing.resetAt ?? new Date(Date.now() + WINDOW_MS),
      windowSeconds: WINDOW_MS / 1000,
      refused: retryAfter !== null,
      giveBack,
    };
    if (retryAfter === null) return;
    throw units > budget.limiter.limit
      ? rateLimited(60, `The operation has ${units} root fields; at most ${budget.limiter.limit} may run per minute`)
      : rateLimited(retryAfter);
  };
}

/**
 * The IETF httpapi RateLimit-Policy and RateLimit headers (structured-field syntax) of an operation's budget: quota `q` per window
 * `w` seconds, `r` units left, `t` seconds until the window resets. Empty when no budget applied; any HTTP transport adds them.
 */
export function rateLimitHeaders(budget: OperationBudget | null | undefined, nowMs: number = Date.now()): Record<string, string> {
  if (!budget) return {};
  const reset = Math.max(0, Math.ceil((budget.resetAt.getTime() - nowMs) / 1000));
  return {
    'ratelimit-policy': `"${budget.policy}";q=${budget.limit};w=${budget.windowSeconds}`,
    ratelimit: `"${budget.policy}";r=${budget.remaining};t=${reset}`,
  };
}
