/**
 * Apollo Server's class as poolgraph runs it: from its CommonJS build, with the one function
 * of its execution phase that made every request's objects outlive it replaced, and what it
 * computes anew at every request from the same few inputs kept: the hashes of the query texts
 * it has seen (see {@link KeptDigest}), the CSRF verdict per Content-Type, and the media type
 * negotiated per Accept header.
 *
 * Why: Apollo Server (5.5.1) hands a gateway executor (our planned read, planned-read.ts)
 * a context made by `makeGatewayGraphQLRequestContext`, whose `response.http` is an object
 * literal with a `status` getter and setter closing over the whole request. V8 keeps such
 * accessors in its old generation, so each request's objects (Apollo's request context, ours,
 * fastify's request and reply) stay reachable from there until the next full collection:
 * every young-generation collection copied and promoted them. Measured on `{ __typename }`:
 * 1.6 MB promoted per young collection against 42 KB, and 2.2x the CPU per request of the
 * same operation answered without the execution phase. The replacement builds the same
 * context from classes (the accessors on a prototype, the request reached through a field):
 * the same fields, the same reads and writes through to Apollo's response.
 *
 * Only the CommonJS build can be given them: its modules call each other through their
 * exports objects, where ECMAScript modules' bindings are fixed. Every other import of
 * `@apollo/server` (types, HeaderMap, plugins) may come from either build: Apollo checks
 * headers as a Map and plugins as plain objects. Each function is looked up by its file, so
 * an upgrade of Apollo Server that moves one fails here, at start, rather than running
 * slowly unnoticed; test/unit/apollo-server.test.ts holds that the executor gets this context.
 */
import { createHash, type Hash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Apollo from '@apollo/server';
import type { GraphQLRequestContext } from '@apollo/server';
import type { GatewayGraphQLRequestContext } from '@apollo/server-gateway-interface';
import { KeptValues } from './kept-values.js';

const require = createRequire(import.meta.url);
const entry = require.resolve('@apollo/server');
const apollo = require(entry) as typeof Apollo;

interface GatewayContextModule {
  makeGatewayGraphQLRequestContext: typeof gatewayRequestContext;
}
const gatewayContextFile = join(dirname(entry), 'utils', 'makeGatewayGraphQLRequestContext.js');
const gatewayContextModule = require(gatewayContextFile) as GatewayContextModule;
if (typeof gatewayContextModule.makeGatewayGraphQLRequestContext !== 'function')
  throw new Error(
    `Apollo Server's ${gatewayContextFile} no longer exports makeGatewayGraphQLRequestContext: see src/server/pipeline/apollo-server.ts`,
  );
gatewayContextModule.makeGatewayGraphQLRequestContext = gatewayRequestContext;

interface CreateHashModule {
  createHash: (kind: string) => { update(data: string | Buffer): unknown; digest(encoding: string): string };
}
const createHashFile = require.resolve('@apollo/utils.createhash', { paths: [dirname(entry)] });
const createHashModule = require(createHashFile) as CreateHashModule;
if (typeof createHashModule.createHash !== 'function')
  throw new Error(`${createHashFile} no longer exports createHash: see src/server/pipeline/apollo-server.ts`);
createHashModule.createHash = (kind) => new KeptDigest(kind);

/**
 * Apollo's CSRF check (preventCsrf.js), with the essence of each content type kept: Apollo
 * parses the request's Content-Type with whatwg-mimetype at every request (about 5 µs, 2 %
 * of `{ __typename }`'s CPU) to ask whether a browser could send it without a preflight, and
 * a service sees a handful of values. The rule is Apollo's, word for word: a content type
 * that does not parse, or is not one of the three a form can send, needs no header; else
 * one of the preflight headers must be non-empty.
 */
interface PreventCsrfModule {
  preventCsrf: (headers: HeaderMap, requiredHeaders: string[]) => void;
}
const preventCsrfFile = join(dirname(entry), 'preventCsrf.js');
const preventCsrfModule = require(preventCsrfFile) as PreventCsrfModule;
const apolloPreventCsrf = preventCsrfModule.preventCsrf;
if (typeof apolloPreventCsrf !== 'function')
  throw new Error(`Apollo Server's ${preventCsrfFile} no longer exports preventCsrf: see src/server/pipeline/apollo-server.ts`);
const NON_PREFLIGHTED_CONTENT_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);
const MimeType = require(require.resolve('whatwg-mimetype', { paths: [dirname(entry)] })) as {
  parse(text: string): { essence: string } | null;
};
const simpleContentTypes = new KeptValues<boolean>();
const isSimpleContentType = (contentType: string) => {
  const essence = MimeType.parse(contentType)?.essence;
  return essence !== undefined && NON_PREFLIGHTED_CONTENT_TYPES.has(essence);
};
preventCsrfModule.preventCsrf = (headers, requiredHeaders) => {
  const contentType = headers.get('content-type');
  if (contentType !== undefined && !simpleContentTypes.of(contentType, () => isSimpleContentType(contentType))) return;
  // Apollo's own check words the refusal.
  apolloPreventCsrf(headers, requiredHeaders);
};

