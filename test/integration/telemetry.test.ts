import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createApp } from '../../src/server/app.js';
import { operationSpans, SPAN_ATTRIBUTES as A } from '../../src/server/telemetry.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { listen, socketClient, type SocketClient, Subscription } from '../support/sockets.js';

const READ = 'query PoolsPage { pools(first: 3) { nodes { id title } } }';
const STREAK_ID = '00000000-0000-4000-8000-000000000000';
// Fails in execution with a catalogue code: only a signed-in viewer has streak details.
const FAILING = `query StreakDetails { streakUserDetails(streakId: "${STREAK_ID}") { currentStreakCount } }`;
/** The operations a REST route runs for the documents above (its own document and name). */
const REST_OF: Record<string, { url: string; name: string }> = {
  [READ]: { url: '/pools?limit=3', name: 'RestListPools' },
  [FAILING]: { url: `/streak/user-details?streak_id=${STREAK_ID}`, name: 'RestStreakUserDetails' },
};
const NAME_OF: Record<string, string> = { [READ]: 'PoolsPage', [FAILING]: 'StreakDetails' };

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;

type Send = (app: FastifyInstance, socket: SocketClient, query: string, headers: Record<string, string>) => Promise<unknown>;
const transports: Record<string, { attribute: string; method?: string; send: Send; propagates: boolean }> = {
  'POST /graphql': {
    attribute: 'http',
    method: 'POST',
    propagates: true,
    send: (app, _socket, query, headers) =>
      app.inject({ method: 'POST', url: '/graphql', payload: { query }, headers }).then((response) => response.json()),
  },
  'GET /graphql': {
    attribute: 'http',
    method: 'GET',
    propagates: true,
    send: (app, _socket, query, headers) =>
      app
        .inject({
          method: 'GET',
          url: `/graphql?query=${encodeURIComponent(query)}`,
          headers: { 'apollo-require-preflight': 'true', ...headers },
        })
        .then((response) => response.json()),
  },
  REST: {
    attribute: 'rest',
    propagates: true,
    send: (app, _socket, query, headers) => app.inject({ url: REST_OF[query]!.url, headers }).then((response) => response.json()),
  },
  'graphql-ws': {
    attribute: 'websocket',
    // A socket's operations carry no headers of their own.
    propagates: false,
    send: async (_app, socket, query) => {
      const subscription = new Subscription(socket.client, query);
      await subscription.waitForEnd();
      return subscription.results[0];
    },
  },
};

/** A stand-in collector: records every request's method, path, content type and body. */
async function startCollector(): Promise<{
  url: string;
  received: Array<{ method: string; path: string; type: string; body: string }>;
  server: Server;
}> {
  const received: Array<{ method: string; path: string; type: string; body: string }> = [];
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method!,
        path: request.url!,
        type: String(request.headers['content-type']),
        body: Buffer.concat(chunks).toString(),
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, server };
}

