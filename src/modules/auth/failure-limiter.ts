/**
 * Where failed authentications are counted, per client address. Only failures are ever
 * counted and only failures are ever refused for being over budget: a valid credential is
 * served whatever its address has sent before, so one client guessing behind a shared NAT
 * or proxy cannot lock out the signed-in users there. The in-memory FixedWindowLimiter
 * satisfies this; a store shared across replicas can stand in for it.
 */
export interface FailureLimiter {
  /**
   * Counts one failure of `key`. Returns null while `key` is within its budget, else the
   * seconds (at least 1) until its window ends, for RATE_LIMITED's Retry-After.
   */
  take(key: string): number | null | Promise<number | null>;
}
