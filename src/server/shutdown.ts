import type { FastifyInstance } from 'fastify';
import type { DatabaseLoad } from '../db/load.js';

export interface ShutdownOptions {
  app: FastifyInstance;
  /** Longest the drain may take before the process exits anyway. */
  timeoutMs: number;
  /** What the database is doing, named in the line written when the drain is cut off. */
  database: { load(): DatabaseLoad };
  exit?: (code: number) => void;
}

/** What is being closed now, named when the drain is cut off (set by the onClose hooks). */
export interface ShutdownProgress {
  step: string;
}

/**
 * Graceful shutdown, owned by the process (Apollo's own signal handling is off): on the
 * first SIGTERM or SIGINT, fastify stops accepting connections, graphql-ws sockets close
 * with 1001, in-flight requests finish, then the onClose hooks close the event hub, the
 * chain and the database, and the process exits 0. If that has not finished within
 * `timeoutMs` (a statement stuck in the database, a request that never ends), the process
 * exits 1 anyway after one log line naming what it cut off: the requests still running,
 * the step it was at and the database's running and waiting statements.
 * Returns the progress record the caller's onClose hooks update.
 */
export function handleTerminationSignals({ app, timeoutMs, database, exit = (code) => process.exit(code) }: ShutdownOptions): ShutdownProgress {
  const inFlight = new Map<string, { method: string; url: string; startedAt: number }>();
  app.addHook('onRequest', async (request) => {
    inFlight.set(request.id, { method: request.method, url: request.url.split('?', 1)[0]!, startedAt: performance.now() });
  });
  let draining = false;
  const done = async (request: { id: string }) => {
    inFlight.delete(request.id);
    // The server closes only once every connection has: one whose request was in flight
    // when the drain began is closed as soon as it has nothing left to send.
    if (draining) app.server.closeIdleConnections();
  };
  app.addHook('onResponse', done);
  app.addHook('onRequestAbort', done);
  // During the drain, answers tell clients the connection ends (no keep-alive).
  app.addHook('onSend', async (_request, reply, payload) => {
    if (draining) reply.header('connection', 'close');
    return payload;
  });

  const progress: ShutdownProgress = { step: 'serving' };
  const shutDown = (signal: NodeJS.Signals) => {
    draining = true;
    progress.step = 'draining requests and sockets';
    app.log.info({ signal, inFlightRequests: inFlight.size, timeoutMs }, 'shutting down: draining');
    const deadline = setTimeout(() => {
      const now = performance.now();
      const requests = [...inFlight.entries()].map(([id, r]) => `${r.method} ${r.url} (${id}, ${Math.round(now - r.startedAt)} ms)`);
      const load = database.load();
      app.log.error(
        { signal, step: progress.step, requests, database: load },
        `shutdown cut off after ${timeoutMs} ms while ${progress.step}: ${requests.length} request(s) still running` +
          `${requests.length ? ` [${requests.join(', ')}]` : ''}; database: ${load.busy} statement(s) running, ${load.waiting} waiting`,
      );
      exit(1);
    }, timeoutMs);
    app.close().then(
      () => {
        clearTimeout(deadline);
        app.log.info({ signal }, 'shut down cleanly');
        exit(0);
      },
      (error: unknown) => {
        clearTimeout(deadline);
        app.log.error({ err: error, step: progress.step }, 'shutdown failed');
        exit(1);
      },
    );
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, shutDown);
  return progress;
}
