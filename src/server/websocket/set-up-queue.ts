/**
 * The set-ups a process's sockets run at once: a connection's credential check, and a
 * subscription's start (Apollo's checks, then its source's set-up read). Past the limit a
 * set-up waits for its turn, holding only what it was sent.
 *
 * A set-up whose socket closed while it waited is not run when its turn comes: nothing would
 * hear its answer (a client that gave up during a reconnect storm).
 *
 * Without it a burst of sockets (clients reconnecting after a deploy, thousands subscribing
 * at once) ran every set-up together: each one's objects waited on the database long enough
 * to be promoted to V8's old space, which grew to about twice the live heap and kept that
 * size, fragmented by the subscriptions that outlived them. The database sets them up no
 * faster when more wait on it: its connections are few, and the limit keeps them all busy.
 */
/** What the queue reads of a socket: whether it is still open. */
interface Socket {
  readonly readyState: number;
  readonly OPEN: number;
}

export class SetUpQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {}

  /** `setUp` of `socket` in its turn; `ifClosed` when the socket closed before it. */
  async run<T>(socket: Socket, setUp: () => Promise<T>, ifClosed: T): Promise<T> {
    if (this.running < this.limit) this.running++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return socket.readyState === socket.OPEN ? await setUp() : ifClosed;
    } finally {
      // The place passes to the next in line, or is given up.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
