import type { ApolloServerPlugin } from '@apollo/server';
import responseCachePlugin from '@apollo/server-plugin-response-cache';
import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import type { GraphQLContext } from './context.js';
import type { SharedRedis } from './redis.js';

/**
 * Apollo's response cache (RESPONSE_CACHE=true): an answer whose cache policy allows it
 * (the cache hints, modules/common/cache-hints.ts) is kept for its maxAge and served again
 * without running anything. PUBLIC answers are shared by everyone; a PRIVATE one would be
 * kept per signed-in user (its session id is the user's id), but every hint on the
 * viewer's or a user's private data says maxAge 0: such answers are never kept. In Redis
 * when REDIS_URL is set, so the replicas share it (while Redis is unreachable nothing is
 * served from it nor kept); in this process's memory (Apollo's own cache) otherwise.
 */
export function responseCache(redis: { shared: SharedRedis; keyPrefix: string } | null): ApolloServerPlugin<GraphQLContext> {
  return responseCachePlugin<GraphQLContext>({
    ...(redis ? { cache: new RedisKeyValueCache(redis.shared, `${redis.keyPrefix}:response-cache:`) } : {}),
    sessionId: async ({ contextValue }) => contextValue.viewer?.userId ?? null,
    // A REST route's operation is answered in the REST form (read/answer-form.ts): never served to /graphql, nor GraphQL's to REST.
    extraCacheKeyData: async ({ contextValue }) => contextValue.answerForm,
  });
}

/** Apollo's KeyValueCache over the replicas' shared Redis: an unreachable Redis is a miss, and a write it cannot take is dropped. */
export class RedisKeyValueCache implements KeyValueCache<string> {
  constructor(
    private readonly redis: SharedRedis,
    private readonly prefix: string,
  ) {}

  async get(key: string): Promise<string | undefined> {
    const value = await this.redis.attempt(
      (client) => client.get(this.prefix + key),
      () => null,
    );
    return value ?? undefined;
  }

  async set(key: string, value: string, options?: { ttl?: number | null }): Promise<void> {
    const ttl = options?.ttl;
    await this.redis.attempt(
      (client) => (ttl ? client.set(this.prefix + key, value, 'EX', Math.max(1, Math.ceil(ttl))) : client.set(this.prefix + key, value)),
      () => null,
    );
  }

  async delete(key: string): Promise<boolean> {
    return this.redis.attempt(
      async (client) => (await client.del(this.prefix + key)) > 0,
      () => false,
    );
  }
}
