import type postgres from 'postgres';
import { postgresClient } from './hosts.js';

/** The Postgres channel every replica of poolgraph listens on. */
export const EVENT_CHANNEL = 'poolgraph_events';

export interface ChannelListener {
  message(message: string): void;
  /** The listener lost its connection and listens again: messages sent meanwhile were missed. */
  resumed?(): void;
}

/**
 * Wake-ups between the processes that share a database, after an event outbox write
 * (event-outbox.ts). Postgres: the write's own NOTIFY, delivered when its transaction
 * commits, and LISTEN on one dedicated connection per process, re-established by itself
 * when lost. PGlite: the process is the only one, so {@link written} wakes its listeners.
 * Messages are hints only: listeners read the outbox, so a lost one loses nothing.
 */
export interface EventChannel {
  /** Called after an outbox write: wakes this process's listeners where the database does not (PGlite). */
  written(): void;
  /** Starts listening; resolves when messages are being received. The function it gives stops. */
  listen(listener: ChannelListener): Promise<() => Promise<void>>;
  /** True while the listener's connection is up (always, in process). */
  readonly listening: boolean;
}

export function inProcessEventChannel(): EventChannel {
  const listeners = new Set<ChannelListener>();
  return {
    listening: true,
    written() {
      // A later tick, never inside the writer's stack. A write inside a transaction is read
      // after its commit: PGlite's one session runs the reader's statement once the
      // transaction has let go of it (pglite-client.ts).
      setImmediate(() => {
        for (const listener of listeners) listener.message('');
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

export function postgresEventChannel(options: { url: string; applicationName: string; connectTimeoutSeconds: number }): EventChannel {
  // One LISTEN connection per database handle, however many listeners (apps) share it.
  const listeners = new Set<ChannelListener>();
  let connection: { sql: postgres.Sql; ready: Promise<void>; stop(): Promise<void> } | null = null;
  let listening = false;

  const open = () => {
    let stopped = false;
    let attempt = 0;
    let retryTimer: NodeJS.Timeout | undefined;
    // A client of its own, so LISTEN holds one connection and its loss is seen here.
    // `onnotify` is the hook postgres.js's own `listen` is built on; its `listen` gives up
    // when re-listening after a lost connection fails, hence this loop instead.
    const sql = postgresClient(options.url, {
      max: 1,
      idle_timeout: 0,
      max_lifetime: 0,
      fetch_types: false,
      connect_timeout: options.connectTimeoutSeconds,
      onnotice: () => {},
      connection: { application_name: `${options.applicationName}:listener` },
      onnotify: (_channel: string, payload: string) => {
        for (const listener of listeners) listener.message(payload);
      },
      onclose: () => {
        if (stopped || !listening) return;
        listening = false;
        scheduleRelisten();
      },
    } as postgres.Options<{}> & { onnotify(channel: string, payload: string): void });
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
            for (const listener of listeners) listener.resumed?.();
          },
          () => scheduleRelisten(),
        );
      }, delay);
    };
    const ready = subscribe().then(() => {
      listening = true;
    });
    return {
      sql,
      ready,
      async stop() {
        stopped = true;
        listening = false;
        clearTimeout(retryTimer);
        await sql.end({ timeout: 2 });
      },
    };
  };

  return {
    get listening() {
      return listening;
    },
    // The outbox write sends its NOTIFY itself, in its transaction.
    written() {},
    async listen(listener) {
      listeners.add(listener);
      if (!connection) connection = open();
      const current = connection;
      try {
        await current.ready;
      } catch (error) {
        listeners.delete(listener);
        if (connection === current) {
          connection = null;
          await current.stop();
        }
        throw error;
      }
      return async () => {
        listeners.delete(listener);
        if (listeners.size === 0 && connection === current) {
          connection = null;
          await current.stop();
        }
      };
    },
  };
}
