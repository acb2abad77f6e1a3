import { FixedWindowLimiter } from './fixed-window.js';

/** A budget's standing for one key. */
export interface LimiterState {
  /** Units per window. */
  limit: number;
  /** Units left in the current window. */
  remaining: number;
  /** When the current window ends; null when none is open (the whole budget is there). */
  resetAt: Date | null;
}

/** What {@link Limiter.consume} did: the state after it, and null or the seconds to wait when it granted nothing. */
export interface Consumption extends LimiterState {
  /** null when the units were granted; else the seconds (at least 1) until the window resets. */
  retryAfterSeconds: number | null;
}

/**
 * A fixed-window budget per key: the one interface of every rate limit and budget (operations,
 * sign-in attempts, failed authentications). In memory per process by default; shared by
 * every replica when REDIS_URL is set (redis-limiter.ts).
 */
export interface Limiter {
  readonly limit: number;
  /** Takes `cost` units for `key`, all or none. */
  consume(key: string, cost?: number): Promise<Consumption>;
  /** The state of `key`'s budget, taking nothing. */
  state(key: string): Promise<LimiterState>;
  /** Returns `cost` units taken from `key`'s current window (what was taken for work that turned out not to be its). */
  giveBack(key: string, cost: number): Promise<void>;
}

/** Makes the limiter of one budget; `name` keeps budgets apart in a shared store. */
export type LimiterFactory = (name: string, limit: number, windowMs: number) => Limiter;

/** A budget kept in this process's memory. */
export class MemoryLimiter implements Limiter {
  private readonly windows: FixedWindowLimiter;

  constructor(
    readonly limit: number,
    windowMs: number,
    now: () => number = Date.now,
  ) {
    this.windows = new FixedWindowLimiter(limit, windowMs, now);
  }

  async consume(key: string, cost = 1): Promise<Consumption> {
    const retryAfterSeconds = this.windows.take(key, cost);
    return { ...(await this.state(key)), retryAfterSeconds };
  }

  async giveBack(key: string, cost: number): Promise<void> {
    this.windows.giveBack(key, cost);
  }

  async state(key: string): Promise<LimiterState> {
    const { used, resetAt } = this.windows.used(key);
    return { limit: this.limit, remaining: Math.max(0, this.limit - used), resetAt: resetAt === null ? null : new Date(resetAt) };
  }
}

/** The embedded default: every budget in memory. */
export const memoryLimiters: LimiterFactory = (_name, limit, windowMs) => new MemoryLimiter(limit, windowMs);
