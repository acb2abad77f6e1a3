import type { ServiceContext } from '../context.js';

/**
 * Per-request state of modules that are not part of the shared loader set: kept beside the
 * request's loaders object (created once per request, per event for subscriptions), so it
 * lives exactly as long as they do and is never shared between requests.
 */
const scopes = new WeakMap<object, Map<string, unknown>>();

export function requestScoped<T>(ctx: Pick<ServiceContext, 'loaders'>, key: string, create: () => T): T {
  let scope = scopes.get(ctx.loaders);
  if (!scope) scopes.set(ctx.loaders, (scope = new Map()));
  if (!scope.has(key)) scope.set(key, create());
  return scope.get(key) as T;
}
