import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';

/**
 * A client as a real one would be written: it follows a pool, and when its socket closes
 * (its replica died or drained) it connects again through the balancer and subscribes
 * with the last event sequence it received.
 */
export class ResumingSubscriber {
  readonly sequences: number[] = [];
  reconnectAttempts = 0;
  failure: unknown = null;
  private client: Client | null = null;
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly poolId: string,
    /** Where it starts: the event sequence read with the state it shows. */
    private readonly from: number,
  ) {
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    void this.client?.dispose();
  }

  private connect(): void {
    const client = createClient({ url: this.url, webSocketImpl: WebSocket, lazy: false, retryAttempts: 0, onNonLazyError: () => {} });
    this.client = client;
    const last = this.sequences.at(-1) ?? this.from;
    let gone = false;
    const again = () => {
      if (gone || this.stopped) return;
      gone = true;
      this.reconnectAttempts++;
      void client.dispose();
      setTimeout(() => this.connect(), 100);
    };
    client.subscribe(
      {
        query: `subscription($p: ID!, $after: String) { poolUpdated(poolId: $p, afterSequence: $after) { id } }`,
        variables: { p: this.poolId, after: String(last) },
      },
      {
        next: (result) => {
          if (result.errors) this.failure = result.errors;
          else this.sequences.push(Number((result.extensions as { eventSequence?: string }).eventSequence));
        },
        // The socket closed (the replica went), or never opened (the balancer had not noticed yet).
        error: again,
        complete: again,
      },
    );
  }
}
