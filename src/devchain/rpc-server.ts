// Over 300 lines: HTTP and websocket transports of one JSON-RPC endpoint share its request parsing, batching and subscription bookkeeping.
/**
 * The devchain's JSON-RPC 2.0 transports: HTTP POST (single and batch requests) and the
 * websocket subscriptions @solana/web3.js needs to confirm transactions
 * (`signatureSubscribe`, plus `slotSubscribe` and `accountSubscribe`). Like a validator,
 * it listens on two ports: HTTP on `port`, websockets on `port + 1` (where web3.js's
 * `Connection` looks for them); both ports accept both protocols.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { DevChain } from './chain.js';
import { encodeAccount, RpcError, RpcErrorCode, type RpcMethod } from './rpc-methods.js';

/** Largest HTTP request body accepted. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;
const PORT_ATTEMPTS = 20;
const CLOSE_GRACE_MS = 200;

type JsonRpcId = string | number | null;

interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

function errorResponse(id: JsonRpcId, code: number, message: string, data?: unknown): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

function isValidId(id: unknown): id is JsonRpcId {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/**
 * Runs one request object against `methods`. Returns null for a notification (no `id`),
 * whose result is not sent.
 */
function handleRequest(request: unknown, methods: Map<string, RpcMethod>): JsonRpcResponse | null {
  if (!request || typeof request !== 'object' || Array.isArray(request)) {
    return errorResponse(null, RpcErrorCode.InvalidRequest, 'Invalid request');
  }
  const { jsonrpc, method, params, id } = request as Record<string, unknown>;
  const isNotification = !('id' in request);
  if (jsonrpc !== '2.0' || typeof method !== 'string' || (!isNotification && !isValidId(id))) {
    return errorResponse(isValidId(id) ? id : null, RpcErrorCode.InvalidRequest, 'Invalid request');
  }
  const responseId = isNotification ? null : (id as JsonRpcId);
  if (params !== undefined && (params === null || typeof params !== 'object')) {
    return isNotification
      ? null
      : errorResponse(responseId, RpcErrorCode.InvalidParams, 'Invalid params: params must be an array or an object');
  }
  const handler = methods.get(method);
  if (!handler) return isNotification ? null : errorResponse(responseId, RpcErrorCode.MethodNotFound, 'Method not found');
  try {
    const result = handler(params);
    return isNotification ? null : { jsonrpc: '2.0', id: responseId, result };
  } catch (error) {
    if (isNotification) return null;
    if (error instanceof RpcError) return errorResponse(responseId, error.code, error.message, error.data);
    return errorResponse(responseId, RpcErrorCode.InternalError, 'Internal error', (error as Error).message);
  }
}

/** Runs a parsed JSON-RPC payload (one request or a batch); null when nothing is to be sent back. */
export function handlePayload(payload: unknown, methods: Map<string, RpcMethod>): JsonRpcResponse | JsonRpcResponse[] | null {
  if (!Array.isArray(payload)) return handleRequest(payload, methods);
  if (payload.length === 0) return errorResponse(null, RpcErrorCode.InvalidRequest, 'Invalid request');
  const responses: JsonRpcResponse[] = [];
  for (const request of payload) {
    const response = handleRequest(request, methods);
    if (response) responses.push(response);
  }
  return responses.length > 0 ? responses : null;
}

