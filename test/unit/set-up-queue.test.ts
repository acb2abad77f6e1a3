import { describe, expect, it } from 'vitest';
import { SetUpQueue } from '../../src/server/websocket/set-up-queue.js';

/** The socket of every set-up here: open throughout. */
const OPEN_SOCKET = { readyState: 1, OPEN: 1 };

/** A set-up that runs until it is told to end (or to fail), recording how many run beside it. */
function controlled(queue: SetUpQueue, log: { running: number; most: number; started: number[] }, index: number) {
  let end!: (value: number) => void;
  let fail!: (error: Error) => void;
  const done = queue.run(
    OPEN_SOCKET,
    () =>
      new Promise<number>((resolve, reject) => {
        log.started.push(index);
        log.most = Math.max(log.most, ++log.running);
        end = (value) => {
          log.running--;
          resolve(value);
        };
        fail = (error) => {
          log.running--;
          reject(error);
        };
      }),
    -1,
  );
  return { done, end: (value: number) => end(value), fail: (error: Error) => fail(error) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('SetUpQueue', () => {
  it('runs at most its limit at once, the rest in the order they came, each with its own answer', async () => {
    const queue = new SetUpQueue(3);
    const log = { running: 0, most: 0, started: [] as number[] };
    const setUps = Array.from({ length: 10 }, (_, i) => controlled(queue, log, i));
    await settle();
    expect(log.started).toEqual([0, 1, 2]);
    for (const [i, setUp] of setUps.entries()) {
      await settle();
      setUp.end(i * 10);
    }
    expect(await Promise.all(setUps.map((setUp) => setUp.done))).toEqual(Array.from({ length: 10 }, (_, i) => i * 10));
    expect(log.started).toEqual(Array.from({ length: 10 }, (_, i) => i));
    expect(log.most).toBe(3);
  });

  it('a set-up that fails gives its place to the next and its error to its caller', async () => {
    const queue = new SetUpQueue(1);
    const log = { running: 0, most: 0, started: [] as number[] };
    const [first, second] = [controlled(queue, log, 0), controlled(queue, log, 1)];
    await settle();
    expect(log.started).toEqual([0]);
    first.fail(new Error('the database is unavailable'));
    await expect(first.done).rejects.toThrow('the database is unavailable');
    await settle();
    expect(log.started).toEqual([0, 1]);
    second.end(7);
    expect(await second.done).toBe(7);
    // Nothing held: a new set-up starts at once.
    const third = controlled(queue, log, 2);
    await settle();
    expect(log.started).toEqual([0, 1, 2]);
    third.end(1);
    await third.done;
    expect(log.most).toBe(1);
  });
});
