/**
 * GraphQL over WebSocket (graphql-ws) at /graphql: the upgrade's own refusals, credentials
 * checked at connection_init and watched for the socket's life, queries and mutations
 * through Apollo's pipeline, subscriptions against the event hub under their caps, and the
 * sockets' graceful close.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApolloServer } from '@apollo/server';
import {
  type ExecutionArgs,
  type ExecutionResult,
  type FormattedExecutionResult,
  GraphQLError,
  type GraphQLSchema,
  type OperationDefinitionNode,
  parse,
} from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { type WebSocket, WebSocketServer } from 'ws';
import type { Config } from '../../config.js';
import { isConnectionError } from '../../db/client.js';
import { AppError } from '../../errors.js';
import { hasCredentials } from '../../modules/auth/auth.service.js';
import type { Viewer } from '../../modules/auth/viewer.js';
import type { Limiter } from '../../modules/common/limiter.js';
import type { CapLease, ConnectionCapFactory } from '../connection-caps.js';
import { authenticateClient, type ContextDependencies, createContext, type GraphQLContext } from '../context.js';
import { newOperationRecord } from '../logging.js';
import { socketSubscriptions } from '../pipeline/apollo.js';
import { formatError } from '../pipeline/format-error.js';
import { RenderedData } from '../pipeline/planned-read.js';
import type { TrustedDocumentStore } from '../pipeline/persisted.js';
import { clientAddressOf, socketCredentials, watchCredentials } from './credentials.js';
import { SetUpQueue } from './set-up-queue.js';
import { nextFramePrefix, scopedSubscribe, type SubscriptionTarget } from './subscription.js';

/** WebSocket close code 1001: the server is going away (shutting down). */
const GOING_AWAY = 1001;
/** graphql-ws's close code for refused credentials; also used when they end mid-connection. */
const FORBIDDEN = 4403;
/** Refused credentials from an address over its failure budget (the 4xxx range is the application's; 429 as over HTTP). */
const TOO_MANY_FAILURES = 4429;
/** WebSocket close code 1008: policy violation (a peer flooding pings). */
const POLICY_VIOLATION = 1008;
/**
 * Pings a peer may send per window (WebSocket ping frames and graphql-ws `ping` messages
 * together): each costs the server an answer, and clients ping every few seconds at most.
 */
const MAX_PINGS_PER_WINDOW = 30;
const PING_WINDOW_MS = 10_000;
/** WebSocket close code 1013: try again later. */
const TRY_AGAIN_LATER = 1013;

export interface GraphQLWebSocketOptions {
  server: Server;
  path: string;
  schema: GraphQLSchema;
  /** Answers queries and mutations as it does over HTTP, and takes, parses, validates and checks subscriptions. */
  apollo: ApolloServer<GraphQLContext>;
  /** With trusted documents: refuses any other before Apollo parses it, as over HTTP. */
  trusted: TrustedDocumentStore | null;
  /** Messages and stack traces of unexpected errors in responses (development only). */
  exposeInternals: boolean;
  deps: ContextDependencies;
  config: Pick<Config, 'http'>;
  /** Failed authentications per client address, shared with HTTP. */
  authFailures: Limiter;
  /** Where the caps on open sockets and subscriptions per client address are counted (in memory, or across replicas in Redis). */
  caps: ConnectionCapFactory;
  /** Called as subscriptions open (+1) and close (-1). */
  onSubscriptionCount?: (delta: 1 | -1) => void;
  /** Whether to refuse a new socket now (load shedding, origin, caps): the HTTP status, headers and reason. */
  refuseUpgrade?: (request: IncomingMessage) => { status: number; reason: string; headers?: Record<string, string> } | null;
  /** Whether a cookie-authenticated socket may come from this upgrade's Origin. */
  allowCookieOrigin?: (request: IncomingMessage) => boolean;
}

interface SocketState {
  viewer: Viewer | null;
  clientAddress: string;
  socketId: number;
  /** Stops watching for the end of the socket's credentials. */
  ends: () => void;
}

let sockets = 0;

/** What setting or clearing cookies does on a socket (one function for all of them). */
const noCookies = () => {};

/**
 * graphql-ws (protocol graphql-transport-ws) on the HTTP server's port and path. The
 * caller authenticates in connection_init (`authorization: "Bearer <token>"` or
 * `x-api-key`, else the browser's access cookie); bad credentials close with 4403. An
 * operation's document may come by hash (trusted or persisted, as over HTTP). Every
 * operation goes through Apollo Server's executeOperation, as REST's do (persisted queries,
 * the parse and validation cache, limits, the checks, formatting): a query or mutation is
 * answered there (within the time budget); a subscription comes back resolved
 * (socketSubscriptions), and each of its events runs with a context of its own. Errors are
 * formatted by the one formatter.
 */