/**
 * Apollo's incremental-delivery check (requestPipeline.js) builds a Negotiator of the
 * request's Accept header before every execution, and negotiator parses the header anew at
 * every call (about 7 µs, 3 % of `{ __typename }`'s CPU). The answer of `mediaType` depends
 * only on the header and the types offered, so it is kept per both: the same answer, for
 * Apollo and for anything else in the process that negotiates a media type.
 */
interface NegotiatorClass {
  prototype: { request: { headers: { accept?: string } }; mediaType(available?: string[]): string | undefined };
}
const Negotiator = require(require.resolve('negotiator', { paths: [dirname(entry)] })) as NegotiatorClass;
const negotiateMediaType = Negotiator.prototype.mediaType;
if (typeof negotiateMediaType !== 'function')
  throw new Error('negotiator no longer has mediaType: see src/server/pipeline/apollo-server.ts');
/**
 * The answers kept for one list of media types offered, found by its types in order (the lists are the code's constants, so
 * a few; a key joined from them and the header cost a string built and hashed at every call, 1.4 % of `{ __typename }`'s CPU).
 */
class MediaTypesOffered {
  readonly then = new Map<string, MediaTypesOffered>();
  readonly byAccept = new KeptValues<string | undefined>();
}
const offered = new MediaTypesOffered();
Negotiator.prototype.mediaType = function keptMediaType(available) {
  if (!available) return negotiateMediaType.call(this, available);
  let kept = offered;
  for (const type of available) {
    let next = kept.then.get(type);
    if (!next) kept.then.set(type, (next = new MediaTypesOffered()));
    kept = next;
  }
  // negotiator reads a missing header as */* and an empty one as accepting nothing.
  const accept = this.request.headers.accept;
  return kept.byAccept.of(accept === undefined ? '*/*' : accept, () => negotiateMediaType.call(this, available));
};

export const ApolloServer = apollo.ApolloServer;
export type ApolloServer<TContext extends Apollo.BaseContext> = Apollo.ApolloServer<TContext>;

type HeaderMap = Apollo.HeaderMap;

/** Apollo's request context as its execution phase has it (the fields the gateway context copies). */
type RequestContext = GraphQLRequestContext<Apollo.BaseContext> & {
  document: NonNullable<GraphQLRequestContext<Apollo.BaseContext>['document']>;
  operation: NonNullable<GraphQLRequestContext<Apollo.BaseContext>['operation']>;
};

/**
 * What Apollo's makeGatewayGraphQLRequestContext returns, field for field: the request's
 * query, operation name, variables and extensions where given, its HTTP method, a URL
 * carrying its search string and its headers; the response's headers and status, read and
 * written through to Apollo's response.
 */
