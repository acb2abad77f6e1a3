import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OperationTypeNode } from 'graphql';

/** What one GraphQL request ran and how it ended, for its log line and its metrics. */
export interface OperationRecord {
  /** The operation's name; null for an anonymous one or one that never parsed. */
  name: string | null;
  /** query, mutation or subscription; null when the operation was never resolved. */
  type: OperationTypeNode | null;
  /** `extensions.code` of each error of the response, in order. */
  codes: string[];
  /** The errors that reached the client as INTERNAL_SERVER_ERROR, unmasked (for the log only). */
  internalErrors: unknown[];
  /** Answered by a rendered read (server/read-renderer.ts), without the executor. */
  rendered: boolean;
  /** A query the renderer left to the executor: why (RenderFallbackReason, server/read-renderer.ts); null otherwise. */
  renderFallback: string | null;
  /** The field the rendered read refused, as `Type.field`, where one was to blame. */
  renderFallbackField?: string;
  /** The error that made the renderer fall back, when one did (a failed statement): for the debug line only. */
  renderFallbackError?: unknown;
}

/** The record of an operation not yet resolved: filled in by the pipeline. */
export function newOperationRecord(): OperationRecord {
  return { name: null, type: null, codes: [], internalErrors: [], rendered: false, renderFallback: null };
}

const OPERATION_RECORD = Symbol('operation record');

/**
 * Keeps the record of each request that reaches the operation pipeline: created by the
 * transport, filled in by the pipeline, read once in the response hook, which writes one
 * log line per request (so one per operation: batching is off) and feeds the metrics.
 * The record is a property of the request rather than an entry of a WeakMap: every request
 * would add a key to the map's table and weak entries cost the collector more to trace.
 */
export class OperationTracker {
  /** A new record for `request`. */
  start(request: FastifyRequest): OperationRecord {
    const record = newOperationRecord();
    (request as unknown as Record<symbol, OperationRecord>)[OPERATION_RECORD] = record;
    return record;
  }

  /** The record of a request that reached the pipeline; undefined for any other. */
  recordOf(request: FastifyRequest): OperationRecord | undefined {
    return (request as unknown as Record<symbol, OperationRecord | undefined>)[OPERATION_RECORD];
  }
}

/** Liveness, readiness and scrapes are logged at debug level only: probes would drown the rest. */
const QUIET_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Writes the one line of a finished request: for GraphQL, its operation's name, type and
 * outcome (first error code, or ok), with the error itself at error level when the
 * client was shown INTERNAL_SERVER_ERROR. fastify's child logger adds `reqId`.
 */
export function logRequest(request: FastifyRequest, reply: FastifyReply, record: OperationRecord | undefined): void {
  if (record?.renderFallback) logRenderFallback(request, record);
  const level = !record
    ? QUIET_ROUTES.has(request.routeOptions.url ?? '') && reply.statusCode < 500
      ? 'debug'
      : 'info'
    : record.internalErrors.length
      ? 'error'
      : 'info';
  // The line is built only when it will be written (per request, so it counts).
  if ((request.log as { isLevelEnabled?(level: string): boolean }).isLevelEnabled?.(level) === false) return;
  const base = { method: request.method, url: request.url, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime) };
  if (!record) {
    request.log[level](base, 'request');
    return;
  }
  const line = {
    ...base,
    operation: record.name,
    operationType: record.type,
    outcome: record.codes[0] ?? 'ok',
    ...(record.rendered ? { rendered: true } : {}),
    ...(record.codes.length > 1 ? { codes: record.codes } : {}),
  };
  if (record.internalErrors.length) request.log.error({ ...line, err: record.internalErrors[0] }, 'graphql operation failed');
  else request.log.info(line, 'graphql operation');
}

/** A query the renderer left to the executor, at debug level: which operation, why, at which field, and the error if one made it so. */
function logRenderFallback(request: FastifyRequest, record: OperationRecord): void {
  if ((request.log as { isLevelEnabled?(level: string): boolean }).isLevelEnabled?.('debug') === false) return;
  const line = {
    operation: record.name,
    reason: record.renderFallback,
    ...(record.renderFallbackField ? { field: record.renderFallbackField } : {}),
    ...(record.renderFallbackError ? { err: record.renderFallbackError } : {}),
  };
  request.log.debug(line, 'rendered read fell back to execution');
}
