import { type StatementScope, statementCancelledError } from './statement-scope.js';

/**
 * The read statements of operations whose answer is large (StatementScope.large), one at a
 * time per process. Such a statement writes megabytes of JSON and holds a core of Postgres
 * for its whole run: two clients looping the largest read allowed had both cores of a small
 * machine, and every other request waited for a CPU (`/healthz` p99 28 ms, 13 ms with the
 * two queued here, at about the same reads per second). Smaller reads never wait here.
 * Postgres only: PGlite runs one statement at a time already.
 */
export class LargeReadQueue {
  private busy = false;
  private readonly waiting: Array<() => void> = [];

  async run<T>(scope: StatementScope, statement: () => Promise<T>): Promise<T> {
    if (this.busy) await this.turnOf(scope);
    else this.busy = true;
    try {
      return await statement();
    } finally {
      this.next();
    }
  }

  /** Resolves when it is this statement's turn; rejects as a cancelled statement if its scope is cancelled first. */
  private turnOf(scope: StatementScope): Promise<void> {
    return new Promise((resolve, reject) => {
      const take = () => {
        stopWatching();
        resolve();
      };
      const stopWatching = scope.watch(() => {
        const at = this.waiting.indexOf(take);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(statementCancelledError('The statement was cancelled: its request ran out of time while it waited for another large read'));
      });
      if (!scope.cancelled) this.waiting.push(take);
    });
  }

  private next(): void {
    const take = this.waiting.shift();
    if (take) take();
    else this.busy = false;
  }
}
