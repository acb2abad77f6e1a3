import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { type Consumption, type Limiter, type LimiterFactory, type LimiterState, MemoryLimiter } from '../modules/common/limiter.js';
import type { SharedRedis } from './redis.js';

/**
 * Budgets shared by every replica, in Redis, through rate-limiter-flexible (an atomic
 * increment with expiry per key and window). When Redis cannot be reached, each budget falls
 * back to a budget of its own in this process's memory (as without Redis: N replicas then
 * allow up to N times the budget), the outage logged once by {@link SharedRedis}. Back in
 * Redis, the shared count resumes where Redis left it.
 */
export function redisLimiters(redis: SharedRedis, keyPrefix: string): LimiterFactory {
  return (name, limit, windowMs) =>
    new RedisLimiter(
      new RateLimiterRedis({
        storeClient: redis.client,
        keyPrefix: `${keyPrefix}:${name}`,
        points: limit,
        duration: windowMs / 1000,
        rejectIfRedisNotReady: true,
      }),
      new MemoryLimiter(limit, windowMs),
      redis,
    );
}

class RedisLimiter implements Limiter {
  readonly limit: number;

  constructor(
    private readonly store: RateLimiterRedis,
    private readonly fallback: MemoryLimiter,
    private readonly redis: SharedRedis,
  ) {
    this.limit = fallback.limit;
  }

  consume(key: string, cost = 1): Promise<Consumption> {
    return this.redis.attempt(
      async () => {
        try {
          return { ...this.stateOf(await this.store.consume(key, cost)), retryAfterSeconds: null };
        } catch (error) {
          if (!(error instanceof RateLimiterRes)) throw error;
          // Refused: give the units back, so a request too large to fit does not use up what smaller ones could still have.
          await this.store.reward(key, cost).catch(() => {});
          return { ...this.stateOf(error, cost), retryAfterSeconds: Math.max(1, Math.ceil(error.msBeforeNext / 1000)) };
        }
      },
      () => this.fallback.consume(key, cost),
    );
  }

  giveBack(key: string, cost: number): Promise<void> {
    return this.redis.attempt(
      async () => {
        await this.store.reward(key, cost);
      },
      () => this.fallback.giveBack(key, cost),
    );
  }

  state(key: string): Promise<LimiterState> {
    return this.redis.attempt(
      async () => {
        const result = await this.store.get(key);
        return result ? this.stateOf(result) : { limit: this.limit, remaining: this.limit, resetAt: null };
      },
      () => this.fallback.state(key),
    );
  }

  /** `refunded`: units counted in `result` that were given back since. */
  private stateOf(result: RateLimiterRes, refunded = 0): LimiterState {
    return {
      limit: this.limit,
      remaining: Math.max(0, this.limit - (result.consumedPoints - refunded)),
      resetAt: new Date(Date.now() + result.msBeforeNext),
    };
  }
}
