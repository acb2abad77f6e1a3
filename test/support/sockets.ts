import { type Client, createClient, type FormattedExecutionResult } from 'graphql-ws';
import WebSocket from 'ws';
import * as tables from '../../schema/index.js';
import type { Database } from '../../src/db/client.js';
import { EventHub } from '../../src/modules/events/event-hub.js';
import type { TestApp } from './harness.js';

/** Serves the test app on a real port (graphql-ws needs a socket), once; returns its ws:// URL. */
export async function listen(t: Pick<TestApp, 'app'>): Promise<string> {
  const address = t.app.server.listening ? t.app.listeningOrigin : await t.app.listen({ host: '127.0.0.1', port: 0 });
  return `${address.replace(/^http/, 'ws')}/graphql`;
}

export interface SocketClient {
  client: Client;
  /** Resolves when the server acknowledged connection_init; rejects with the close event when refused. */
  connected: Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  dispose(): Promise<void>;
}

/** A graphql-ws client (the real package) over `ws`, authenticating with `connectionParams`. */
export function socketClient(url: string, connectionParams: Record<string, unknown> = {}): SocketClient {
  let connected!: () => void;
  let refused!: (error: unknown) => void;
  let closed!: (event: { code: number; reason: string }) => void;
  const connectedPromise = new Promise<void>((resolve, reject) => {
    connected = resolve;
    refused = reject;
  });
  const closedPromise = new Promise<{ code: number; reason: string }>((resolve) => (closed = resolve));
  const client = createClient({
    url,
    webSocketImpl: WebSocket,
    connectionParams,
    lazy: false,
    onNonLazyError: () => {},
    retryAttempts: 0,
    // Errors are asserted by the tests, not retried.
    shouldRetry: () => false,
    on: {
      connected: () => connected(),
      closed: (event) => {
        const { code, reason } = event as { code: number; reason: string };
        closed({ code, reason: String(reason) });
        refused({ code, reason });
      },
      error: (error) => refused(error),
    },
  });
  connectedPromise.catch(() => {});
  return { client, connected: connectedPromise, closed: closedPromise, dispose: () => client.dispose() as Promise<void> };
}

/** The results of one subscription as they arrive, with a way to wait for the next ones. */
export class Subscription<T = any> {
  readonly results: Array<FormattedExecutionResult<T, unknown>> = [];
  completed = false;
  error: unknown = null;
  private waiters: Array<() => void> = [];
  readonly unsubscribe: () => void;

  constructor(
    client: Client,
    query: string,
    variables: Record<string, unknown> = {},
    extra: { extensions?: Record<string, unknown>; operationName?: string } = {},
  ) {
    this.unsubscribe = client.subscribe<T>(
      { query, variables, ...extra },
      {
        next: (result) => {
          this.results.push(result);
          this.wake();
        },
        error: (error) => {
          this.error = error;
          this.wake();
        },
        complete: () => {
          this.completed = true;
          this.wake();
        },
      },
    );
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /**
   * Waits until `count` results have arrived; rejects after `timeoutMs`, or at once when the subscription ends with fewer,
   * saying how it ended (so a test fails on that, not on indexing past the results).
   */
  async waitFor(count: number, timeoutMs = 5000): Promise<Array<FormattedExecutionResult<T, unknown>>> {
    const deadline = Date.now() + timeoutMs;
    while (this.results.length < count) {
      if (this.completed || this.error) {
        const ending = this.error ? `ended with an error (${describeError(this.error)})` : 'completed';
        throw new Error(`expected ${count} results, the subscription ${ending} after ${this.results.length}`);
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${count} results within ${timeoutMs} ms, got ${this.results.length}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.results;
  }

  /** Waits for the subscription to end by completion or error. */
  async waitForEnd(timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.completed && !this.error) {
      if (Date.now() > deadline) throw new Error('the subscription did not end');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/**
 * Writes a REWARD_CLAIMED notification titled `title` for `userId` and publishes it, as a
 * service would. It bounds a wait for something that must NOT reach a user's socket: the
 * marker is published after it, so when the marker has arrived, what was published before
 * had its turn first (and a notification whose row was never written cannot arrive at all).
 * Sound for notifications their event carries (as this marker's does); a POOL_CREATED one is
 * read by its pool's id before it is sent, so the marker may overtake it: a test proving none
 * was sent checks the rows too.
 */
export async function publishMarker(database: Database, userId: string, title: string): Promise<string> {
  const [row] = await database.db
    .insert(tables.notifications)
    .values({ userId, type: 'REWARD_CLAIMED', title, message: 'marker', data: {} })
    .returning();
  await new EventHub(database).publish([{ type: 'notificationsCreated', notifications: [{ userId, id: row!.id }] }]);
  return row!.id;
}

/** A socket error as graphql-ws hands it over: a close event (its code and reason), an Error, or GraphQL errors. */
function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  const close = error as { code?: unknown; reason?: unknown };
  if (typeof close?.code === 'number') return `close ${close.code}${close.reason ? ` ${String(close.reason)}` : ''}`;
  return JSON.stringify(error);
}
