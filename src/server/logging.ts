import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLFormattedError, OperationTypeNode } from 'graphql';
import type { GraphQLContext } from './context.js';

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
}

/**
 * Follows each GraphQL request from its context to its response: the record is created
 * with the context, filled in by {@link OperationTracker.plugin}, and read once in the
 * response hook, which writes one log line per request (so one per operation: batching
 * is off) and feeds the metrics. Uncoded errors are logged here with their request id,
 * and the id is put into their masked response (`extensions.requestId`).
 */
export class OperationTracker {
  private readonly byRequest = new WeakMap<FastifyRequest, OperationRecord>();
  /** Keyed by the context's transport: Apollo runs each operation on a shallow copy of the context. */
  private readonly byTransport = new WeakMap<object, OperationRecord>();

  /** Builds a request's context through `factory`, keeping a record for it. */
  async track(request: FastifyRequest, factory: () => Promise<GraphQLContext>): Promise<GraphQLContext> {
    const record: OperationRecord = { name: null, type: null, codes: [], internalErrors: [] };
    this.byRequest.set(request, record);
    try {
      const context = await factory();
      this.byTransport.set(context.transport, record);
      return context;
    } catch (error) {
      const code = (error as { extensions?: { code?: unknown } }).extensions?.code;
      if (typeof code === 'string') record.codes.push(code);
      else record.internalErrors.push(error);
      throw error;
    }
  }

  /** The record of a request that reached GraphQL; undefined for any other. */
  recordOf(request: FastifyRequest): OperationRecord | undefined {
    return this.byRequest.get(request);
  }

  plugin(): ApolloServerPlugin<GraphQLContext> {
    const byTransport = this.byTransport;
    return {
      async requestDidStart({ contextValue, request }) {
        const record = byTransport.get(contextValue.transport);
        if (!record) return;
        record.name = request.operationName ?? null;
        return {
          async didResolveOperation({ operation, operationName }) {
            record.name = operationName;
            record.type = operation?.operation ?? null;
          },
          async willSendResponse({ response, errors }) {
            if (response.body.kind !== 'single' || !response.body.singleResult.errors) return;
            const formatted = response.body.singleResult.errors;
            record.codes = formatted.map((error) => String(error.extensions?.code ?? 'INTERNAL_SERVER_ERROR'));
            let masked: GraphQLFormattedError[] | undefined;
            formatted.forEach((error, index) => {
              if (error.extensions?.code !== 'INTERNAL_SERVER_ERROR') return;
              record.internalErrors.push(errors?.[index] ? unwrapResolverError(errors[index]) : error);
              masked ??= [...formatted];
              masked[index] = { ...error, extensions: { ...error.extensions, requestId: contextValue.transport.requestId } };
            });
            if (masked) response.body.singleResult.errors = masked;
          },
        };
      },
    };
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
  const base = { method: request.method, url: request.url, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime) };
  if (!record) {
    const quiet = QUIET_ROUTES.has(request.routeOptions.url ?? '') && reply.statusCode < 500;
    request.log[quiet ? 'debug' : 'info'](base, 'request');
    return;
  }
  const line = {
    ...base,
    operation: record.name,
    operationType: record.type,
    outcome: record.codes[0] ?? 'ok',
    ...(record.codes.length > 1 ? { codes: record.codes } : {}),
  };
  if (record.internalErrors.length) request.log.error({ ...line, err: record.internalErrors[0] }, 'graphql operation failed');
  else request.log.info(line, 'graphql operation');
}
