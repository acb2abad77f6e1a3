/** The sign-in limits use the one limiter of the codebase; this name is kept for the auth call sites. */
export { FixedWindowLimiter as WindowRateLimiter } from '../common/fixed-window.js';
