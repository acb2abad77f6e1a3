import { Redis } from 'ioredis';

/**
 * The one Redis connection of a process, for everything the replicas count together (rate
 * limits and budgets, socket caps, the write positions of read-your-writes). Every use goes
 * through {@link SharedRedis.attempt}: when Redis cannot take a command now, the caller's
 * fallback answers from this process's memory, and the outage is reported once, not per
 * command; nothing waits for Redis and nothing fails because of it.
 */
export interface SharedRedis {
  readonly client: Redis;
  /** `command`'s result; `fallback`'s when Redis is unreachable (any error `command` throws counts as that). */
  attempt<T>(command: (client: Redis) => Promise<T>, fallback: () => T | Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export function openSharedRedis(url: string, onOutage: (error: unknown) => void): SharedRedis {
  // No offline queue and one try per command: a command Redis cannot take now fails at once,
  // so the request is answered from the fallback instead of waiting for a reconnection.
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false, connectTimeout: 1000 });
  client.on('error', () => {}); // reported through onOutage, once per outage
  let down = false;
  return {
    client,
    async attempt(command, fallback) {
      let result;
      try {
        result = await command(client);
      } catch (error) {
        if (!down) onOutage(error);
        down = true;
        return fallback();
      }
      down = false;
      return result;
    },
    close: async () => void client.disconnect(),
  };
}
