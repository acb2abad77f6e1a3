import postgres from 'postgres';

/** The Postgres channel every replica of poolgraph listens on. */
export const EVENT_CHANNEL = 'poolgraph_events';

export interface ChannelListener {
  message(message: string): void;
  /** The listener lost its connection and listens again: messages sent meanwhile were missed. */
  resumed?(): void;
}

/**
 * Messages between the processes that share a database. Postgres: NOTIFY through the pool,
 * and LISTEN on one dedicated connection per process, re-established by itself when lost.
 * PGlite: the process is the only one, so messages go straight to its listeners.
 */
export interface EventChannel {
  notify(message: string): Promise<void>;
  /** Starts listening; resolves when messages are being received. The function it gives stops. */
  listen(listener: ChannelListener): Promise<() => Promise<void>>;
  /** True while the listener's connection is up (always, in process). */
  readonly listening: boolean;
}

export function inProcessEventChannel(): EventChannel {
  const listeners = new Set<ChannelListener>();
  return {
    listening: true,
    async notify(message) {
      // Delivered on a later tick, like a NOTIFY after commit: never inside the publisher's stack.
      setImmediate(() => {
        for (const listener of listeners) listener.message(message);
      });
    },
    async listen(listener) {
      listeners.add(listener);
      return async () => {
        listeners.delete(listener);
      };
    },
  };
}

/** Backoff between attempts to listen again after the connection was lost. */
const RETRY_DELAYS_MS = [50, 100, 250, 500, 1000, 2000];

export function postgresEventChannel(
  client: postgres.Sql,
  options: { url: string; applicationName: string; connectTimeoutSeconds: number },
): EventChannel {
  let listenerClient: postgres.Sql | null = null;
  let listening = false;
  return {
    get listening() {
      return listening;
    },
    async notify(message) {
      await client`SELECT pg_notify(${EVENT_CHANNEL}, ${message})`;
    },
    async listen(listener) {
      if (listenerClient) throw new Error('this process already listens on the event channel');
      let stopped = false;
      let attempt = 0;
      let retryTimer: NodeJS.Timeout | undefined;
      // A client of its own, so LISTEN holds one connection and its loss is seen here.
      // `onnotify` is the hook postgres.js's own `listen` is built on; its `listen` gives up
      // when re-listening after a lost connection fails, hence this loop instead.
      const sql = postgres(options.url, {
        max: 1,
        idle_timeout: 0,
        max_lifetime: 0,
        fetch_types: false,
        connect_timeout: options.connectTimeoutSeconds,
        onnotice: () => {},
        connection: { application_name: `${options.applicationName}:listener` },
        onnotify: (_channel: string, payload: string) => listener.message(payload),
        onclose: () => {
          if (stopped || !listening) return;
          listening = false;
          scheduleRelisten();
        },
      } as postgres.Options<{}> & { onnotify(channel: string, payload: string): void });
      listenerClient = sql;
      const subscribe = () => sql.unsafe(`LISTEN ${EVENT_CHANNEL}`);
      const scheduleRelisten = () => {
        const delay = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)]!;
        attempt++;
        retryTimer = setTimeout(() => {
          if (stopped) return;
          subscribe().then(
            () => {
              attempt = 0;
              listening = true;
              listener.resumed?.();
            },
            () => scheduleRelisten(),
          );
        }, delay);
      };
      await subscribe();
      listening = true;
      return async () => {
        stopped = true;
        listening = false;
        clearTimeout(retryTimer);
        listenerClient = null;
        await sql.end({ timeout: 2 });
      };
    },
  };
}