export function gatewayRequestContext(
  requestContext: RequestContext,
  server: { logger: GatewayGraphQLRequestContext['logger']; cache: GatewayGraphQLRequestContext['cache'] },
  internals: { includeStacktraceInErrorResponses?: boolean },
): GatewayGraphQLRequestContext {
  const given = requestContext.request;
  const request: GatewayGraphQLRequestContext['request'] = {};
  if ('query' in given) request.query = given.query;
  if ('operationName' in given) request.operationName = given.operationName;
  if ('variables' in given) request.variables = given.variables;
  if ('extensions' in given) request.extensions = given.extensions;
  if (given.http) {
    const search = given.http.search;
    const needQuestion = search !== '' && !search.startsWith('?');
    request.http = {
      method: given.http.method,
      url: `https://unknown-url.invalid/${needQuestion ? '?' : ''}${search}`,
      headers: new FetcherHeaders(given.http.headers),
    };
  }
  return {
    request,
    response: { http: new ResponseHead(requestContext.response.http) },
    logger: server.logger,
    schema: requestContext.schema,
    schemaHash: 'schemaHash no longer exists since Apollo Server 4' as GatewayGraphQLRequestContext['schemaHash'],
    context: requestContext.contextValue,
    cache: server.cache,
    queryHash: requestContext.queryHash!,
    document: requestContext.document,
    source: requestContext.source!,
    operationName: requestContext.operationName ?? null,
    operation: requestContext.operation,
    errors: requestContext.errors,
    metrics: requestContext.metrics,
    debug: internals.includeStacktraceInErrorResponses,
    overallCachePolicy: requestContext.overallCachePolicy,
    requestIsBatched: requestContext.requestIsBatched,
  };
}

/** Apollo's response head seen as the gateway interface's: its status read and written through. */
class ResponseHead {
  readonly headers: FetcherHeaders;

  constructor(private readonly head: { headers: HeaderMap; status?: number }) {
    this.headers = new FetcherHeaders(head.headers);
  }

  get status(): number | undefined {
    return this.head.status;
  }

  set status(status: number | undefined) {
    this.head.status = status;
  }
}

/** A HeaderMap seen as the Fetch API's Headers (the gateway interface's FetcherHeaders), as Apollo's own adapter does. */
class FetcherHeaders {
  constructor(private readonly map: HeaderMap) {}

  append(name: string, value: string): void {
    const existing = this.map.get(name);
    this.map.set(name, existing === undefined ? value : `${existing}, ${value}`);
  }

  delete(name: string): void {
    this.map.delete(name);
  }

  get(name: string): string | null {
    return this.map.get(name) ?? null;
  }

  has(name: string): boolean {
    return this.map.has(name);
  }

  set(name: string, value: string): void {
    this.map.set(name, value);
  }

  entries(): Iterator<[string, string]> {
    return this.map.entries();
  }

  keys(): Iterator<string> {
    return this.map.keys();
  }

  values(): Iterator<string> {
    return this.map.values();
  }

  [Symbol.iterator](): Iterator<[string, string]> {
    return this.map.entries();
  }
}

/** The characters of query texts whose hashes are kept; past it, the kept ones are dropped and keeping starts again. */
const KEPT_TEXT_CHARACTERS = 1_000_000;
const keptHashes = new Map<string, Map<string, string>>();
let keptCharacters = 0;

/**
 * What Apollo's `createHash` (@apollo/utils.createhash) returns, for every use Apollo makes
 * of it: Apollo hashes each request's query text (sha256, its parsed-document cache key), and
 * its createHash requires Node's crypto module at every call. About 13 µs a request, 4 % of
 * `{ __typename }`'s CPU, for the same few texts again and again: a text hashed whole (one
 * string, hex) takes its kept hash; anything else is Node's hash of what was given.
 */
export class KeptDigest {
  private readonly parts: Array<string | Buffer> = [];

  constructor(private readonly kind: string) {}

  update(data: string | Buffer): this {
    this.parts.push(data);
    return this;
  }

  digest(encoding: string): string {
    const only = this.parts[0];
    if (this.parts.length !== 1 || typeof only !== 'string' || encoding !== 'hex') return this.hashed().digest(encoding as 'hex');
    let kept = keptHashes.get(this.kind);
    if (!kept) keptHashes.set(this.kind, (kept = new Map()));
    let hash = kept.get(only);
    if (hash === undefined) {
      hash = this.hashed().digest('hex');
      if (keptCharacters + only.length > KEPT_TEXT_CHARACTERS) {
        keptHashes.clear();
        keptHashes.set(this.kind, kept);
        kept.clear();
        keptCharacters = 0;
      }
      kept.set(only, hash);
      keptCharacters += only.length;
    }
    return hash;
  }

  private hashed(): Hash {
    const hash = createHash(this.kind);
    for (const part of this.parts) hash.update(part);
    return hash;
  }
}
