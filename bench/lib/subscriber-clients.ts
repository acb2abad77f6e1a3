/**
 * The subscribers of `npm run bench:subscribers` (bench/subscribers.ts): groups of sockets
 * subscribed to `poolUpdated` of one pool, in the bench's process or each in a child
 * process of its own (BENCH_CLIENT_PROCESSES), so that reading 10,000 messages per event
 * need not all queue on one client thread. Each group times every `next` on arrival against
 * the pool's `updatedAt` (the server's clock as the change was asked, on the same machine).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const SUBSCRIPTION = `subscription($p: ID!) { poolUpdated(poolId: $p) { id status updatedAt } }`;

export type ClientKind = 'raw' | 'graphql-ws';

type OnUpdate = (updatedAt: string, receivedAt: number) => void;

/** Subscribers that open, count their deliveries, and give up their latencies and CPU time. */
export interface SubscriberGroup {
  open(count: number): Promise<void>;
  /** Resolves once `deliveries` messages have arrived since the group opened. */
  waitFor(deliveries: number): Promise<void>;
  /** The latencies (ms) since the last call, and the CPU ms the group's process used meanwhile. */
  take(): Promise<{ latencies: number[]; cpuMs: number }>;
  close(): Promise<void>;
  exit(): void;
}

/**
 * One subscriber over plain `ws` speaking graphql-transport-ws: connection_init, subscribe
 * on the ack, pong to pings; each `next` is timed on arrival, then parsed.
 */
function rawSubscriber(url: string, poolId: string, onUpdate: OnUpdate): Promise<() => void> {
  const subscribe = JSON.stringify({ id: '1', type: 'subscribe', payload: { query: SUBSCRIPTION, variables: { p: poolId } } });
  return new Promise((resolveOpen, reject) => {
    const ws = new WebSocket(url, 'graphql-transport-ws', { perMessageDeflate: false });
    ws.on('open', () => ws.send('{"type":"connection_init"}'));
    ws.on('message', (data) => {
      const receivedAt = Date.now();
      const message = JSON.parse(String(data)) as { type: string; payload?: any };
      if (message.type === 'next') onUpdate(message.payload.data.poolUpdated.updatedAt, receivedAt);
      else if (message.type === 'connection_ack') {
        ws.send(subscribe);
        resolveOpen(() => ws.close(1000));
      } else if (message.type === 'ping') ws.send('{"type":"pong"}');
      else if (message.type === 'error') reject(new Error(JSON.stringify(message.payload)));
    });
    ws.on('error', reject);
    ws.on('close', (code) => reject(new Error(`the socket closed with ${code}`)));
  });
}

/** One subscriber with the graphql-ws package's client. */
function graphqlWsSubscriber(url: string, poolId: string, onUpdate: OnUpdate): Promise<() => void> {
  const client = createClient({ url, webSocketImpl: WebSocket, lazy: false, retryAttempts: 0, onNonLazyError: () => {} });
  return new Promise((resolveOpen, reject) => {
    client.subscribe<{ poolUpdated: { updatedAt: string } }>(
      { query: SUBSCRIPTION, variables: { p: poolId } },
      { next: (result) => onUpdate(result.data!.poolUpdated.updatedAt, Date.now()), error: reject, complete: () => {} },
    );
    client.on('connected', () => resolveOpen(() => void client.dispose()));
  });
}

/** Subscribers in this process. */
export function localGroup(url: string, poolId: string, kind: ClientKind): SubscriberGroup {
  const subscriber = kind === 'raw' ? rawSubscriber : graphqlWsSubscriber;
  let latencies: number[] = [];
  let delivered = 0;
  let closers: Array<() => void> = [];
  let waiter: { deliveries: number; resolve: () => void } | null = null;
  let cpu = process.cpuUsage();
  const onUpdate: OnUpdate = (updatedAt, receivedAt) => {
    latencies.push(receivedAt - Date.parse(updatedAt));
    if (++delivered >= (waiter?.deliveries ?? Infinity)) waiter!.resolve();
  };
  return {
    async open(count) {
      // In batches: a burst of 10,000 handshakes at once measures the kernel's accept queue, not the gateway.
      for (let i = 0; i < count; i += 250) {
        closers.push(...(await Promise.all(Array.from({ length: Math.min(250, count - i) }, () => subscriber(url, poolId, onUpdate)))));
      }
    },
    waitFor(deliveries) {
      if (delivered >= deliveries) return Promise.resolve();
      return new Promise((resolve) => (waiter = { deliveries, resolve }));
    },
    async take() {
      const used = process.cpuUsage(cpu);
      cpu = process.cpuUsage();
      const taken = latencies;
      latencies = [];
      return { latencies: taken, cpuMs: (used.user + used.system) / 1000 };
    },
    async close() {
      for (const close of closers) close();
      closers = [];
      delivered = 0;
    },
    exit() {},
  };
}

/** Subscribers in a child process of their own, driven over IPC. */
export function childGroup(url: string, poolId: string, kind: ClientKind): SubscriberGroup {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, BENCH_SUBSCRIBER_GROUP: JSON.stringify({ url, poolId, kind }) },
  });
  let calls = 0;
  const replies = new Map<number, (value: any) => void>();
  child.on('message', (message: { call: number; value: unknown }) => replies.get(message.call)?.(message.value));
  const call = (method: string, argument?: number) =>
    new Promise<any>((resolve) => {
      const id = ++calls;
      replies.set(id, (value) => {
        replies.delete(id);
        resolve(value);
      });
      child.send({ call: id, method, argument });
    });
  return {
    open: (count) => call('open', count),
    waitFor: (deliveries) => call('waitFor', deliveries),
    take: () => call('take'),
    close: () => call('close'),
    exit: () => void child.kill(),
  };
}

// The child's side: a local group, its methods called by the parent.
if (process.env.BENCH_SUBSCRIBER_GROUP && process.send) {
  const { url, poolId, kind } = JSON.parse(process.env.BENCH_SUBSCRIBER_GROUP) as { url: string; poolId: string; kind: ClientKind };
  const group = localGroup(url, poolId, kind) as unknown as Record<string, (argument?: number) => Promise<unknown>>;
  process.on('message', (message: { call: number; method: string; argument?: number }) => {
    void group[message.method]!(message.argument).then((value) => process.send!({ call: message.call, value }));
  });
}
