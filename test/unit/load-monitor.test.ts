import { afterEach, describe, expect, it } from 'vitest';
import { LoadMonitor, SAMPLE_INTERVAL_MS } from '../../src/server/load-shedding.js';

describe('load monitor', () => {
  let monitor: LoadMonitor | undefined;
  afterEach(() => monitor?.stop());

  it('reports memory pressure past the heap ratio', () => {
    monitor = new LoadMonitor({ maxEventLoopDelayMs: 0, maxHeapUsedRatio: 0.000001 });
    monitor.start();
    expect(monitor.pressure()).toBe('memory');
  });

  it('reports an event loop blocked right now, before its timer could run', () => {
    monitor = new LoadMonitor({ maxEventLoopDelayMs: 100, maxHeapUsedRatio: 0 });
    monitor.start();
    const started = performance.now();
    expect(monitor.pressure(started)).toBeNull();
    expect(monitor.pressure(started + SAMPLE_INTERVAL_MS + 150)).toBe('event-loop');
  });

  it('does nothing when both signals are off', () => {
    monitor = new LoadMonitor({ maxEventLoopDelayMs: 0, maxHeapUsedRatio: 0 });
    expect(monitor.enabled).toBe(false);
    monitor.start();
    expect(monitor.pressure(performance.now() + 10_000)).toBeNull();
  });
});
