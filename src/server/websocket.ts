import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  createSourceEventStream,
  type DocumentNode,
  execute,
  type ExecutionArgs,
  type ExecutionResult,
  getOperationAST,
  GraphQLError,
  type GraphQLFormattedError,
  type GraphQLSchema,
  NoSchemaIntrospectionCustomRule,
  parse,
  print,
  specifiedRules,
  validate,
} from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import proxyAddr from '@fastify/proxy-addr';
import { decodeJwt } from 'jose';
import { WebSocketServer } from 'ws';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { authenticate } from '../modules/auth/auth.service.js';
import type { Viewer } from '../modules/auth/viewer.js';
import type { ServiceDependencies } from '../modules/context.js';
import { ScopedEvent } from '../modules/events/event-stream.js';
import { createLoaders } from '../modules/loaders.js';
import type { GraphQLContext } from './context.js';
import { ACCESS_COOKIE, readCookie } from './cookies.js';
import { isTokenLimitError, limitError, limitParseOptions, operationLimitRules } from './limits.js';

/** WebSocket close code 1001: the server is going away (shutting down). */
const GOING_AWAY = 1001;
/** graphql-ws's close code for refused credentials; also used when they end mid-connection. */
const FORBIDDEN = 4403;

export interface GraphQLWebSocketOptions {
  server: Server;
  path: string;
  schema: GraphQLSchema;
  deps: ServiceDependencies;
  config: Pick<Config, 'limits' | 'introspection' | 'http'>;
  /** The checks HTTP runs before execution (cost, rate limit); each throws a GraphQLError to refuse. */
  checks: Array<(document: DocumentNode, operation: NonNullable<ReturnType<typeof getOperationAST>>, context: GraphQLContext, variables: Record<string, unknown> | undefined) => void>;
  formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
  /** Called as subscriptions open (+1) and close (-1). */
  onSubscriptionCount?: (delta: 1 | -1) => void;
  /** Whether to refuse a new socket now (load shedding), and how long the client should wait. */
  refuseUpgrade?: () => { retryAfter: number } | null;
}

interface SocketState {
  viewer: Viewer | null;
  clientAddress: string;
  socketId: number;
  /** Stops watching for the end of the socket's credentials. */
  ends: () => void;
}

let sockets = 0;

/**
 * graphql-ws (protocol graphql-transport-ws) on the HTTP server's port and path. The
 * caller authenticates in connection_init (`authorization: "Bearer <token>"` or
 * `x-api-key`, else the browser's access cookie); bad credentials close with 4403. Every
 * subscribe message is parsed, validated and checked with the same limits as HTTP, and
 * each event of a subscription runs with a context of its own (see {@link scopedSubscribe}).
 */
