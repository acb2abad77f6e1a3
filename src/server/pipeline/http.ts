import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import type { GraphQLContext } from '../context.js';
import { explorerPage, wantsExplorer } from '../explorer.js';
import type { OperationTracker } from '../logging.js';
import { errorBody } from './refusals.js';
import type { OperationInput, OperationPipeline, OperationResult } from './operation.js';

export const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json; charset=utf-8';
export const APPLICATION_JSON = 'application/json; charset=utf-8';

/** Content types a browser may send cross-site without a preflight. */
const SIMPLE_CONTENT_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);
/** Headers whose presence proves a preflighted (or non-browser) request, as Apollo Server asks. */
const PREFLIGHT_HEADERS = ['x-apollo-operation-name', 'apollo-require-preflight'];

/**
 * The response's media type from `Accept` (GraphQL over HTTP): application/json when
 * absent or on a tie, application/graphql-response+json when preferred; null when the
 * client accepts neither.
 */
export function chooseMediaType(accept: string | undefined): string | null {
  if (!accept) return APPLICATION_JSON;
  // Clients send the same few Accept headers: each is parsed once (a bounded number kept).
  const known = mediaTypeByAccept.get(accept);
  if (known !== undefined) return known;
  const chosen = parseAccept(accept);
  if (mediaTypeByAccept.size < MEDIA_TYPES_KEPT) mediaTypeByAccept.set(accept, chosen);
  return chosen;
}

const MEDIA_TYPES_KEPT = 256;
const mediaTypeByAccept = new Map<string, string | null>();

function parseAccept(accept: string): string | null {
  let best: { type: string; q: number; exact: boolean } | null = null;
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!(q > 0)) continue;
    const candidates =
      range === 'application/graphql-response+json' ? [GRAPHQL_RESPONSE_JSON]
      : range === 'application/json' ? [APPLICATION_JSON]
      : range === '*/*' || range === 'application/*' ? [APPLICATION_JSON]
      : [];
    for (const type of candidates) {
      const exact = range !== '*/*' && range !== 'application/*';
      if (!best || q > best.q || (q === best.q && exact && !best.exact)) best = { type, q, exact };
    }
  }
  return best?.type ?? null;
}

/**
 * CSRF prevention, Apollo Server's rule: a request a browser could send cross-site without
 * a preflight (no content type, or a simple one) runs only with a preflight header.
 */
function isCsrfSafe(request: FastifyRequest): boolean {
  const contentType = request.headers['content-type'];
  if (contentType !== undefined && !SIMPLE_CONTENT_TYPES.has(contentType.split(';', 1)[0]!.trim().toLowerCase())) return true;
  return PREFLIGHT_HEADERS.some((name) => {
    const value = request.headers[name];
    return typeof value === 'string' && value.length > 0;
  });
}

/** A GET's parameters: `variables` and `extensions` come JSON-encoded in the URL. */
function inputOfGet(query: Record<string, unknown>): OperationInput {
  const json = (name: string, value: unknown) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value);
    } catch {
      throw new AppError('BAD_REQUEST', `The \`${name}\` parameter is not valid JSON`);
    }
  };
  return { query: query.query, operationName: query.operationName, variables: json('variables', query.variables), extensions: json('extensions', query.extensions) };
}

function inputOfPost(body: unknown): OperationInput {
  if (Array.isArray(body)) throw new AppError('BAD_REQUEST', 'Operation batching is disabled: send one operation per request');
  if (!body || typeof body !== 'object') throw new AppError('BAD_REQUEST', 'The request body must be a JSON object with a `query`');
  return body as OperationInput;
}

export interface GraphQLRouteOptions {
  path: string;
  pipeline: OperationPipeline;
  tracker: OperationTracker;
  context: (request: FastifyRequest, reply: FastifyReply) => Promise<GraphQLContext>;
  /** Serve the explorer to browsers (with introspection). */
  explorer: boolean;
  budgetMs: number;
}

/**
 * Writes a pipeline result as the HTTP response, encoded once: JSON.stringify builds a large
 * body as a rope of parts, which sending it as a string would flatten (for Content-Length)
 * and then encode again; a rendered read's pieces are encoded one after the other.
 */
export function sendResult(reply: FastifyReply, result: OperationResult, mediaType: string): FastifyReply {
  const body = result.text ? encodePieces(result.text) : Buffer.from(JSON.stringify(result.body));
  return reply.code(result.status).headers(result.headers).type(mediaType).send(body);
}

/**
 * A rendered read's pieces (the rows' JSON as the driver decoded them) encoded into one
 * Buffer: joining them first would copy the whole body into a new string, then encode it.
 */
function encodePieces(pieces: readonly string[]): Buffer {
  let length = 0;
  for (const piece of pieces) length += Buffer.byteLength(piece);
  const body = Buffer.allocUnsafe(length);
  let offset = 0;
  for (const piece of pieces) offset += body.write(piece, offset);
  return body;
}

/** Answers a request refused before the pipeline (Accept, CSRF, parameters) in the pipeline's error shape. */
function refuse(reply: FastifyReply, mediaType: string | null, error: AppError): FastifyReply {
  return reply.code(error.status).type(mediaType ?? APPLICATION_JSON).send(JSON.stringify(errorBody(error)));
}

/** GraphQL over HTTP at `path`: GET (queries only) and POST, through the pipeline. */
export function registerGraphQLRoute(app: FastifyInstance, options: GraphQLRouteOptions): void {
  const { pipeline, tracker } = options;
  app.route({
    method: ['GET', 'POST'],
    url: options.path,
    async handler(request, reply) {
      const isGet = request.method === 'GET';
      if (isGet && options.explorer && wantsExplorer(request.headers.accept, request.query as Record<string, unknown>)) {
        return reply.type('text/html; charset=utf-8').send(explorerPage(options.path));
      }
      const mediaType = chooseMediaType(request.headers.accept);
      if (!mediaType) return refuse(reply, null, new AppError('NOT_ACCEPTABLE', 'The Accept header allows neither application/graphql-response+json nor application/json'));
      if (!isCsrfSafe(request)) {
        return refuse(
          reply,
          mediaType,
          new AppError(
            'BAD_REQUEST',
            'This operation has been blocked as a potential Cross-Site Request Forgery (CSRF). Send a Content-Type other than ' +
              'application/x-www-form-urlencoded, multipart/form-data or text/plain, or a non-empty x-apollo-operation-name or apollo-require-preflight header',
          ),
        );
      }
      let input: OperationInput;
      try {
        input = isGet ? inputOfGet(request.query as Record<string, unknown>) : inputOfPost(request.body);
      } catch (error) {
        return refuse(reply, mediaType, error as AppError);
      }
      const result = await pipeline.run(input, {
        requestId: request.id,
        record: tracker.start(request),
        context: () => options.context(request, reply),
        allowMutations: !isGet,
        budgetMs: options.budgetMs,
        acceptsText: true,
      });
      return sendResult(reply, result, mediaType);
    },
  });
}
