import { type ApolloServer, HeaderMap, type HTTPGraphQLRequest } from '@apollo/server';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError } from 'graphql';
import { AppError } from '../../errors.js';
import type { GraphQLContext } from '../context.js';
import { EXPLORER_OFF_PAGE, explorerPage, wantsExplorer } from '../explorer.js';
import type { OperationRecord, OperationTracker } from '../logging.js';
import { formatRefusal } from './format-error.js';
import { responseMediaType } from './media-type.js';
import type { TrustedDocumentStore } from './persisted.js';
import { sendRefusal } from './refusals.js';

export interface GraphQLRouteOptions {
  path: string;
  apollo: ApolloServer<GraphQLContext>;
  tracker: OperationTracker;
  /** The credentials step: authenticates and builds the context of a request (throws to refuse). */
  context: (request: FastifyRequest, reply: FastifyReply, record: OperationRecord) => Promise<GraphQLContext>;
  /** Serve the explorer to browsers (with introspection). */
  explorer: boolean;
  /** With trusted documents on: refuses any other document before Apollo parses it. */
  trusted: TrustedDocumentStore | null;
  exposeInternals: boolean;
}

/**
 * GraphQL over HTTP at `path` (GET and POST), answered by Apollo Server's HTTP handler
 * (`executeHTTPGraphQLRequest`). Before it, what Apollo does not do or does too late: the
 * explorer page for a browser, an unacceptable `Accept` refused before anything runs, and
 * with trusted documents, any other document refused before it is parsed.
 */
export function registerGraphQLRoute(app: FastifyInstance, options: GraphQLRouteOptions): void {
  const { apollo, tracker, trusted, exposeInternals } = options;
  // Apollo's context function of a request. Returned rather than written in the call: a
  // function written as a property is given its name at every request under tsx (`npm start`).
  // Not async: a promise per request for nothing.
  const contextOf = (request: FastifyRequest, reply: FastifyReply) => () => {
    const record = tracker.start(request);
    return options.context(request, reply, record).catch((error: unknown) => {
      // Coded, with its status and Retry-After in `extensions.http` (where Apollo Server reads
      // them): Apollo's answer to a failed context is never a bare 500 "Context creation failed".
      const { error: refused, http } = formatRefusal(error, request.id, record, exposeInternals);
      throw new GraphQLError(refused.message, { extensions: { ...refused.extensions, http } });
    });
  };
  // Apollo's own fastify integration does the same, less cheaply: it parses the whole URL
  // (a `URL` per request) for its search string and copies the headers through
  // Object.entries; this measured 1.23x its rate on `{ __typename }` (bench/README.md).
  const answer = async (request: FastifyRequest, reply: FastifyReply) => {
    const response = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: graphQLRequestOf(request),
      context: contextOf(request, reply),
    });
    // Apollo answers in chunks only for incremental delivery (@defer, @stream), which graphql-js 16 does not execute.
    if (response.body.kind !== 'complete') throw new Error('Apollo Server answered incrementally');
    response.headers.forEach((value, name) => {
      reply.header(name, value);
    });
    return reply.code(response.status ?? 200).send(response.body.string);
  };
  app.route({
    method: ['GET', 'POST'],
    url: options.path,
    // One handler, no hook: what comes before Apollo costs a request nothing more than its
    // checks. Not async (fastify takes its throw as an async handler's rejection): the
    // answers sent here return nothing, Apollo's is the promise of `answer`.
    handler(request, reply) {
      const isGet = request.method === 'GET';
      if (isGet && wantsExplorer(request.headers.accept, request.query as Record<string, unknown>)) {
        // Where it is off (production), a browser is told so, not refused as a cross-site request.
        reply.type('text/html; charset=utf-8').send(options.explorer ? explorerPage(options.path) : EXPLORER_OFF_PAGE);
        return;
      }
      // Refused before anything runs: Apollo Server would refuse it only after executing.
      if (responseMediaType(request.headers.accept) === null) {
        sendRefusal(
          reply,
          new AppError('NOT_ACCEPTABLE', 'The Accept header allows neither application/graphql-response+json nor application/json'),
        );
        return;
      }
      if (trusted) refuseUntrusted(request, trusted);
      return answer(request, reply);
    },
  });
}

/** The request as Apollo reads it. */
function graphQLRequestOf(request: FastifyRequest): HTTPGraphQLRequest {
  const url = request.url;
  const question = url.indexOf('?');
  return {
    method: request.method,
    headers: new RequestHeaders(request.headers),
    body: request.body,
    search: question === -1 ? '' : url.slice(question),
  };
}

/**
 * The request's headers as Apollo Server reads them (a HeaderMap), not copied: Apollo reads
 * a few by name (the content type, the CSRF preflight headers, Accept), which `get` and
 * `has` find in fastify's own object, whose names are lower case already. A plugin that
 * lists or changes them gets them copied first, once.
 */
export class RequestHeaders extends HeaderMap {
  private copied = false;

  constructor(private readonly given: IncomingHttpHeaders) {
    super();
  }

  override get(name: string): string | undefined {
    if (this.copied) return super.get(name);
    const value = this.given[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  override has(name: string): boolean {
    return this.copied ? super.has(name) : this.given[name.toLowerCase()] !== undefined;
  }

  override get size(): number {
    this.copy();
    return super.size;
  }

  override set(name: string, value: string): this {
    this.copy();
    return super.set(name, value);
  }

  override delete(name: string): boolean {
    this.copy();
    return super.delete(name);
  }

  override clear(): void {
    this.copy();
    super.clear();
  }

  override forEach(callback: (value: string, key: string, map: Map<string, string>) => void, thisArg?: unknown): void {
    this.copy();
    super.forEach(callback, thisArg);
  }

  override entries(): MapIterator<[string, string]> {
    this.copy();
    return super.entries();
  }

  override keys(): MapIterator<string> {
    this.copy();
    return super.keys();
  }

  override values(): MapIterator<string> {
    this.copy();
    return super.values();
  }

  override [Symbol.iterator](): MapIterator<[string, string]> {
    this.copy();
    return super.entries();
  }

  /** Copies the headers into the map itself, once; from then on it is a plain HeaderMap. */
  private copy(): void {
    if (this.copied) return;
    this.copied = true;
    for (const name in this.given) {
      const value = this.given[name];
      if (value !== undefined) super.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
  }
}

/**
 * Throws UNTRUSTED_DOCUMENT (an AppError, answered by the refusal handler) unless the
 * request's document is a registered one, by its text or its hash. A POST naming a
 * registered document by `documentId` gets its text as `query`.
 */
function refuseUntrusted(request: FastifyRequest, trusted: TrustedDocumentStore): void {
  const isGet = request.method === 'GET';
  const source = (isGet ? parseGetSource(request.query as Record<string, unknown>) : request.body) as Record<string, unknown> | null;
  if (!source || typeof source !== 'object' || Array.isArray(source)) return; // Apollo refuses it as BAD_REQUEST
  const text = trusted.textOf(source);
  if (!isGet && source.query === undefined && source.documentId !== undefined) source.query = text;
}

/** A GET's document source: `extensions` comes JSON-encoded in the URL (unreadable: left to Apollo to refuse). */
function parseGetSource(query: Record<string, unknown>): Record<string, unknown> {
  if (typeof query.extensions !== 'string') return query;
  try {
    return { ...query, extensions: JSON.parse(query.extensions) };
  } catch {
    return { query: query.query };
  }
}
