import { type IncomingMessage, STATUS_CODES } from 'node:http';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import cors from '@fastify/cors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HttpConfig } from '../config.js';
import { AppError } from '../errors.js';
import { formatError } from './pipeline/format-error.js';
import { sendRefusal } from './pipeline/refusals.js';

/** The host name of a Host header, port and IPv6 brackets aside, lower case. */
export function hostNameOf(host: string | undefined): string {
  if (!host) return '';
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d+$/, '');
  return name.toLowerCase();
}

/** Whether `hostHeader` names a host this server serves (an empty list serves any). */
export function isAllowedHost(hostHeader: string | undefined, allowedHosts: readonly string[]): boolean {
  return allowedHosts.length === 0 || allowedHosts.includes(hostNameOf(hostHeader));
}

/**
 * Whether a browser page on `origin` may call with credentials: the server's own origin
 * (same Host), or one ALLOWED_ORIGINS lists; an entry may give `*` as its port.
 */
export function isAllowedOrigin(origin: string, allowedOrigins: readonly string[], ownHost?: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (ownHost && url.host === ownHost.toLowerCase()) return true;
  return allowedOrigins.some((entry) => {
    if (entry === origin) return true;
    if (!entry.endsWith(':*')) return false;
    return `${url.protocol}//${url.hostname}` === entry.slice(0, -2) || `${url.protocol}//[${url.hostname}]` === entry.slice(0, -2);
  });
}

/**
 * The edge of the server, before any route: the Host check (DNS rebinding: a page whose
 * name resolves to this server is refused, HOST_NOT_ALLOWED), and CORS from the one
 * allowlist (credentials only for listed origins; preflights answered for every route;
 * simple cross-site requests still meet CSRF prevention at /graphql), and connections
 * closed after a request refused before its body was read.
 */
export async function registerEdge(
  app: FastifyInstance,
  config: Pick<HttpConfig, 'allowedHosts' | 'allowedOrigins' | 'bodyTimeoutMs'>,
): Promise<void> {
  // Hooks every request passes are callback-style: an async hook costs a promise and a turn of the queue.
  app.addHook('onRequest', (request, reply, done) => {
    if (isAllowedHost(request.headers.host, config.allowedHosts)) return done();
    sendRefusal(reply, new AppError('HOST_NOT_ALLOWED', `This server does not serve the host "${hostNameOf(request.headers.host)}"`));
  });
  if (config.bodyTimeoutMs > 0) app.addHook('onRequest', cutSlowBodies(config.bodyTimeoutMs));
  closeAfterUnreadBodies(app);
  await app.register(cors, {
    origin: (origin, callback) => callback(null, origin !== undefined && isAllowedOrigin(origin, config.allowedOrigins)),
    credentials: true,
    methods: ['GET', 'POST'],
    allowedHeaders: ['content-type', 'authorization', 'x-api-key', 'apollo-require-preflight', 'x-apollo-operation-name', 'x-request-id'],
    exposedHeaders: ['retry-after', 'x-request-id', 'ratelimit', 'ratelimit-policy', 'x-total-count', 'x-next-cursor', 'link'],
    maxAge: 600,
  });
}

/**
 * Slow bodies: a request whose body has not arrived whole within `timeoutMs` is answered
 * 408 and its connection closed, so a body sent a byte at a time holds nothing. (Node's own
 * requestTimeout does not apply once a request is being handled.) Only a request whose
 * body is still arriving gets a timer.
 */
function cutSlowBodies(timeoutMs: number) {
  return (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    done();
    const raw = request.raw;
    // Injected requests (tests) have no socket to cut.
    if (raw.complete || !(raw.socket instanceof Socket)) return;
    const timer = setTimeout(() => {
      if (raw.complete) return;
      request.log.warn({ timeoutMs }, 'request body not received in time; connection closed');
      refuseOnSocket(raw.socket, new AppError('REQUEST_TIMEOUT', `The request body did not arrive within ${timeoutMs} ms`, { timeoutMs }));
    }, timeoutMs);
    timer.unref();
    raw.once('end', () => clearTimeout(timer));
    raw.once('close', () => clearTimeout(timer));
  };
}

/** Answers `error` on a raw socket, as a whole HTTP response with its catalogue status and body, and closes the connection. */
function refuseOnSocket(socket: Duplex, error: AppError): void {
  const { status } = error;
  const body = JSON.stringify({ errors: [formatError(error)] });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  if (socket instanceof Socket) socket.destroySoon();
}

/**
 * Node's own refusals, made before any route sees the request (a lying or doubled
 * Content-Length, a malformed request line, headers over the size limit, a request not
 * received in time), answered in the catalogue's shape with a code, like every other
 * refusal; fastify's `clientErrorHandler`.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // A reset connection has no one left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    refuseOnSocket(socket, new AppError('HEADERS_TOO_LARGE', 'The request headers exceed the size limit'));
  } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    refuseOnSocket(socket, new AppError('REQUEST_TIMEOUT', 'The request did not arrive in time'));
  } else {
    refuseOnSocket(socket, new AppError('BAD_REQUEST', `The HTTP request is malformed (${error.code ?? 'unreadable'})`));
  }
}

/**
 * A request answered before its body was read whole (refused for its size, its type, its
 * credentials...) ends its connection: otherwise Node keeps the socket to read and discard
 * the rest, for as long as a slow client takes to send it.
 */
function closeAfterUnreadBodies(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!request.raw.complete && request.raw.socket instanceof Socket) reply.header('connection', 'close');
    done(null, payload);
  });
}

/** The upgrade's refusal at the edge, if any: a host not served. */
export function refuseUpgradeAtEdge(
  request: IncomingMessage,
  config: Pick<HttpConfig, 'allowedHosts'>,
): { status: number; reason: string } | null {
  return isAllowedHost(request.headers.host, config.allowedHosts) ? null : { status: 403, reason: 'Forbidden' };
}
