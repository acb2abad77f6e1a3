import { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { type Consumption, type Limiter, type LimiterFactory, type LimiterState, MemoryLimiter } from '../modules/common/limiter.js';

/**
 * Budgets shared by every replica, in Redis, through rate-limiter-flexible (an atomic
 * increment with expiry per key and window). When Redis cannot be reached, each budget falls
 * back to a budget of its own in this process's memory (as without Redis: N replicas then
 * allow up to N times the budget) and logs it once per outage; nothing waits for Redis and
 * nothing fails because of it. Back in Redis, the shared count resumes where Redis left it.
 */
export function redisLimiters(
  url: string,
  options: { keyPrefix?: string; onFallback?: (error: unknown) => void } = {},
): { limiters: LimiterFactory; close(): Promise<void> } {
  // No offline queue and one try per command: a command Redis cannot take now fails at once,
  // so the request is answered from the fallback instead of waiting for a reconnection.
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false, connectTimeout: 1000 });
  client.on('error', () => {}); // reported through onFallback, once per outage
  let down = false;
  const fellBack = (error: unknown) => {
    if (!down) options.onFallback?.(error);
    down = true;
  };
  const recovered = () => {
    down = false;
  };
  const limiters: LimiterFactory = (name, limit, windowMs) =>
    new RedisLimiter(
      new RateLimiterRedis({
        storeClient: client,
        keyPrefix: `${options.keyPrefix ?? 'poolgraph'}:${name}`,
        points: limit,
        duration: windowMs / 1000,
        rejectIfRedisNotReady: true,
      }),
      new MemoryLimiter(limit, windowMs),
      { fellBack, recovered },
    );
  return { limiters, close: async () => void client.disconnect() };
}

class RedisLimiter implements Limiter {
  readonly limit: number;

  constructor(
    private readonly store: RateLimiterRedis,
    private readonly fallback: MemoryLimiter,
    private readonly health: { fellBack(error: unknown): void; recovered(): void },
  ) {
    this.limit = fallback.limit;
  }

  async consume(key: string, cost = 1): Promise<Consumption> {
    try {
      const result = await this.store.consume(key, cost);
      this.health.recovered();
      return { ...this.stateOf(result), retryAfterSeconds: null };
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) {
        this.health.fellBack(error);
        return this.fallback.consume(key, cost);
      }
      // Refused: give the units back, so a request too large to fit does not use up what smaller ones could still have.
      await this.store.reward(key, cost).catch(() => {});
      const state = this.stateOf(error, cost);
      return { ...state, retryAfterSeconds: Math.max(1, Math.ceil(error.msBeforeNext / 1000)) };
    }
  }

  async state(key: string): Promise<LimiterState> {
    try {
      const result = await this.store.get(key);
      this.health.recovered();
      return result ? this.stateOf(result) : { limit: this.limit, remaining: this.limit, resetAt: null };
    } catch (error) {
      this.health.fellBack(error);
      return this.fallback.state(key);
    }
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
