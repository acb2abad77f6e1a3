import { timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { MetricsConfig } from '../config.js';
import { hostTargets } from '../db/hosts.js';
import type { OperationRecord } from './logging.js';

/** Distinct operation names given their own label value; later ones share `(other)`. */
const MAX_OPERATION_NAMES = 200;
const NAME = /^[_A-Za-z][_0-9A-Za-z]{0,63}$/;
const CODE = /^[A-Z][A-Z0-9_]{0,47}$/;

/**
 * Counts per series in a plain map, handed to `counter` when it is read (a scrape):
 * prom-client validates and hashes a label set at every call (2.5-2.8 µs), several times a
 * request. `key` names the series (its label values joined); the values must be bounded.
 */
class Tally {
  private readonly series = new Map<string, { labels: Record<string, string>; count: number }>();

  constructor(counter: Counter<string>) {
    (counter as unknown as { collect: () => void }).collect = () => {
      for (const entry of this.series.values()) {
        if (entry.count === 0) continue;
        counter.inc(entry.labels, entry.count);
        entry.count = 0;
      }
    };
  }

  add(key: string, labels: Record<string, string>): void {
    const entry = this.series.get(key);
    if (entry) entry.count++;
    else this.series.set(key, { labels, count: 1 });
  }
}

/**
 * A Prometheus histogram kept in plain arrays and written out at scrape time: prom-client's
 * Histogram validated, hashed and searched its labels at every observation, about 7 µs of a
 * request. Registered as a metric of its own (name, help, `get`, `reset`).
 */
class CheapHistogram {
  readonly type = 'histogram';
  private readonly series = new Map<string, { labels: Record<string, string>; buckets: number[]; sum: number; count: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  observe(key: string, labels: Record<string, string>, value: number): void {
    let entry = this.series.get(key);
    if (!entry) this.series.set(key, (entry = { labels, buckets: this.bounds.map(() => 0), sum: 0, count: 0 }));
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        entry.buckets[i]!++;
        break;
      }
    }
    entry.sum += value;
    entry.count++;
  }

  async get() {
    const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
    for (const { labels, buckets, sum, count } of this.series.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += buckets[i]!;
        values.push({ labels: { ...labels, le: bound }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { ...labels, le: '+Inf' }, value: count, metricName: `${this.name}_bucket` });
      values.push({ labels, value: sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: 'sum' };
  }

  reset(): void {
    this.series.clear();
  }
}

/**
 * The process's Prometheus metrics, in a registry of its own (so several servers in one
 * process, as in tests, do not share counters). Operation names come from clients, so
 * they are bounded: at most {@link MAX_OPERATION_NAMES} distinct ones are labelled.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly operationNames = new Set<string>();

  /** GraphQL operations by name, type and outcome (`ok` or the first error's code). */
  readonly operations = new Counter({
    name: 'poolgraph_graphql_operations_total',
    help: 'GraphQL operations by operation name, type and outcome (ok, or the code of the first error)',
    labelNames: ['operation', 'type', 'outcome'] as const,
    registers: [this.registry],
  });

  /** Queries answered by a rendered read, without the executor (a subset of `operations`). */
  readonly renderedReads = new Counter({
    name: 'poolgraph_graphql_rendered_reads_total',
    help: 'GraphQL queries answered by a rendered read (statements writing the response JSON, no executor), by operation name',
    labelNames: ['operation'] as const,
    registers: [this.registry],
  });

  /** Queries the renderer left to the executor, by why (RenderFallbackReason, server/read-renderer.ts). */
  readonly renderFallbacks = new Counter({
    name: 'poolgraph_graphql_render_fallbacks_total',
    help:
      'GraphQL queries the rendered-read planner left to the executor, by reason (a field it cannot write, bad variables, ' +
      "the request's own error such as signed out, a failed statement; see server/read-renderer.ts)",
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly operationDuration = new CheapHistogram(
    'poolgraph_graphql_operation_duration_seconds',
    'Time from request received to response sent, per GraphQL operation',
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    this.registry,
  );

  /** Every HTTP request by route and status, including those refused before GraphQL (413, 503). */
  readonly httpRequests = new Counter({
    name: 'poolgraph_http_requests_total',
    help: 'HTTP requests by route, method and status code',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });

  readonly shed = new Counter({
    name: 'poolgraph_load_shed_total',
    help: 'Requests refused with 503 before being read, by the pressure that refused them',
    labelNames: ['pressure'] as const,
    registers: [this.registry],
  });

  readonly openSockets = new Gauge({
    name: 'poolgraph_open_sockets',
    help: 'TCP connections open to the HTTP server',
    registers: [this.registry],
  });

  /** Open GraphQL subscriptions; moved by the subscription transport. */
  readonly subscriptions = new Gauge({
    name: 'poolgraph_subscriptions_open',
    help: 'GraphQL subscriptions currently open',
    registers: [this.registry],
  });

  /** Transactions sent to the chain, by operation and outcome; told by the submitting service (`onChainSubmission`). */
  readonly chainSubmissions = new Counter({
    name: 'poolgraph_chain_submissions_total',
    help: 'Transactions sent to the chain, by operation and outcome (confirmed, failed, expired, rejected, unavailable, unsettled)',
    labelNames: ['operation', 'outcome'] as const,
    registers: [this.registry],
  });

  /** Lamports the relayer paid for confirmed transactions, by operation and kind (fee, or sponsored beyond fees); told by `onRelayerSpend`. */
  readonly relayerSpent = new Counter({
    name: 'poolgraph_relayer_spent_lamports_total',
    help:
      'Lamports the relayer paid for confirmed transactions, by operation and kind (fee: signature fees; sponsored: ' +
      'anything beyond, which the rules keep at 0)',
    labelNames: ['operation', 'kind'] as const,
    registers: [this.registry],
  });

  private readonly httpRequestTally = new Tally(this.httpRequests);
  private readonly operationTally = new Tally(this.operations);
  private readonly renderedReadTally = new Tally(this.renderedReads);
  private readonly renderFallbackTally = new Tally(this.renderFallbacks);

  /** Reads the relayer's balance from the chain at each scrape (set by `watchRelayerBalance`). */
  private readRelayerBalance: (() => Promise<bigint>) | null = null;

  /** The relayer's SOL balance: read from the chain at each scrape, and after each transaction it paid for. */
  readonly relayerBalance = new Gauge({
    name: 'poolgraph_relayer_balance_lamports',
    help: "The relayer's balance in lamports, read from the chain at scrape time (the last known value when the chain does not answer)",
    registers: [this.registry],
    collect: async () => {
      const lamports = await this.readRelayerBalance?.().catch(() => null);
      if (lamports !== undefined && lamports !== null) this.relayerBalance.set(Number(lamports));
    },
  });

  /** Promise rejections nothing handled: each a defect, logged with the request it came from (reportUnhandledRejection, app.ts). */
  readonly unhandledRejections = new Counter({
    name: 'poolgraph_unhandled_rejections_total',
    help: 'Promise rejections no code handled; the process logs each (with its request id) and keeps serving',
    registers: [this.registry],
  });

  /** Makes the balance gauge read the relayer's balance with `read` at each scrape. */
  watchRelayerBalance(read: () => Promise<bigint>): void {
    this.readRelayerBalance = read;
  }

  /** Records what the relayer paid for one confirmed transaction. */
  recordRelayerSpend(spend: { operation: string; feeLamports: bigint; sponsoredLamports: bigint; balanceLamports: bigint }): void {
    this.relayerSpent.inc({ operation: spend.operation, kind: 'fee' }, Number(spend.feeLamports));
    this.relayerSpent.inc({ operation: spend.operation, kind: 'sponsored' }, Math.max(0, Number(spend.sponsoredLamports)));
    this.relayerBalance.set(Number(spend.balanceLamports));
  }

  /** Queries by the database they read from and why (read-routing.ts); only with a standby. */
  readonly reads = new Counter({
    name: 'poolgraph_database_reads_total',
    help:
      'Queries with a standby configured, by the database they read from and why: replayed (standby), or recent_write, ' +
      'unreachable, lagging, retried, writes (primary)',
    labelNames: ['database', 'route'] as const,
    registers: [this.registry],
  });

  /** `databases`: the primary, and the standby that serves reads if there is one. */
  constructor(databases: { primary: { readonly statementCount: number }; standby?: { readonly statementCount: number } | null }) {
    const counted = Object.entries(databases).flatMap(([role, database]) => (database ? [{ role, database }] : []));
    const reported = counted.map(({ database }) => database.statementCount);
    new Counter({
      name: 'poolgraph_database_statements_total',
      help: 'SQL statements sent to the database, by database (primary, or the standby serving reads)',
      labelNames: ['database'] as const,
      registers: [this.registry],
      collect() {
        counted.forEach(({ role, database }, i) => {
          const now = database.statementCount;
          this.inc({ database: role }, now - reported[i]!);
          reported[i] = now;
        });
      },
    });
    // Connection strings of several hosts (a failover pair, db/hosts.ts): where each role connects now, and its switches.
    new Gauge({
      name: 'poolgraph_database_host',
      help: 'With a connection string of several hosts: 1 for the host each role (primary, standby) connects to now, 0 for the others',
      labelNames: ['role', 'host'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const target of hostTargets())
          for (const host of target.hosts) this.set({ role: target.role, host }, host === target.current ? 1 : 0);
      },
    });
    new Counter({
      name: 'poolgraph_database_host_changes_total',
      help: 'With a connection string of several hosts: times a role moved to another host (a failover seen by this process)',
      labelNames: ['role'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const target of hostTargets()) this.inc({ role: target.role }, target.changes);
      },
    });
    collectDefaultMetrics({ register: this.registry });
  }

  /** Counts the connections of `server` while they are open. */
  trackSockets(server: Server): void {
    server.on('connection', (socket) => {
      this.openSockets.inc();
      socket.once('close', () => this.openSockets.dec());
    });
  }

  /** Records one finished request, and its operation when it reached GraphQL. */
  observe(request: FastifyRequest, reply: FastifyReply, record: OperationRecord | undefined): void {
    const route = request.routeOptions.url ?? 'unmatched';
    const status = String(reply.statusCode);
    this.httpRequestTally.add(`${route} ${request.method} ${status}`, { route, method: request.method, status });
    if (!record) return;
    const operation = this.operationLabel(record.name);
    const type = record.type ?? 'unknown';
    const code = record.codes[0];
    const outcome = code === undefined ? 'ok' : CODE.test(code) ? code : 'OTHER';
    // Keys join label values with spaces: none of them holds one (routes, methods, names and codes are checked).
    this.operationTally.add(`${operation} ${type} ${outcome}`, { operation, type, outcome });
    if (record.rendered) this.renderedReadTally.add(operation, { operation });
    else if (record.renderFallback) this.renderFallbackTally.add(record.renderFallback, { reason: record.renderFallback });
    this.operationDuration.observe(`${operation} ${type}`, { operation, type }, reply.elapsedTime / 1000);
  }

  private operationLabel(name: string | null): string {
    if (name === null) return '(anonymous)';
    if (!NAME.test(name)) return '(other)';
    if (this.operationNames.has(name)) return name;
    if (this.operationNames.size >= MAX_OPERATION_NAMES) return '(other)';
    this.operationNames.add(name);
    return name;
  }
}

/** GET /metrics in Prometheus text format, behind a bearer token when one is configured. */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics, config: MetricsConfig): void {
  if (!config.enabled) return;
  const expected = config.token === null ? null : Buffer.from(`Bearer ${config.token}`);
  const authorized = (header: string | undefined) => {
    if (expected === null) return true;
    const given = Buffer.from(header ?? '');
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  app.get('/metrics', async (request, reply) => {
    if (!authorized(request.headers.authorization)) {
      return reply.code(401).header('www-authenticate', 'Bearer').send({ error: 'unauthorized' });
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
