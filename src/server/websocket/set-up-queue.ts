/**
 * The set-ups a process's sockets run at once: a connection's credential check, and a
 * subscription's start (Apollo's checks, then its source's set-up read). Past the limit a
 * set-up waits for its turn, holding only what it was sent.
 *
 * Without it a burst of sockets (clients reconnecting after a deploy, thousands subscribing
 * at once) ran every set-up together: each one's objects waited on the database long enough
 * to be promoted to V8's old space, which grew to about twice the live heap and kept that
 * size, fragmented by the subscriptions that outlived them. The database sets them up no
 * faster when more wait on it: its connections are few, and the limit keeps them all busy.
 */
export class SetUpQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {}

  async run<T>(setUp: () => Promise<T>): Promise<T> {
    if (this.running < this.limit) this.running++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await setUp();
    } finally {
      // The place passes to the next in line, or is given up.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