export function attachGraphQLWebSocket(options: GraphQLWebSocketOptions) {
  const { deps, config, apollo, trusted } = options;
  const wss = new WebSocketServer({ noServer: true, maxPayload: config.http.bodyLimitBytes });
  const socketCap = config.http.maxSocketsPerClient > 0 ? options.caps('sockets', config.http.maxSocketsPerClient) : null;
  const subscriptionCap =
    config.http.maxSubscriptionsPerClient > 0 ? options.caps('subscriptions', config.http.maxSubscriptionsPerClient) : null;
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node takes its own error listener off an upgraded socket, and ws adds one only in
    // handleUpgrade: a peer resetting while the socket cap is asked (Redis, asynchronous)
    // would be an unhandled 'error' that ends the process. The socket is destroyed either way.
    // A function of the module, not a closure here: it stays on the socket for its life, and a
    // closure would keep this scope (the upgrade request, its headers and its head) with it.
    socket.on('error', destroyOnError);
    const path = (request.url ?? '').split('?')[0];
    if (path !== options.path) {
      socket.destroy();
      return;
    }
    const refused = options.refuseUpgrade?.(request);
    if (refused) return refuseUpgrade(socket, refused);
    const clientAddress = clientAddressOf(request, config.http.trustProxy);
    (socketCap ? socketCap.acquire(clientAddress) : Promise.resolve(UNCAPPED)).then(
      (place) => {
        if (!place) return refuseUpgrade(socket, { status: 429, reason: 'Too Many Requests', headers: { 'retry-after': '60' } });
        // The place is the socket's until its connection closes, however the upgrade ends.
        releaseOnClose(socket, place);
        // The server may have begun closing while the place was taken.
        if (closing) socket.destroy();
        if (socket.destroyed) return;
        wss.handleUpgrade(request, socket, head, (ws) => {
          limitPings(ws);
          wss.emit('connection', ws, request);
        });
      },
      () => socket.destroy(),
    );
  };
  options.server.on('upgrade', onUpgrade);

  // A connection's credential check and a subscription's start; queries and mutations run as they do over HTTP.
  const setUps = new SetUpQueue(config.http.socketSetUpsAtOnce);
  const states = new WeakMap<object, SocketState>();
  // Per operation's context: a query's or mutation's answer, or what a subscription runs and where its results are written.
  // `place`: the subscription's place under the cap, given back when it ends.
  // A rendered read's answer goes with the socket and operation id its `next` frame is written to (renderedAnswer).
  const answers = new WeakMap<object, { result: ExecutionResult; socket: WebSocket; id: string }>();
  const prepared = new WeakMap<object, { operation: OperationDefinitionNode; target: SubscriptionTarget; place: CapLease }>();
  const format = (errors: readonly unknown[], requestId: string) =>
    errors.map((error) => formatError(error, requestId, options.exposeInternals));

  const disposable = useServer<Record<string, unknown>>(
    {
      schema: options.schema,
      connectionInitWaitTimeout: 10_000,
      async onConnect(ctx) {
        const request = ctx.extra.request;
        const credentials = socketCredentials(ctx.connectionParams ?? {}, request.headers.cookie);
        // A page on a foreign origin gets the browser's cookies sent with its upgrade: such a
        // socket must not act as the cookie's owner (cross-site WebSocket hijacking).
        if (credentials.fromCookie && options.allowCookieOrigin && !options.allowCookieOrigin(request)) return false;
        const clientAddress = clientAddressOf(request, config.http.trustProxy);
        try {
          const socket = ctx.extra.socket;
          // Without credentials there is nothing to check, so no turn to wait for in the queue.
          const authenticated = hasCredentials(credentials)
            ? await setUps.run(socket, () => authenticateClient(deps, credentials, clientAddress, options.authFailures), null)
            : { viewer: null };
          if (!authenticated) return false;
          const { viewer } = authenticated;
          const ends = viewer
            ? watchCredentials(deps, viewer, credentials.bearerToken, (reason) => socket.close(FORBIDDEN, reason))
            : () => {};
          states.set(ctx.extra, { viewer, clientAddress, socketId: ++sockets, ends });
          // The upgrade request (its headers, its parsed URL) is not needed again: not held for the socket's life.
          delete (ctx.extra as { request?: IncomingMessage }).request;
          return true;
        } catch (error) {
          if (error instanceof AppError) {
            // The catalogue code leads the reason, as it does over HTTP; close reasons hold at most 123 bytes.
            const reason = `${error.code}: ${error.message}`.slice(0, 120);
            ctx.extra.socket.close(error.code === 'RATE_LIMITED' ? TOO_MANY_FAILURES : FORBIDDEN, reason);
            return false;
          }
          // Credentials could not be checked: 1013 (try again later) says so, as HTTP's 503 does.
          // Answered, not thrown: graphql-ws would print an expected outage as an internal error's stack.
          if (isConnectionError(error)) {
            ctx.extra.socket.close(TRY_AGAIN_LATER, 'DATABASE_UNAVAILABLE: the database is unavailable; retry shortly');
            return false;
          }
          throw error;
        }
      },
      async onSubscribe(ctx, id, payload) {
        const state = states.get(ctx.extra)!;
        const requestId = `ws-${state.socketId}-${id}`;
        const context = createContext(deps, {
          viewer: state.viewer,
          clientAddress: state.clientAddress,
          now: deps.clock(),
          transport: {
            requestId,
            refreshCookie: null,
            // Sockets carry no cookies back; sign-in over a socket returns its tokens only.
            setSessionCookies: noCookies,
            clearSessionCookies: noCookies,
          },
        });
        try {
          // graphql-ws has checked the message's fields' types.
          const operationName = payload.operationName ?? undefined;
          const variables = payload.variables ?? undefined;
          // With trusted documents, any other is refused before Apollo parses it; an empty `query` is a hash's alone.
          const query = trusted?.textOf(payload) ?? (payload.query || undefined);
          // Apollo's plugin writes what it finds there (a subscription, which lives for hours, then holds none).
          context.transport.record = newOperationRecord();
          socketSubscriptions.set(context.transport, null);
          const response = await apollo.executeOperation(
            { query, operationName, variables, extensions: payload.extensions ?? undefined },
            { contextValue: context },
          );
          if (response.body.kind !== 'single') throw new Error('an operation over WebSocket answered incrementally');
          const result = response.body.singleResult;
          // Errors and no `data`: refused before it ran (it does not parse or validate, a limit, a check), as an `error` message.
          if (result.errors && !('data' in result)) return result.errors.map(asGraphQLError);
          const subscription = socketSubscriptions.get(context.transport);
          if (!subscription) {
            answers.set(context, { result: result as ExecutionResult, socket: ctx.extra.socket, id });
            return { schema: options.schema, document: ANSWERED, contextValue: context };
          }
          delete context.transport.record;
          let place: CapLease = UNCAPPED;
          if (subscriptionCap) {
            const taken = await subscriptionCap.acquire(state.clientAddress);
            if (!taken) {
              throw new AppError(
                'RATE_LIMITED',
                `At most ${subscriptionCap.limit} subscriptions may be open per client; complete one first`,
                { limit: subscriptionCap.limit },
              );
            }
            place = taken;
          }
          const { document, operation } = subscription;
          prepared.set(context, { operation, target: { socket: ctx.extra.socket, id, requestId, format }, place });
          return {
            schema: options.schema,
            document,
            operationName: operation.name?.value,
            variableValues: variables,
            contextValue: context,
          };
        } catch (error) {
          // graphql-ws sends GraphQLErrors; these carry the formatted message and extensions.
          return format([error], requestId).map(asGraphQLError);
        }
      },
      // Apollo Server answered it in onSubscribe.
      execute: (args) => {
        const { result, socket, id } = answers.get(args.contextValue as GraphQLContext)!;
        return result.data instanceof RenderedData ? renderedAnswer(socket, id, result) : result;
      },
      subscribe,
      // Apollo's answers hold formatted errors already; a subscription its source refused holds graphql-js's.
      onNext: (_ctx, _id, _payload, args, result) =>
        answers.has(args.contextValue as GraphQLContext)
          ? (result as FormattedExecutionResult)
          : result.errors && { ...result, errors: format(result.errors, requestIdOf(args)) },
      onError: (_ctx, id, _payload, errors) => format(errors, `ws-${id}`),
      onClose: (ctx) => states.get(ctx.extra)?.ends(),
    },
    wss,
  );

  async function subscribe(args: ExecutionArgs) {
    const context = args.contextValue as GraphQLContext;
    const { operation, target, place } = prepared.get(context)!;
    const release = () => place.release();
    const start = () =>
      scopedSubscribe(args, operation, target, (delta) => {
        options.onSubscriptionCount?.(delta);
        if (delta === -1) release();
      });
    const result = await setUps.run(target.socket, start, NOT_OPENED).catch((error: unknown) => {
      release();
      throw error;
    });
    if (!(Symbol.asyncIterator in result)) release();
    return result;
  }

  let closing: Promise<void> | null = null;
  return {
    /**
     * Stops accepting sockets and closes every open one with 1001 (going away); a peer that
     * has not completed the closing handshake within `graceMs` is terminated, so one that
     * never answers the close frame holds nothing. Later calls return the first's promise.
     */
    close(graceMs = 1000): Promise<void> {
      return (closing ??= (async () => {
        options.server.off('upgrade', onUpgrade);
        const open = [...wss.clients];
        for (const client of open) client.close(GOING_AWAY, 'Server shutting down');
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.all(
            open
              .filter((client) => client.readyState !== client.CLOSED)
              .map((client) => new Promise((resolve) => client.once('close', resolve))),
          ),
          new Promise((resolve) => (timer = setTimeout(resolve, graceMs))),
        ]);
        clearTimeout(timer);
        for (const client of wss.clients) client.terminate();
        await disposable.dispose();
        await new Promise<void>((resolve) => wss.close(() => resolve()));
      })());
    },
  };
}