describe.each(backends)('OpenTelemetry spans of operations, on %s', (kind) => {
  let t: TestApp;
  const servers: Array<{ rendering: boolean; app: FastifyInstance; socket: SocketClient; exporter: InMemorySpanExporter }> = [];
  beforeAll(async () => {
    t = await startEmptyTestApp(kind);
    for (let i = 0; i < 4; i++) await t.seed.user().withPool({ title: `Traced ${i}` });
    for (const rendering of [true, false]) {
      const exporter = new InMemorySpanExporter();
      const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
      const config = testConfig({ RENDERED_READS: String(rendering) });
      const app = await createApp({ config, database: t.database, plugins: [operationSpans({ tracerProvider })] });
      const socket = socketClient(await listen({ app }));
      await socket.connected;
      servers.push({ rendering, app, socket, exporter });
    }
  });
  afterAll(async () => {
    for (const { app, socket } of servers) {
      await socket.dispose();
      await app.close();
    }
    await t.close();
  });

  /** The one span a request made, and the statements the database counted while it ran. */
  async function spanOf(exporter: InMemorySpanExporter, send: () => Promise<unknown>): Promise<{ span: ReadableSpan; statements: number }> {
    exporter.reset();
    const statements = await t.countStatements(send);
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(1);
    return { span: spans[0]!, statements };
  }

  for (const [name, transport] of Object.entries(transports)) {
    for (const rendering of [true, false]) {
      const mode = rendering ? 'rendered' : 'executed';
      it(`over ${name}, a ${mode} read: a query span with its name, transport, rendered and statements`, async () => {
        const { app, socket, exporter } = servers.find((server) => server.rendering === rendering)!;
        const { span, statements } = await spanOf(exporter, () => transport.send(app, socket, READ, {}));
        expect(span.name).toBe('query');
        expect(span.kind).toBe(SpanKind.SERVER);
        expect(span.status.code).toBe(SpanStatusCode.UNSET);
        expect(statements).toBeGreaterThan(0);
        expect(span.attributes).toEqual({
          'graphql.operation.type': 'query',
          'graphql.operation.name': transport.attribute === 'rest' ? REST_OF[READ]!.name : NAME_OF[READ],
          [A.transport]: transport.attribute,
          [A.requestId]: expect.any(String),
          [A.rendered]: rendering,
          [A.statementCount]: statements,
          ...(transport.method ? { 'http.request.method': transport.method } : {}),
        });
        expect(span.parentSpanContext).toBeUndefined();
        expect(span.endTime[0] * 1e9 + span.endTime[1]).toBeGreaterThan(span.startTime[0] * 1e9 + span.startTime[1]);
      });

      it(`over ${name}, a ${mode} read that fails with a code: status ERROR, the codes`, async () => {
        const { app, socket, exporter } = servers.find((server) => server.rendering === rendering)!;
        const { span, statements } = await spanOf(exporter, () => transport.send(app, socket, FAILING, {}));
        expect(span.name).toBe('query');
        expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: expect.stringMatching(/sign/i) });
        expect(span.attributes).toMatchObject({
          'graphql.operation.name': transport.attribute === 'rest' ? REST_OF[FAILING]!.name : NAME_OF[FAILING],
          [A.transport]: transport.attribute,
          [A.rendered]: false,
          [A.statementCount]: statements,
          [A.errorCodes]: ['UNAUTHENTICATED'],
          'error.type': 'UNAUTHENTICATED',
        });
      });
    }

    if (transport.propagates) {
      it(`over ${name}, a request's traceparent: its span is that trace's child`, async () => {
        const { app, socket, exporter } = servers[0]!;
        const { span } = await spanOf(exporter, () => transport.send(app, socket, READ, { traceparent: TRACEPARENT }));
        expect(span.spanContext().traceId).toBe(TRACE_ID);
        expect(span.parentSpanContext).toMatchObject({ traceId: TRACE_ID, spanId: PARENT_ID, isRemote: true });
        expect(span.attributes[A.rendered]).toBe(true);
      });
    }
  }

  it('a request without traceparent starts a trace of its own; each its own', async () => {
    const { app, socket, exporter } = servers[0]!;
    const first = await spanOf(exporter, () => transports['POST /graphql']!.send(app, socket, READ, {}));
    const second = await spanOf(exporter, () => transports['POST /graphql']!.send(app, socket, READ, {}));
    expect(first.span.spanContext().traceId).not.toBe(second.span.spanContext().traceId);
  });

  it('a subscription over graphql-ws: a span for its subscribe', async () => {
    const { socket, exporter } = servers[0]!;
    exporter.reset();
    const subscription = new Subscription(socket.client, 'subscription PoolsCreated { poolCreated { id } }');
    await expect.poll(() => exporter.getFinishedSpans().length).toBe(1);
    subscription.unsubscribe();
    const [span] = exporter.getFinishedSpans();
    expect(span!.name).toBe('subscription');
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
    expect(span!.attributes).toMatchObject({
      'graphql.operation.type': 'subscription',
      'graphql.operation.name': 'PoolsCreated',
      [A.transport]: 'websocket',
      [A.rendered]: false,
    });
  });

  it('with the OTLP endpoint set, spans are exported to the collector, at /v1/traces, flushed when the app closes', async () => {
    const collector = await startCollector();
    try {
      const config = testConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'poolgraph-under-test' });
      const app = await createApp({ config, database: t.database });
      let statements = 0;
      for (let i = 0; i < 3; i++) {
        statements += await t.countStatements(async () => {
          const response = await app.inject({
            method: 'POST',
            url: '/graphql',
            payload: { query: READ },
            headers: { traceparent: TRACEPARENT },
          });
          expect(response.json().data.pools.nodes).toHaveLength(3);
        });
      }
      // The spans wait in the batch (5 s) unless the app's close sends them.
      await app.close();
      const posts = collector.received.filter((request) => request.method === 'POST' && request.path === '/v1/traces');
      expect(posts.length).toBeGreaterThan(0);
      expect(posts.length).toBe(collector.received.length);
      for (const post of posts) expect(post.type).toMatch(/^application\/json/);
      const spans = posts.flatMap((post) => {
        const body = JSON.parse(post.body) as {
          resourceSpans: Array<{
            resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
            scopeSpans: Array<{
              spans: Array<{ name: string; traceId: string; parentSpanId: string; attributes: Array<{ key: string; value: unknown }> }>;
            }>;
          }>;
        };
        return body.resourceSpans.flatMap((resourceSpans) => {
          expect(resourceSpans.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'poolgraph-under-test' } });
          return resourceSpans.scopeSpans.flatMap((scope) => scope.spans);
        });
      });
      expect(spans).toHaveLength(3);
      for (const span of spans) {
        expect(span.name).toBe('query');
        expect(span.traceId).toBe(TRACE_ID);
        expect(span.parentSpanId).toBe(PARENT_ID);
        expect(span.attributes).toContainEqual({ key: 'graphql.operation.name', value: { stringValue: 'PoolsPage' } });
        expect(span.attributes).toContainEqual({ key: A.rendered, value: { boolValue: true } });
      }
      const counted = spans.map((span) =>
        Number((span.attributes.find(({ key }) => key === A.statementCount)?.value as { intValue: unknown }).intValue),
      );
      expect(counted.reduce((sum, count) => sum + count, 0)).toBe(statements);
    } finally {
      await new Promise((resolve) => collector.server.close(resolve));
    }
  });

  it('a document that does not parse: a span named GraphQL Operation, with its code', async () => {
    const { app, socket, exporter } = servers[0]!;
    const { span } = await spanOf(exporter, () => transports['POST /graphql']!.send(app, socket, '{ pools(', {}));
    expect(span.name).toBe('GraphQL Operation');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes[A.errorCodes]).toEqual(['GRAPHQL_PARSE_FAILED']);
    expect(span.attributes['graphql.operation.type']).toBeUndefined();
  });
});

describe('the OTLP endpoint setting', () => {
  it('is read from OpenTelemetry’s variables: the traces endpoint as it is, else the endpoint and /v1/traces; a bad URL stops the start', () => {
    expect(testConfig().telemetry).toEqual({ tracesEndpoint: null, serviceName: 'poolgraph' });
    expect(testConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).telemetry.tracesEndpoint).toBe(
      'http://collector:4318/v1/traces',
    );
    expect(testConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector/otlp/' }).telemetry.tracesEndpoint).toBe(
      'https://collector/otlp/v1/traces',
    );
    expect(
      testConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:9999/in' })
        .telemetry,
    ).toEqual({ tracesEndpoint: 'http://traces:9999/in', serviceName: 'poolgraph' });
    let problems: string[] = [];
    try {
      loadConfig({ POOLGRAPH_MODE: 'test', OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' });
    } catch (error) {
      problems = (error as ConfigError).problems;
    }
    expect(problems).toEqual([
      'OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL (the collector\'s OTLP/HTTP receiver), got "collector:4318"',
    ]);
  });
});
