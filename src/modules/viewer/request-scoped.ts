import { getTableName } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { uniqueLoader } from '../common/loaders.js';
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

/** A by-id loader of `table` (its primary key `id`), made on first use in the request. */
export function rowByIdLoader<TRow extends Record<string, unknown>>(
  ctx: Pick<ServiceContext, 'loaders' | 'database'>,
  table: PgTable & { id: PgColumn },
) {
  return requestScoped(ctx, `byId:${getTableName(table)}`, () => uniqueLoader<TRow>(ctx.database.db, table, table.id));
}