/** What a subscription whose socket closed before its set-up's turn answers (graphql-ws has dropped the operation): nothing to follow. */
const NOT_OPENED: ExecutionResult = { data: null };

/** The place of a connection no cap counts. */
const UNCAPPED: CapLease = { release: () => {} };

/** Answers an upgrade with an HTTP refusal instead of a socket. */
function refuseUpgrade(socket: Duplex, refused: { status: number; reason: string; headers?: Record<string, string> }): void {
  const headers = Object.entries(refused.headers ?? {})
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${refused.status} ${refused.reason}\r\n${headers}Connection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** An upgrading socket's error listener: `this` is the socket. */
function destroyOnError(this: Duplex): void {
  this.destroy();
}

// Outside onUpgrade, so that the socket's close listener does not keep the upgrade request (its scope) alive.
function releaseOnClose(socket: Duplex, place: CapLease): void {
  if (socket.destroyed) place.release();
  else socket.once('close', () => place.release());
}

/**
 * The document graphql-ws is given for an operation Apollo has answered: a query, so that it
 * calls `execute`, which hands it the answer.
 */
const ANSWERED = parse('{ __typename }');

/**
 * A rendered read's answer over a socket: its `next` frame written here with the JSON text SQL
 * wrote (graphql-ws would parse it into values and serialize them again, which cost a large
 * page as much as the rest of the request), as graphql-ws writes the frame (`id`, `type`,
 * `payload`); an async iterable with nothing more, so graphql-ws then sends `complete`.
 */
async function* renderedAnswer(socket: WebSocket, id: string, answer: ExecutionResult): AsyncGenerator<never> {
  const data = answer.data as unknown as RenderedData;
  socket.send(Buffer.concat([Buffer.from(nextFramePrefix(id)), data.body(answer.extensions), FRAME_END]), {
    binary: false,
  });
}

const FRAME_END = Buffer.from('}');

/** A formatted error as graphql-ws sends one. */
const asGraphQLError = (formatted: { message: string; extensions?: Record<string, unknown> }) =>
  new GraphQLError(formatted.message, { extensions: formatted.extensions });

/**
 * Closes a socket whose peer sends more than MAX_PINGS_PER_WINDOW pings in a window, with
 * 1008 and RATE_LIMITED in the reason; a peer that does not complete the closing handshake
 * within a second is cut.
 */
function limitPings(ws: WebSocket): void {
  let windowStartedAt = performance.now();
  let pings = 0;
  const pinged = () => {
    const now = performance.now();
    if (now - windowStartedAt >= PING_WINDOW_MS) {
      windowStartedAt = now;
      pings = 0;
    }
    if (++pings <= MAX_PINGS_PER_WINDOW || ws.readyState !== ws.OPEN) return;
    ws.close(POLICY_VIOLATION, `RATE_LIMITED: more than ${MAX_PINGS_PER_WINDOW} pings in ${PING_WINDOW_MS / 1000} s`);
    setTimeout(() => ws.terminate(), 1000).unref();
  };
  ws.on('ping', pinged);
  // graphql-ws's own ping is a short text message; longer ones are never pings.
  ws.on('message', (data, isBinary) => {
    if (isBinary || !Buffer.isBuffer(data) || data.length > 64 || !data.includes('ping')) return;
    try {
      if ((JSON.parse(data.toString('utf8')) as { type?: unknown }).type === 'ping') pinged();
    } catch {
      // graphql-ws closes the socket over a message it cannot read.
    }
  });
}
/** The request id the operation's context was made with (`ws-<socket>-<operation id>`). */
const requestIdOf = (args: ExecutionArgs): string => (args.contextValue as GraphQLContext).transport.requestId;
