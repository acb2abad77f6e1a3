import { performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import type { FastifyInstance } from 'fastify';
import type { LoadSheddingConfig } from '../config.js';
import type { DatabaseLoad } from '../db/load.js';
import { AppError } from '../errors.js';
import { sendRefusal } from './pipeline/refusals.js';

/** What is under pressure, if anything. */
export type Pressure = 'event-loop' | 'memory' | 'database' | null;

/** How often the event loop and the heap are sampled. */
export const SAMPLE_INTERVAL_MS = 100;

/**
 * Watches the event loop, the heap and the database's connections. A timer meant to fire every
 * {@link SAMPLE_INTERVAL_MS} measures by how much it fired late (the loop's delay); a
 * timer that is overdue right now counts too, so a request read just after the loop was
 * blocked sees the block before any timer has had the chance to run. The last delay is
 * kept until the next sample, so pressure ends one sample after the loop runs freely.
 * The database is under pressure while a statement has waited for a connection (on
 * PGlite, for its worker) longer than `maxDatabaseWaitMs`; read at each request, so it
 * ends as soon as the queue moves.
 */
export class LoadMonitor {
  private lastSampleAt = performance.now();
  private lastDelayMs = 0;
  private heapUsedRatio = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly config: LoadSheddingConfig,
    private readonly database?: { load(): DatabaseLoad },
  ) {}

  get enabled(): boolean {
    return this.config.maxEventLoopDelayMs > 0 || this.config.maxHeapUsedRatio > 0 || this.databaseWatched;
  }

  private get databaseWatched(): boolean {
    return (this.config.maxDatabaseWaitMs ?? 0) > 0 && !!this.database;
  }

  /** How long the longest-waiting statement has waited for a connection, in milliseconds. */
  databaseWaitMs(): number {
    return this.database?.load().oldestWaitMs ?? 0;
  }

  start(): void {
    if (!this.enabled || this.timer) return;
    this.lastSampleAt = performance.now();
    this.sampleHeap();
    this.timer = setInterval(() => this.sample(), SAMPLE_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The event loop's delay now, in milliseconds. */
  eventLoopDelayMs(now = performance.now()): number {
    return Math.max(this.lastDelayMs, now - this.lastSampleAt - SAMPLE_INTERVAL_MS);
  }

  /** What is under pressure now; null when requests may be served. */
  pressure(now = performance.now()): Pressure {
    const { maxEventLoopDelayMs, maxHeapUsedRatio } = this.config;
    if (maxEventLoopDelayMs > 0 && this.timer && this.eventLoopDelayMs(now) > maxEventLoopDelayMs) return 'event-loop';
    if (maxHeapUsedRatio > 0 && this.heapUsedRatio > maxHeapUsedRatio) return 'memory';
    if (this.databaseWatched && this.databaseWaitMs() > this.config.maxDatabaseWaitMs!) return 'database';
    return null;
  }

  private sample(): void {
    const now = performance.now();
    this.lastDelayMs = Math.max(0, now - this.lastSampleAt - SAMPLE_INTERVAL_MS);
    this.lastSampleAt = now;
    this.sampleHeap();
  }

  private sampleHeap(): void {
    if (this.config.maxHeapUsedRatio <= 0) return;
    const heap = getHeapStatistics();
    this.heapUsedRatio = heap.used_heap_size / heap.heap_size_limit;
  }
}

/** Routes answered even under pressure: liveness and metrics must stay observable. */
const ALWAYS_SERVED = new Set(['/healthz', '/metrics']);

/**
 * Refuses requests with 503 and Retry-After while `monitor` reports pressure, in an
 * onRequest hook: before the body is read or parsed, so a refused request costs next to
 * nothing. /readyz is refused too (with a readiness body, `{ status: 'overloaded', pressure }`),
 * which takes the replica out of a load balancer's rotation until it recovers; /healthz
 * and /metrics are always answered. `onShed` is told of every refusal (metrics).
 */
export function registerLoadShedding(
  app: FastifyInstance,
  monitor: LoadMonitor,
  onShed?: (pressure: Exclude<Pressure, null>) => void,
): void {
  if (!monitor.enabled) return;
  app.addHook('onReady', async () => monitor.start());
  app.addHook('onClose', async () => monitor.stop());
  // Callback-style: an async hook would cost every request a promise.
  app.addHook('onRequest', (request, reply, done) => {
    const pressure = monitor.pressure();
    if (!pressure) return done();
    const path = request.url.split('?', 1)[0]!;
    if (ALWAYS_SERVED.has(path)) return done();
    onShed?.(pressure);
    const retryAfter = retryAfterSeconds(monitor, pressure);
    request.log.warn(
      { pressure, eventLoopDelayMs: Math.round(monitor.eventLoopDelayMs()), databaseWaitMs: Math.round(monitor.databaseWaitMs()) },
      'request refused: server under pressure',
    );
    // Answered here, and `done` not called: the request goes no further.
    if (path === '/readyz') {
      reply.code(503).header('retry-after', String(retryAfter)).send({ status: 'overloaded', pressure });
      return;
    }
    sendRefusal(
      reply,
      new AppError('OVERLOADED', `The server is overloaded; retry after ${retryAfter} second${retryAfter === 1 ? '' : 's'}`, {
        retryAfter,
      }),
    );
  });
}

/** How long a refused client should wait: the event loop's delay, the database queue's wait, or 5 s for memory. */
export function retryAfterSeconds(monitor: LoadMonitor, pressure: Exclude<Pressure, null>): number {
  if (pressure === 'event-loop') return Math.max(1, Math.ceil(monitor.eventLoopDelayMs() / 1000));
  if (pressure === 'database') return Math.max(1, Math.ceil(monitor.databaseWaitMs() / 1000));
  return 5;
}