function parsePayload(text: string): { ok: true; payload: unknown } | { ok: false } {
  try {
    return { ok: true, payload: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS, GET',
  'access-control-allow-headers': 'content-type, solana-client',
};

function createHttpHandler(methods: Map<string, RpcMethod>) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const send = (status: number, body: string, contentType = 'application/json'): void => {
      response.writeHead(status, { ...CORS_HEADERS, 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
      response.end(body);
    };
    if (request.method === 'OPTIONS') return send(200, '', 'text/plain');
    if (request.method === 'GET' && request.url === '/health') return send(200, 'ok', 'text/plain');
    if (request.method !== 'POST') {
      return send(405, 'Used HTTP Method is not allowed. POST or OPTIONS is required', 'text/plain');
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        tooLarge = true;
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (tooLarge) return send(413, 'Payload Too Large', 'text/plain');
      const parsed = parsePayload(Buffer.concat(chunks).toString('utf8'));
      const result = parsed.ok ? handlePayload(parsed.payload, methods) : errorResponse(null, RpcErrorCode.ParseError, 'Parse error');
      send(200, result === null ? '' : JSON.stringify(result));
    });
    request.on('error', () => response.destroy());
  };
}

type Commitment = 'processed' | 'confirmed' | 'finalized';

function commitmentOf(config: unknown): Commitment {
  const value = config && typeof config === 'object' ? (config as Record<string, unknown>).commitment : undefined;
  if (value === 'processed' || value === 'confirmed') return value;
  if (value === 'recent' || value === 'single' || value === 'singleGossip') return 'confirmed';
  return 'finalized';
}

interface Subscription {
  id: number;
  socket: WebSocket;
  kind: 'signature' | 'slot' | 'account';
  /** The signature or account address watched. */
  target: string;
  commitment: Commitment;
  config: Record<string, unknown>;
}

/** Websocket subscriptions over the chain's events. */
class SubscriptionHub {
  private nextId = 1;
  private readonly subscriptions = new Map<number, Subscription>();
  private readonly detach: Array<() => void>;

  constructor(private readonly chain: DevChain) {
    this.detach = [
      chain.on('slot', (slot) => this.onSlot(slot)),
      chain.on('transaction', (record) => this.checkSignatures(record.signature)),
      chain.on('accounts', (addresses) => this.onAccounts(addresses)),
    ];
  }

  get size(): number {
    return this.subscriptions.size;
  }

  /** The subscription methods, bound to one socket. */
  methodsFor(socket: WebSocket): Map<string, RpcMethod> {
    const subscribe = (kind: Subscription['kind'], target: string, config: unknown): number => {
      const id = this.nextId++;
      const plainConfig = config && typeof config === 'object' ? (config as Record<string, unknown>) : {};
      this.subscriptions.set(id, { id, socket, kind, target, commitment: commitmentOf(config), config: plainConfig });
      if (kind === 'signature') setImmediate(() => this.checkSignatures(target));
      return id;
    };
    const unsubscribe = (kind: Subscription['kind']) => (params: unknown) => {
      const id = Array.isArray(params) ? params[0] : undefined;
      if (typeof id !== 'number') throw new RpcError(RpcErrorCode.InvalidParams, 'Invalid params: expected a subscription id');
      const subscription = this.subscriptions.get(id);
      if (!subscription || subscription.kind !== kind || subscription.socket !== socket) {
        throw new RpcError(RpcErrorCode.InvalidParams, 'Invalid subscription id.');
      }
      this.subscriptions.delete(id);
      return true;
    };
    const stringParam = (params: unknown, what: string): string => {
      const value = Array.isArray(params) ? params[0] : undefined;
      if (typeof value !== 'string') throw new RpcError(RpcErrorCode.InvalidParams, `Invalid params: expected a ${what}`);
      return value;
    };
    const second = (params: unknown): unknown => (Array.isArray(params) ? params[1] : undefined);
    return new Map<string, RpcMethod>([
      ['signatureSubscribe', (params) => subscribe('signature', stringParam(params, 'signature'), second(params))],
      ['signatureUnsubscribe', unsubscribe('signature')],
      ['slotSubscribe', () => subscribe('slot', '', undefined)],
      ['slotUnsubscribe', unsubscribe('slot')],
      ['accountSubscribe', (params) => subscribe('account', stringParam(params, 'address'), second(params))],
      ['accountUnsubscribe', unsubscribe('account')],
    ]);
  }

  /** Forgets every subscription of a closed socket. */
  dropSocket(socket: WebSocket): void {
    for (const [id, subscription] of this.subscriptions) {
      if (subscription.socket === socket) this.subscriptions.delete(id);
    }
  }

  close(): void {
    for (const detach of this.detach) detach();
    this.subscriptions.clear();
  }

  private notify(subscription: Subscription, method: string, result: unknown): void {
    if (subscription.socket.readyState !== subscription.socket.OPEN) return;
    subscription.socket.send(JSON.stringify({ jsonrpc: '2.0', method, params: { result, subscription: subscription.id } }));
  }

  private onSlot(slot: number): void {
    const root = Math.max(0, slot - 32);
    for (const subscription of this.subscriptions.values()) {
      if (subscription.kind === 'slot') this.notify(subscription, 'slotNotification', { parent: slot - 1, root, slot });
    }
    this.checkSignatures();
  }

  /**
   * Notifies (once) each signature subscription — of `signature`, or of any — whose
   * transaction reached its commitment.
   */
  private checkSignatures(signature?: string): void {
    for (const [id, subscription] of this.subscriptions) {
      if (subscription.kind !== 'signature') continue;
      if (signature !== undefined && subscription.target !== signature) continue;
      const record = this.chain.getTransaction(subscription.target);
      if (!record || !this.chain.hasReached(record, subscription.commitment)) continue;
      this.subscriptions.delete(id);
      this.notify(subscription, 'signatureNotification', { context: { slot: record.slot }, value: { err: record.err } });
    }
  }

  private onAccounts(addresses: string[]): void {
    const changed = new Set(addresses);
    for (const subscription of this.subscriptions.values()) {
      if (subscription.kind !== 'account' || !changed.has(subscription.target)) continue;
      const account = this.chain.getAccount(subscription.target);
      const value = account
        ? encodeAccount(this.chain, account, { encoding: 'base64', ...subscription.config })
        : { data: ['', 'base64'], executable: false, lamports: 0, owner: '11111111111111111111111111111111', rentEpoch: 0, space: 0 };
      this.notify(subscription, 'accountNotification', { context: { slot: this.chain.slot }, value });
    }
  }
}

/** A running JSON-RPC endpoint. */
export interface RpcEndpoint {
  /** HTTP JSON-RPC URL. */
  url: string;
  /** Websocket URL (port + 1, or the HTTP port when port + 1 was taken). */
  wsUrl: string;
  port: number;
  /** Websocket subscriptions open now. */
  readonly subscriptions: number;
  /** Closes both listeners and every open connection. */
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      server.off('listening', onListening);
      reject(error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * Closes websockets with code 1000 (normal closure), which tells web3.js's client not to
 * reconnect; terminates those that do not finish the closing handshake promptly.
 */
async function closeSockets(sockets: WebSocket[]): Promise<void> {
  await Promise.all(
    sockets.map(
      (socket) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            socket.terminate();
            resolve();
          }, CLOSE_GRACE_MS);
          socket.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          socket.close(1000, 'devchain closing');
        }),
    ),
  );
}

