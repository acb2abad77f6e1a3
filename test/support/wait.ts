import type { FastifyInstance } from 'fastify';
import { metricSample } from './harness.js';

/**
 * Waits until `condition` holds, checking every 10 ms; fails after `timeoutMs` naming
 * `what`. Tests wait on the condition they need (a row written, a counter reached, a
 * socket open), never for a fixed time.
 */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A server in this process, or the http:// base URL of one in another process. */
export type Server = FastifyInstance | string;

/** Open GraphQL subscriptions of `server`, as its /metrics gauge counts them. */
export async function openSubscriptions(server: Server): Promise<number> {
  const body =
    typeof server === 'string' ? await (await fetch(`${server}/metrics`)).text() : (await server.inject({ url: '/metrics' })).body;
  return metricSample(body, 'poolgraph_subscriptions_open');
}

/**
 * Resolves once `server` counts exactly `expected` open subscriptions. The gauge moves after
 * a subscription's source follows the event hub, so an event published after this resolves
 * reaches every one of them: the readiness signal to wait on before publishing.
 */
export async function subscriptionsOpen(server: Server, expected: number, timeoutMs = 10_000): Promise<void> {
  await until(async () => (await openSubscriptions(server)) === expected, timeoutMs, `${expected} open subscriptions`);
}
