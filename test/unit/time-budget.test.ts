import { describe, expect, it, vi } from 'vitest';
import { StatementScope } from '../../src/db/statement-scope.js';
import { TIMED_OUT, TimeBudget } from '../../src/server/time-budget.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const never = () => new Promise<never>(() => {});

/** One timer for every operation in flight: each still runs out at its own deadline, and only then. */
describe('TimeBudget', () => {
  it('gives the work its result, or its failure, with one timer that keeps nothing alive and rests once nothing runs', async () => {
    const budget = new TimeBudget(100);
    // The budget's own timer: the process's count of timers also moves with other test files' (they share the worker).
    const timerOf = () => (budget as unknown as { timer: NodeJS.Timeout | null }).timer;
    const answered = budget.run(sleep(5).then(() => 'answer'));
    const failed = budget.run(sleep(5).then(() => Promise.reject(new Error('failed'))));
    // One timer for both operations, which never holds the process open.
    const armed = timerOf();
    expect(armed?.hasRef()).toBe(false);
    await expect(answered).resolves.toBe('answer');
    await expect(failed).rejects.toThrow('failed');
    // Left armed when they end (a busy server's next operation needs it), and the next operation takes it as it is.
    expect(timerOf()).toBe(armed);
    await expect(budget.run(Promise.resolve('next'))).resolves.toBe('next');
    expect(timerOf()).toBe(armed);
    // Past its deadline with nothing running, it rests.
    await sleep(150);
    expect(timerOf()).toBeNull();
  });

  it('runs each operation out at its own deadline, the later ones after the earlier, the finished ones never', async () => {
    // On the test's own clock: a loaded machine that stalls the event loop past a deadline must not reorder what the budget does.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const budget = new TimeBudget(80);
      const events: string[] = [];
      const settle = (name: string, work: Promise<unknown>) =>
        work.then((outcome) => events.push(`${name}: ${outcome === TIMED_OUT ? 'timed out' : String(outcome)}`));
      void settle('first', budget.run(never()));
      await vi.advanceTimersByTimeAsync(10);
      void settle('quick', budget.run(sleep(20).then(() => 'answered')));
      await vi.advanceTimersByTimeAsync(30);
      void settle('second', budget.run(never()));
      await vi.advanceTimersByTimeAsync(40);
      // At 80 ms the first ran out; the second, started 40 ms later, has not yet.
      expect(events).toEqual(['quick: answered', 'first: timed out']);
      await vi.advanceTimersByTimeAsync(39);
      expect(events).toEqual(['quick: answered', 'first: timed out']);
      await vi.advanceTimersByTimeAsync(1);
      expect(events).toEqual(['quick: answered', 'first: timed out', 'second: timed out']);
    } finally {
      vi.useRealTimers();
    }
  });

  it("cancels the scope's running statements, waits for them to end, and drops the work's late result", async () => {
    const budget = new TimeBudget(30);
    const scope = new StatementScope();
    let ended = () => {};
    let cancelled = false;
    ended = scope.track(() => {
      cancelled = true;
      // The driver tells of the cancelled statement's end a little later.
      setTimeout(() => ended(), 20);
    });
    let finish: (value: string) => void = () => {};
    const outcome = budget.run(new Promise<string>((resolve) => (finish = resolve)), scope);
    await sleep(40);
    expect([cancelled, scope.cancelled]).toEqual([true, true]);
    finish('too late');
    await expect(outcome).resolves.toBe(TIMED_OUT);
    expect(() => scope.throwIfCancelled()).toThrow(/time budget of 30 ms/);
  });

  it('with no budget, is the work itself', () => {
    const work = Promise.resolve(1);
    expect(new TimeBudget(0).run(work)).toBe(work);
  });
});
