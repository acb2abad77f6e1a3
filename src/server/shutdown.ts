import { Server as NetServer, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { DatabaseLoad } from '../db/load.js';

export interface ShutdownOptions {
  app: FastifyInstance;
  /** Longest the drain may take before the process exits anyway. */
  timeoutMs: number;
  /**
   * How long connections with no request being handled (idle keep-alive sockets, silent
   * sockets, requests whose headers or body are still arriving, WebSocket peers that do
   * not answer the close frame) may stay after the signal before they are destroyed.
   */
  graceMs: number;
  /** What the database is doing, named in the line written when the drain is cut off. */
  database: { load(): DatabaseLoad };
  exit?: (code: number) => void;
}

/** What is being closed now, named when the drain is cut off (set by the onClose hooks). */
export interface ShutdownProgress {
  step: string;
}

/**
 * Graceful shutdown, owned by the process (Apollo's own signal handling is off). On the
 * first SIGTERM or SIGINT:
 * - the listener closes at once (new connections are refused), and WebSockets are sent a
 *   close frame (1001);
 * - requests keep being served on the connections already open, each answer saying
 *   `Connection: close`, so every keep-alive socket closes as soon as it has answered; a
 *   socket is never closed under a request it may already have sent (no reset race);
 * - after `graceMs`, every connection with no request being handled is destroyed (idle
 *   keep-alives, silent sockets, half-sent requests, WebSocket peers that never answered),
 *   and from then on each connection is destroyed as its last request is answered;
 * - once no connection is left, the onClose hooks close the event hub, the chain and the
 *   database, and the process exits 0.
 * A request counts as being handled once its body has arrived whole (fastify's
 * preValidation): those always finish. If the drain has not finished within `timeoutMs`
 * (a statement stuck in the database, a request that never ends), the process exits 1
 * anyway after one log line naming what it cut off: the requests still running, the step
 * it was at and the database's running and waiting statements.
 * Returns the progress record the caller's onClose hooks update.
 */
export function handleTerminationSignals({
  app,
  timeoutMs,
  graceMs,
  database,
  exit = (code) => process.exit(code),
}: ShutdownOptions): ShutdownProgress {
  const inFlight = new Map<string, { method: string; url: string; startedAt: number }>();
  // Connections, and how many requests each has being handled (body read, answer owed).
  const connections = new Map<Socket, number>();
  app.server.on('connection', (socket: Socket) => {
    connections.set(socket, 0);
    socket.once('close', () => connections.delete(socket));
  });
  let draining = false;
  let graceOver = false;
  const destroyUnbusy = () => {
    for (const [socket, handling] of connections) if (handling === 0) socket.destroy();
  };

  // The hooks every request passes are callback-style: an async hook costs a promise each.
  app.addHook('onRequest', (request, _reply, next) => {
    inFlight.set(request.id, { method: request.method, url: request.url.split('?', 1)[0]!, startedAt: performance.now() });
    next();
  });
  const handled = new WeakSet<object>();
  app.addHook('preValidation', (request, _reply, next) => {
    const socket = request.raw.socket;
    // Injected requests have no connection of their own.
    if (connections.has(socket)) {
      handled.add(request);
      connections.set(socket, connections.get(socket)! + 1);
    }
    next();
  });
  const done = (request: { id: string; raw: { socket: Socket } }) => {
    inFlight.delete(request.id);
    const socket = request.raw.socket;
    if (handled.delete(request) && connections.has(socket)) connections.set(socket, connections.get(socket)! - 1);
    if (graceOver) destroyUnbusy();
  };
  app.addHook('onResponse', (request, _reply, next) => {
    done(request);
    next();
  });
  app.addHook('onRequestAbort', (request, next) => {
    done(request);
    next();
  });
  // During the drain, answers tell clients the connection ends (no keep-alive): Node
  // closes each such socket once the answer is written.
  app.addHook('onSend', (_request, reply, payload, next) => {
    if (draining) reply.header('connection', 'close');
    next(null, payload);
  });

  const progress: ShutdownProgress = { step: 'serving' };
  const shutDown = (signal: NodeJS.Signals) => {
    draining = true;
    progress.step = 'draining requests and sockets';
    app.log.info({ signal, inFlightRequests: inFlight.size, connections: connections.size, timeoutMs, graceMs }, 'shutting down: draining');
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
    // The listener only: http.Server#close would also destroy every idle keep-alive socket at
    // once, resetting any request a client sent on one just before the signal.
    const allClosed = new Promise<void>((resolve) => NetServer.prototype.close.call(app.server, () => resolve()));
    const webSocketsClosed = app.closeWebSockets(graceMs);
    setTimeout(() => {
      graceOver = true;
      destroyUnbusy();
    }, graceMs).unref();
    Promise.all([allClosed, webSocketsClosed])
      .then(() => {
        progress.step = 'closing the server';
        return app.close();
      })
      .then(
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