export function attachGraphQLWebSocket(options: GraphQLWebSocketOptions) {
  const { deps, config, schema } = options;
  const wss = new WebSocketServer({ noServer: true, maxPayload: config.http.bodyLimitBytes });
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== options.path) {
      socket.destroy();
      return;
    }
    const refused = options.refuseUpgrade?.();
    if (refused) {
      socket.end(`HTTP/1.1 503 Service Unavailable\r\nRetry-After: ${refused.retryAfter}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  };
  options.server.on('upgrade', onUpgrade);

  const states = new WeakMap<object, SocketState>();
  const stateOf = (extra: object): SocketState => states.get(extra)!;
  const validationRules = (variables: Record<string, unknown> | undefined) => [
    ...specifiedRules,
    ...operationLimitRules(config.limits, variables),
    ...(config.introspection ? [] : [NoSchemaIntrospectionCustomRule]),
  ];
  const formatErrors = (errors: readonly GraphQLError[]) => errors.map((error) => options.formatError(error.toJSON(), error));

  const disposable = useServer<Record<string, unknown>>(
    {
      schema,
      connectionInitWaitTimeout: 10_000,
      async onConnect(ctx) {
        const params = ctx.connectionParams ?? {};
        const request = ctx.extra.request;
        try {
          const credentials = credentialsOf(params, request.headers.cookie);
          const viewer = await authenticate(deps, credentials, deps.clock());
          const ends = viewer ? endOfCredentials(deps, viewer, credentials.bearerToken, (reason) => ctx.extra.socket.close(FORBIDDEN, reason)) : () => {};
          states.set(ctx.extra, { viewer, clientAddress: clientAddressOf(request, config.http.trustProxy), socketId: ++sockets, ends });
          return true;
        } catch (error) {
          if (error instanceof AppError) return false; // 4403 Forbidden
          throw error;
        }
      },
      async onSubscribe(ctx, id, payload) {
        const state = stateOf(ctx.extra);
        let document: DocumentNode;
        try {
          document = parse(payload.query, limitParseOptions(config.limits));
        } catch (error) {
          return [parseError(error)];
        }
        const variables = payload.variables ?? undefined;
        const errors = validate(schema, document, validationRules(variables));
        if (errors.length) return errors.map((e) => (config.introspection ? e : withoutSuggestions(e)));
        const operation = getOperationAST(document, payload.operationName);
        if (!operation) return [new GraphQLError('Unable to identify the operation to run', { extensions: { code: 'BAD_USER_INPUT' } })];
        const context = {
          ...deps,
          viewer: state.viewer,
          clientAddress: state.clientAddress,
          now: deps.clock(),
          transport: {
            requestId: `ws-${state.socketId}-${id}`,
            refreshCookie: null,
            // Sockets carry no cookies back; sign-in over a socket returns its tokens only.
            setSessionCookies: () => {},
            clearSessionCookies: () => {},
          },
        } as Omit<GraphQLContext, 'loaders'> as GraphQLContext;
        // A subscription's own loaders serve its subscribe step only (each event brings its
        // own), so they are made on first use; thousands of idle sockets then hold none.
        let loaders: GraphQLContext['loaders'] | null = null;
        Object.defineProperty(context, 'loaders', { get: () => (loaders ??= createLoaders(deps.database.db)), enumerable: false });
        try {
          for (const check of options.checks) check(document, operation, context, variables);
        } catch (error) {
          if (error instanceof GraphQLError) return [error];
          throw error;
        }
        return { schema, document, operationName: payload.operationName, variableValues: variables, contextValue: context };
      },
      subscribe: (args) => scopedSubscribe(args, options.onSubscriptionCount),
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: formatErrors(result.errors) } : undefined,
      onError: (_ctx, _id, _payload, errors) => formatErrors(errors),
      onClose: (ctx) => states.get(ctx.extra)?.ends(),
    },
    wss,
  );

  return {
    /** Closes every socket with 1001 (going away) and stops accepting new ones. */
    async close(): Promise<void> {
      options.server.off('upgrade', onUpgrade);
      for (const client of wss.clients) client.close(GOING_AWAY, 'Server shutting down');
      await disposable.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/**
 * Credentials are checked once, at connection_init; a socket must not outlive them. This
 * closes it (4403) when its session is signed out or revoked, or its API key revoked, on
 * whichever replica that happens, and when its access token expires (the client refreshes
 * and reconnects). Returns what stops watching.
 */
function endOfCredentials(deps: ServiceDependencies, viewer: Viewer, bearerToken: string | null, close: (reason: string) => void): () => void {
  const stops: Array<() => void> = [];
  if (viewer.sessionId) stops.push(deps.events.on({ session: viewer.sessionId }, () => close('The session has ended; sign in again')));
  if (viewer.apiKeyId) stops.push(deps.events.on({ apiKey: viewer.apiKeyId }, () => close('The API key has been revoked')));
  const expiresAt = bearerToken ? decodeJwt(bearerToken).exp : undefined;
  if (expiresAt) {
    // setTimeout holds at most 2^31-1 ms; tokens live minutes, so this only guards odd settings.
    const delay = Math.min(expiresAt * 1000 - deps.clock().getTime(), 2 ** 31 - 1);
    const timer = setTimeout(() => close('The access token has expired; refresh it and reconnect'), Math.max(0, delay));
    timer.unref();
    stops.push(() => clearTimeout(timer));
  }
  return () => {
    for (const stop of stops) stop();
  };
}

function credentialsOf(params: Record<string, unknown>, cookieHeader: string | undefined) {
  const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : null);
  const authorization = text(params.authorization ?? params.Authorization);
  const apiKey = text(params['x-api-key'] ?? params.apiKey);
  let bearerToken: string | null = null;
  if (authorization) {
    // A value that is not "Bearer <token>" fails verification like a bad token: never ignored.
    bearerToken = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1] ?? authorization;
  } else if (!apiKey) {
    bearerToken = readCookie(cookieHeader, ACCESS_COOKIE);
  }
  return { bearerToken, apiKey };
}

/** The client's address as fastify computes `request.ip`: forwarding headers count only from trusted proxies. */
function clientAddressOf(request: IncomingMessage, trustProxy: boolean | string[]): string {
  const trust = trustProxy === true ? () => true : trustProxy ? proxyAddr.compile(trustProxy) : () => false;
  return proxyAddr(request, trust);
}

function parseError(error: unknown): GraphQLError {
  const message = error instanceof Error ? error.message : String(error);
  if (isTokenLimitError(message)) return limitError('tokens', null, Number(/(\d+) tokens/.exec(message)?.[1]));
  return new GraphQLError(message, { extensions: { code: 'GRAPHQL_PARSE_FAILED' } });
}

/** With introspection off, "Did you mean ...?" would reveal the schema as much as introspection does. */
function withoutSuggestions(error: GraphQLError): GraphQLError {
  if (!/ Did you mean /.test(error.message)) return error;
  return new GraphQLError(error.message.replace(/ Did you mean .*\?$/, ''), { nodes: error.nodes, extensions: error.extensions });
}

/**
 * graphql's `subscribe`, except that each event's result is executed with a context of
 * its own: the subscription's viewer and transport, with the loaders and time of the
 * event the item came from. Loaders thus never serve one event's rows to a later one,
 * every subscriber of one event shares one batch of reads, and subscribers whose
 * operation, variables and viewer are the same share one execution.
 */
export async function scopedSubscribe(
  args: ExecutionArgs,
  onCount?: (delta: 1 | -1) => void,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!isAsyncIterable(source)) return source;
  const iterator = source[Symbol.asyncIterator]();
  const base = args.contextValue as GraphQLContext;
  const sharedKey = `${base.viewer?.userId ?? 'anonymous'}\u0000${print(args.document)}\u0000${args.operationName ?? ''}\u0000${JSON.stringify(args.variableValues ?? {})}`;
  let open = true;
  onCount?.(1);
  const closed = () => {
    if (!open) return;
    open = false;
    onCount?.(-1);
  };
  const mapped: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      let step: IteratorResult<unknown>;
      try {
        step = await iterator.next();
      } catch (error) {
        closed();
        throw error;
      }
      if (step.done) {
        closed();
        return { value: undefined, done: true };
      }
      const item = step.value;
      if (!(item instanceof ScopedEvent)) throw new Error('a subscription source yielded an item without its event scope');
      let results = resultsByEvent.get(item.scope);
      if (!results) resultsByEvent.set(item.scope, (results = new Map()));
      // Subscribers of one event with the same operation, variables and viewer get the same
      // result: it is executed once for all of them (the root is part of the key too, since
      // one event can yield different roots to different subscribers).
      const key = `${sharedKey}\u0000${rootKey(item.root)}`;
      let result = results.get(key);
      if (!result) {
        const contextValue: GraphQLContext = { ...base, loaders: item.scope.loaders, now: item.scope.now };
        results.set(key, (result = Promise.resolve(execute({ ...args, rootValue: item.root, contextValue }))));
      }
      return { value: await result, done: false };
    },
    async return() {
      closed();
      await iterator.return?.();
      return { value: undefined, done: true };
    },
    async throw(error: unknown) {
      closed();
      await iterator.return?.();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return mapped;
    },
  };
  return mapped;
}

/** Results of the events being delivered now, per event; dropped with the event. */
const resultsByEvent = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();

/** Identifies a subscription item's root: an id, a number, or a row (by its id). */
function rootKey(root: unknown): string {
  if (typeof root === 'string' || typeof root === 'number') return String(root);
  if (root && typeof root === 'object') {
    const { id, signature, status } = root as { id?: unknown; signature?: unknown; status?: unknown };
    if (typeof id === 'string') return id;
    if (typeof signature === 'string') return `${signature}:${String(status)}`;
  }
  return Math.random().toString(36); // unknown shape: never shared
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
