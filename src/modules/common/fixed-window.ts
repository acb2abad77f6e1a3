/**
 * The in-memory fixed-window budget per key (per process: N replicas allow N times the
 * budget); the services reach it through the Limiter interface (limiter.ts), which shares
 * budgets between replicas in Redis when configured. `take` grants all the units asked for or none, so a request
 * too large to fit does not use up what smaller ones could still have. Used for the
 * operation budgets (src/server/rate-limit.ts), failed credentials (src/server/credentials.ts)
 * and sign-in attempts (auth).
 */
export class FixedWindowLimiter {
  private readonly windows = new Map<string, { startedAt: number; used: number }>();

  constructor(
    /** Units allowed per key and window. */
    readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes `units` for `key`; returns null when granted, else the seconds (at least 1) until the window resets. */
  take(key: string, units = 1): number | null {
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
    return this.wait(window, now);
  }

  /** Returns `units` to `key`'s current window (none to a window that has ended). */
  giveBack(key: string, units: number): void {
    const window = this.windows.get(key);
    if (window && this.now() - window.startedAt < this.windowMs) window.used = Math.max(0, window.used - units);
  }

  /** Units `key` has used in its current window, and when that window ends (null: none open). Takes nothing. */
  used(key: string): { used: number; resetAt: number | null } {
    const now = this.now();
    const window = this.windows.get(key);
    if (!window || now - window.startedAt >= this.windowMs) return { used: 0, resetAt: null };
    return { used: window.used, resetAt: window.startedAt + this.windowMs };
  }

  private wait(window: { startedAt: number }, now: number): number {
    return Math.max(1, Math.ceil((window.startedAt + this.windowMs - now) / 1000));
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (now - window.startedAt >= this.windowMs) this.windows.delete(key);
  }
}
