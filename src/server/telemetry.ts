/**
 * OpenTelemetry spans, one per GraphQL operation on every transport (POST and GET /graphql,
 * the REST form, graphql-ws), exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT (or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set. app.ts imports this module only then: unset,
 * nothing of OpenTelemetry is loaded or installed. docs/operations.md lists the attributes.
 */
import type { ApolloServerPlugin, GraphQLRequestContext, GraphQLRequestListener } from '@apollo/server';
import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type TracerProvider,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { GraphQLContext } from './context.js';
import { socketSubscriptions } from './pipeline/apollo.js';

/** The attributes of an operation's span besides OpenTelemetry's GraphQL ones (`graphql.operation.name`, `graphql.operation.type`). */
export const SPAN_ATTRIBUTES = {
  /** `http` (POST or GET /graphql), `rest` (a REST route's operation) or `websocket` (graphql-ws). */
  transport: 'poolgraph.transport',
  /** The request id, as the log line's `reqId` (over graphql-ws: `ws-<socket>-<operation id>`). */
  requestId: 'poolgraph.request_id',
  /** true: answered by a rendered read (statements writing the response JSON); false: executed by graphql-js. */
  rendered: 'poolgraph.rendered',
  /** A query the renderer left to the executor: why (RenderFallbackReason, server/read-renderer.ts). */
  renderFallback: 'poolgraph.render_fallback',
  /** The field the renderer refused, as `Type.field`, where one was to blame. */
  renderFallbackField: 'poolgraph.render_fallback_field',
  /** SQL statements the operation sent to the database. */
  statementCount: 'poolgraph.statement_count',
  /** `extensions.code` of each error of the answer, in order (only when there are errors). */
  errorCodes: 'poolgraph.error_codes',
} as const;

/** The span's name when the operation's type is not known (it did not parse, say), as OpenTelemetry's conventions name it. */
const UNRESOLVED = 'GraphQL Operation';

/**
 * Spans and their export when configured: a tracer provider of its own (never registered as
 * the process's global one), its spans batched to the OTLP endpoint and flushed when the app
 * closes. `exporter`: where spans go instead (tests).
 */
export function openTelemetry(
  app: FastifyInstance,
  config: Config['telemetry'],
  exporter: SpanExporter = new OTLPTraceExporter({ url: config.tracesEndpoint ?? undefined }),
): ApolloServerPlugin<GraphQLContext> {
  const tracerProvider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  // Registered before Apollo's stop (onClose hooks run last registered first): the spans of the last operations are ended, then sent.
  app.addHook('onClose', () =>
    tracerProvider.shutdown().catch((error: unknown) => app.log.warn({ err: error }, 'the last spans could not be exported')),
  );
  return operationSpans({ tracerProvider });
}

/**
 * The Apollo plugin that makes a span of each operation (the tests give it a provider with
 * an in-memory exporter): SERVER kind, from requestDidStart (after the credentials step) to
 * willSendResponse, named by OpenTelemetry's GraphQL conventions (`query`, `mutation`,
 * `subscription`, or `GraphQL Operation` for one that never resolved). A request carrying a
 * W3C `traceparent` header (HTTP and REST) gets its span as that trace's child. Over
 * graphql-ws a subscription's span is its subscribe (the checks up to its hand-over to the
 * socket), not its events. No variables, and no document, are recorded.
 */
export function operationSpans(options: { tracerProvider: TracerProvider }): ApolloServerPlugin<GraphQLContext> {
  const tracer = options.tracerProvider.getTracer('poolgraph');
  const propagator = new W3CTraceContextPropagator();
  // A span Apollo left unsent (a plugin threw: unexpectedErrorProcessingRequest), ended there.
  const open = new WeakMap<object, Span>();

  return {
    requestDidStart(rc) {
      const context = rc.contextValue;
      const http = rc.request.http;
      const transport = http ? 'http' : socketSubscriptions.has(context.transport) ? 'websocket' : 'rest';
      const attributes: Attributes = { [SPAN_ATTRIBUTES.transport]: transport, [SPAN_ATTRIBUTES.requestId]: context.transport.requestId };
      if (http) attributes['http.request.method'] = http.method;
      const { header } = context.transport;
      const headers = http
        ? (name: string) => http.headers.get(name)
        : header
          ? (name: string) => header.call(context.transport, name)
          : null;
      const parent = headers ? parentOf(propagator, headers) : ROOT_CONTEXT;
      const span = tracer.startSpan(UNRESOLVED, { kind: SpanKind.SERVER, attributes }, parent);
      // Not sampled: nothing to record.
      if (!span.isRecording()) return NOTHING;
      const scope = context.statements;
      const startedBefore = scope.started;
      open.set(rc, span);
      const listener: GraphQLRequestListener<GraphQLContext> = {
        willSendResponse(sent) {
          open.delete(rc);
          endSpan(span, sent, scope.started - startedBefore);
          return SETTLED;
        },
      };
      return Promise.resolve(listener);
    },

    unexpectedErrorProcessingRequest({ requestContext, error }) {
      const span = open.get(requestContext);
      if (span) {
        open.delete(requestContext);
        span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
        span.setAttribute('error.type', 'INTERNAL_SERVER_ERROR');
        span.end();
      }
      return SETTLED;
    },
  };
}

const SETTLED: Promise<void> = Promise.resolve();
const NOTHING: Promise<GraphQLRequestListener<GraphQLContext>> = Promise.resolve({});

/** Fills in what the operation turned out to be (poolgraph's plugin has written its record by now) and ends its span. */
function endSpan(span: Span, rc: GraphQLRequestContext<GraphQLContext>, statementCount: number): void {
  const type = rc.operation?.operation;
  if (type) {
    span.updateName(type);
    span.setAttribute('graphql.operation.type', type);
  }
  if (rc.operationName) span.setAttribute('graphql.operation.name', rc.operationName);
  const record = rc.contextValue.transport.record;
  span.setAttribute(SPAN_ATTRIBUTES.rendered, record?.rendered === true);
  if (record?.renderFallback) span.setAttribute(SPAN_ATTRIBUTES.renderFallback, record.renderFallback);
  if (record?.renderFallbackField) span.setAttribute(SPAN_ATTRIBUTES.renderFallbackField, record.renderFallbackField);
  span.setAttribute(SPAN_ATTRIBUTES.statementCount, statementCount);
  const body = rc.response.body;
  // What the client was answered: the errors as formatted, each with its catalogue code.
  const errors = body?.kind === 'single' ? body.singleResult.errors : body?.initialResult.errors;
  if (errors?.length) {
    const codes = errors.map((error) => String(error.extensions?.code ?? 'INTERNAL_SERVER_ERROR'));
    span.setAttribute(SPAN_ATTRIBUTES.errorCodes, codes);
    span.setAttribute('error.type', codes[0]!);
    span.setStatus({ code: SpanStatusCode.ERROR, message: errors[0]!.message });
  }
  span.end();
}

/** A header by its (lower case) name. */
type HeaderOf = (name: string) => string | undefined;

const HEADER_GETTER: TextMapGetter<HeaderOf> = {
  get: (headerOf, name) => headerOf(name),
  keys: () => ['traceparent', 'tracestate'],
};

/** The trace a request continues (its `traceparent`, W3C trace context), or none. */
function parentOf(propagator: W3CTraceContextPropagator, headerOf: HeaderOf): Context {
  if (headerOf('traceparent') === undefined) return ROOT_CONTEXT;
  return propagator.extract(ROOT_CONTEXT, headerOf, HEADER_GETTER);
}