/**
 * Serves `methods` over HTTP on `host:port` (0 = a free port whose successor is free too)
 * and websocket subscriptions over `chain` on `port + 1` and `port`.
 */
export async function startRpcServer(
  chain: DevChain,
  methods: Map<string, RpcMethod>,
  options: { host: string; port: number; log: (line: string) => void },
): Promise<RpcEndpoint> {
  const hub = new SubscriptionHub(chain);
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY_BYTES });
  wss.on('connection', (socket) => {
    const socketMethods = hub.methodsFor(socket);
    socket.on('message', (data) => {
      const parsed = parsePayload(data.toString());
      const result = parsed.ok ? handlePayload(parsed.payload, socketMethods) : errorResponse(null, RpcErrorCode.ParseError, 'Parse error');
      if (result !== null) socket.send(JSON.stringify(result));
    });
    socket.on('close', () => hub.dropSocket(socket));
    socket.on('error', () => socket.terminate());
  });
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  };
  const handler = createHttpHandler(methods);
  const makeServer = () => {
    const server = createServer(handler);
    server.on('upgrade', onUpgrade);
    return server;
  };

  const http = makeServer();
  const ws = makeServer();
  let port = 0;
  let wsPort: number | null = null;
  for (let attempt = 0; attempt < PORT_ATTEMPTS && wsPort === null; attempt++) {
    port = await listen(http, options.port, options.host);
    try {
      wsPort = await listen(ws, port + 1, options.host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EADDRINUSE' && code !== 'ERR_SOCKET_BAD_PORT') {
        await closeServer(http);
        throw error;
      }
      if (options.port !== 0) {
        options.log(`devchain: port ${port + 1} is unavailable; websockets are served on ${port} only`);
        break;
      }
      await closeServer(http);
    }
  }
  if (!http.listening) throw new Error(`devchain: found no free port pair after ${PORT_ATTEMPTS} attempts`);
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    wsUrl: `ws://${host}:${wsPort ?? port}`,
    port,
    get subscriptions() {
      return hub.size;
    },
    async close() {
      hub.close();
      await closeSockets([...wss.clients]);
      wss.close();
      await Promise.all([closeServer(http), closeServer(ws)]);
    },
  };
}
