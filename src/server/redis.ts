import { Redis } from 'ioredis';

/**
 * The one Redis connection of a process, for everything the replicas count together (rate
 * limits and budgets, socket caps, the write positions of read-your-writes). Every use goes
 * through {@link SharedRedis.attempt}: when Redis cannot take a command now, the caller's
 * fallback answers from this process's memory, and the outage is reported once, not per
 * command; nothing fails because of Redis, and nothing waits for it longer than the command
 * timeout.
 */
export interface SharedRedis {
  readonly client: Redis;
  /**
   * `command`'s result; `fallback`'s when Redis is unreachable: any error `command` throws,
   * or no answer within the command timeout, counts as that, and so does an outage already
   * known (then `command` is not tried at all).
   */
  attempt<T>(command: (client: Redis) => Promise<T>, fallback: () => T | Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface SharedRedisOptions {
  /** Longest a command may go unanswered before Redis counts as unreachable. */
  commandTimeoutMs: number;
  /** Called once when an outage starts (the first failure after Redis answered). */
  onOutage(error: unknown): void;
  /** Called once when Redis answers again after an outage. */
  onRecovery?(): void;
}

/** While Redis is unreachable, how often it is asked (a PING) whether it is back; nothing else waits for it meanwhile. */
export const REDIS_PROBE_INTERVAL_MS = 500;

/**
 * The connection, and the one way to use it. A Redis that refuses connections fails a
 * command at once (no offline queue, one try per command); one that accepts them but does not
 * answer (stopped, swapping, a partition that drops packets) holds a command until ioredis's
 * `commandTimeout`, and `attempt` gives up on it at the same time (a command of several
 * round trips included). Either way Redis is then unreachable: later attempts go straight to
 * their fallback, without a round trip, while a probe every {@link REDIS_PROBE_INTERVAL_MS}
 * asks whether it is back; so a stall costs the requests under way when it starts at most
 * the timeout, and the rest nothing.
 */
export function openSharedRedis(url: string, options: SharedRedisOptions): SharedRedis {
  const { commandTimeoutMs, onOutage, onRecovery } = options;
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    lazyConnect: false,
    connectTimeout: 1000,
    commandTimeout: commandTimeoutMs,
  });
  client.on('error', () => {}); // reported through onOutage, once per outage
  // A process just started has not connected yet: its first commands wait for the connection (within
  // the command timeout, as for an answer) rather than count a Redis still connecting as an outage,
  // which would keep each replica's counts and caches apart until the next probe. The first error
  // (connection refused) ends the wait at once.
  let connecting: Promise<void> | null = new Promise<void>((resolve, reject) => {
    client.once('ready', resolve);
    client.once('error', reject);
  });
  connecting.then(
    () => (connecting = null),
    () => (connecting = null),
  );
  let down = false;
  let lastProbe = 0;
  let probing = false;
  // A connection (re)established is Redis answering: no need to wait for the next probe.
  client.on('ready', () => {
    if (!down) return;
    down = false;
    onRecovery?.();
  });

  const fail = (error: unknown) => {
    if (!down) onOutage(error);
    down = true;
    lastProbe = Date.now();
  };
  const probe = () => {
    if (probing || Date.now() - lastProbe < REDIS_PROBE_INTERVAL_MS) return;
    probing = true;
    lastProbe = Date.now();
    client.ping().then(
      () => {
        probing = false;
        if (!down) return;
        down = false;
        onRecovery?.();
      },
      () => {
        probing = false;
        lastProbe = Date.now();
      },
    );
  };

  return {
    client,
    async attempt(command, fallback) {
      if (down) {
        probe();
        return fallback();
      }
      let timer: NodeJS.Timeout | undefined;
      try {
        const timeout = new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => reject(new Error(`Redis did not answer within ${commandTimeoutMs} ms`)), commandTimeoutMs);
        });
        const answer = connecting ? connecting.then(() => command(client)) : command(client);
        return await Promise.race([answer, timeout]);
      } catch (error) {
        fail(error);
        return fallback();
      } finally {
        clearTimeout(timer);
      }
    },
    close: async () => void client.disconnect(),
  };
}
