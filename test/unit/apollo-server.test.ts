import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HeaderMap } from '@apollo/server';
import type { GatewayGraphQLRequestContext } from '@apollo/server-gateway-interface';
import { buildSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ApolloServer, gatewayRequestContext, KeptDigest } from '../../src/server/pipeline/apollo-server.js';

type MakeContext = typeof gatewayRequestContext;

/** Apollo Server's own function, from its ECMAScript build (the one poolgraph replaces is in the CommonJS build). */
async function apollosOwn(): Promise<MakeContext> {
  const entry = createRequire(import.meta.url).resolve('@apollo/server');
  const file = join(dirname(entry), '..', 'esm', 'utils', 'makeGatewayGraphQLRequestContext.js');
  return ((await import(pathToFileURL(file).href)) as { makeGatewayGraphQLRequestContext: MakeContext }).makeGatewayGraphQLRequestContext;
}

const schema = buildSchema('type Query { ok: Boolean }');
const document = parse('query Q { ok }');

function requestContext(request: Record<string, unknown>) {
  return {
    request,
    response: { http: { headers: new HeaderMap([['x-set', 'before']]), status: undefined as number | undefined } },
    schema,
    contextValue: { who: 'context' },
    queryHash: 'hash',
    document,
    source: 'query Q { ok }',
    operationName: 'Q',
    operation: document.definitions[0],
    errors: undefined,
    metrics: { persistedQueryHit: false },
    overallCachePolicy: { maxAge: 0 },
    requestIsBatched: false,
  } as unknown as Parameters<MakeContext>[0];
}

const server = { logger: console, cache: new Map() } as unknown as Parameters<MakeContext>[1];

/** What a gateway executor can read of a context, and what its writes do to Apollo's response. */
function usedAs(make: MakeContext, request: Record<string, unknown>) {
  const given = requestContext(request);
  const context = make(given, server, { includeStacktraceInErrorResponses: true });
  const before = { status: context.response!.http!.status, header: context.response!.http!.headers.get('x-set') };
  context.response!.http!.status = 418;
  context.response!.http!.headers.append('x-set', 'after');
  context.response!.http!.headers.set('x-new', '1');
  const { request: gatewayRequest, response: _response, ...rest } = context;
  const http = gatewayRequest.http && {
    method: gatewayRequest.http.method,
    url: gatewayRequest.http.url,
    headers: [...gatewayRequest.http.headers],
    accept: gatewayRequest.http.headers.get('accept'),
  };
  return {
    request: { ...gatewayRequest, http },
    rest,
    before,
    apollosResponse: { status: given.response.http.status, headers: [...given.response.http.headers] },
  };
}

describe("Apollo Server's gateway request context, rebuilt without accessors closing over the request", () => {
  const requests: Array<Record<string, unknown>> = [
    {
      query: '{ ok }',
      operationName: 'Q',
      variables: { a: 1 },
      extensions: { e: true },
      http: { method: 'POST', search: '', headers: new HeaderMap([['accept', 'application/json']]), body: {} },
    },
    { query: '{ ok }', http: { method: 'GET', search: '?query=%7Bok%7D', headers: new HeaderMap(), body: undefined } },
    { query: '{ ok }', http: { method: 'GET', search: 'query=x', headers: new HeaderMap(), body: undefined } },
    { extensions: { persistedQuery: { version: 1 } } },
  ];

  it("reads and writes as Apollo Server's own does, for every shape of request", async () => {
    const own = await apollosOwn();
    for (const request of requests) expect(usedAs(gatewayRequestContext, request)).toEqual(usedAs(own, request));
  });

  it('keeps its accessors on a prototype: nothing of a request is reachable from a function made for it', async () => {
    const own = (await apollosOwn())(requestContext(requests[0]!), server, {});
    const ours = gatewayRequestContext(requestContext(requests[0]!), server, {});
    expect(Object.getOwnPropertyDescriptor(own.response!.http, 'status')?.get).toBeTypeOf('function');
    expect(Object.getOwnPropertyDescriptor(ours.response!.http, 'status')).toBeUndefined();
  });

  it('is what Apollo Server hands a gateway executor', async () => {
    const seen: GatewayGraphQLRequestContext[] = [];
    const apollo = new ApolloServer({
      gateway: {
        load: async () => ({
          executor: async (context) => {
            seen.push(context);
            context.response!.http!.status = 203;
            return { data: { ok: true } };
          },
        }),
        onSchemaLoadOrUpdate(callback) {
          callback({ apiSchema: schema, coreSupergraphSdl: '' });
          return () => {};
        },
        stop: async () => {},
      },
    });
    await apollo.start();
    try {
      const response = await apollo.executeOperation({ query: '{ ok }' });
      expect(response.http.status).toBe(203);
      expect(response.body).toEqual({ kind: 'single', singleResult: { data: { ok: true } } });
      expect(seen).toHaveLength(1);
      expect(Object.getOwnPropertyDescriptor(seen[0]!.response!.http, 'status')).toBeUndefined();
    } finally {
      await apollo.stop();
    }
  });
});

describe("Apollo's createHash, with the hashes of texts it has seen kept", () => {
  const node = (kind: string, parts: Array<string | Buffer>, encoding: 'hex' | 'base64') => {
    const hash = createHash(kind);
    for (const part of parts) hash.update(part);
    return hash.digest(encoding);
  };

  it("answers Node's hash for every use: a text whole, again, in parts, a Buffer, another encoding and kind", () => {
    const texts = ['{ __typename }', 'query Q($id: ID!) { pool(id: $id) { id title } }', '', 'ü ✓ 𝄞'];
    for (const text of texts)
      for (let again = 0; again < 3; again++)
        expect(new KeptDigest('sha256').update(text).digest('hex')).toBe(node('sha256', [text], 'hex'));
    expect(new KeptDigest('sha256').update('{ a').update(' }').digest('hex')).toBe(node('sha256', ['{ a }'], 'hex'));
    expect(new KeptDigest('sha256').update(Buffer.from('x')).digest('hex')).toBe(node('sha256', ['x'], 'hex'));
    expect(new KeptDigest('sha256').update('{ b }').digest('base64')).toBe(node('sha256', ['{ b }'], 'base64'));
    // The same text of another kind is not the kept sha256.
    expect(new KeptDigest('sha512').update('{ __typename }').digest('hex')).toBe(node('sha512', ['{ __typename }'], 'hex'));
  });

  it('keeps at most a million characters of texts, and answers right past them', () => {
    const long = 'x'.repeat(300_000);
    for (let i = 0; i < 8; i++) {
      const text = `${long}${i}`;
      expect(new KeptDigest('sha256').update(text).digest('hex')).toBe(node('sha256', [text], 'hex'));
    }
  });

  it('is what Apollo Server hashes a query with', async () => {
    const apollo = new ApolloServer({ typeDefs: 'type Query { ok: Boolean }' });
    await apollo.start();
    try {
      const response = await apollo.executeOperation({ query: '{ ok }' }, { contextValue: {} });
      expect(response.body.kind).toBe('single');
      const created: string[] = [];
      const original = KeptDigest.prototype.digest;
      KeptDigest.prototype.digest = function (this: KeptDigest, encoding: string) {
        const digest = original.call(this, encoding);
        created.push(digest);
        return digest;
      };
      try {
        await apollo.executeOperation({ query: '{ ok }' });
      } finally {
        KeptDigest.prototype.digest = original;
      }
      expect(created).toContain(node('sha256', ['{ ok }'], 'hex'));
    } finally {
      await apollo.stop();
    }
  });
});

describe("Apollo's content negotiation, kept per header value", () => {
  const require = createRequire(import.meta.url);
  const entry = require.resolve('@apollo/server');
  type PreventCsrf = (headers: HeaderMap, required: string[]) => void;

  it("refuses a cross-site request exactly as Apollo's own CSRF check does, for every content type and preflight header", async () => {
    const own = ((await import(pathToFileURL(join(dirname(entry), '..', 'esm', 'preventCsrf.js')).href)) as { preventCsrf: PreventCsrf })
      .preventCsrf;
    // What Apollo Server calls (the CommonJS build's export), as apollo-server.ts left it.
    const ours = (require(join(dirname(entry), 'preventCsrf.js')) as { preventCsrf: PreventCsrf }).preventCsrf;
    expect(ours).not.toBe(own);
    const outcome = (check: PreventCsrf, headers: HeaderMap) => {
      try {
        check(headers, ['x-apollo-operation-name', 'apollo-require-preflight']);
        return 'allowed';
      } catch (error) {
        return (error as Error).message;
      }
    };
    const contentTypes = [
      undefined,
      'application/json',
      'APPLICATION/JSON; charset=utf-8',
      'text/plain',
      'Text/Plain;charset=UTF-8',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
      '',
      'not a type',
      'text/plain/extra',
      // Longer than a kept text: judged each time, alike.
      `text/plain; ${'x=y; '.repeat(150)}z=1`,
      `application/json; ${'x=y; '.repeat(150)}z=1`,
    ];
    const preflights: Array<Array<[string, string]>> = [
      [],
      [['apollo-require-preflight', '']],
      [['apollo-require-preflight', '1']],
      [['x-apollo-operation-name', 'Q']],
    ];
    let refused = 0;
    for (let again = 0; again < 2; again++)
      for (const contentType of contentTypes)
        for (const preflight of preflights) {
          const headers = new HeaderMap([
            ...(contentType === undefined ? [] : [['content-type', contentType] as [string, string]]),
            ...preflight,
          ]);
          const expected = outcome(own, headers);
          if (expected !== 'allowed') refused++;
          expect(outcome(ours, headers), `${contentType} ${JSON.stringify(preflight)}`).toBe(expected);
        }
    // The cases reach both answers: a form's content type or none, without a preflight header, is refused.
    expect(refused).toBeGreaterThanOrEqual(2 * 6 * 2);
  });

  it('chooses the media type negotiator chooses, for every Accept header and list offered, again and again', () => {
    const Negotiator = require(require.resolve('negotiator', { paths: [dirname(entry)] })) as new (request: {
      headers: { accept?: string };
    }) => { mediaType(available?: string[]): string | undefined };
    const preferred = require(require.resolve('negotiator/lib/mediaType', { paths: [dirname(entry)] })) as (
      accept: string | undefined,
      available?: string[],
    ) => string[];
    const accepts = [
      undefined,
      '',
      '*/*',
      'application/json',
      'application/graphql-response+json, application/json;q=0.9',
      'multipart/mixed;deferSpec=20220824, application/json',
      'multipart/mixed; deferSpec=20220824',
      'text/html;q=0.1, */*;q=0.2',
      `${'text/x-a;q=0.1, '.repeat(40)}application/json;q=0.5`,
    ];
    const offers = [
      ['multipart/mixed; deferSpec=20220824', 'multipart/mixed; incrementalSpec=v0.2'],
      ['application/graphql-response+json', 'application/json'],
      ['application/json', 'application/graphql-response+json'],
      // A list that begins another: kept apart from it.
      ['application/graphql-response+json'],
    ];
    const chosen = new Set<string | undefined>();
    for (let again = 0; again < 2; again++)
      for (const accept of accepts)
        for (const offer of offers) {
          const answer = new Negotiator({ headers: { accept } }).mediaType(offer);
          expect(answer, `${accept} of ${offer.join(', ')}`).toBe(preferred(accept === undefined ? undefined : accept, offer)[0]);
          chosen.add(answer);
        }
    // Every offered type and none were chosen somewhere: the cases tell the answers apart.
    expect(chosen.size).toBeGreaterThanOrEqual(4);
    expect(new Negotiator({ headers: { accept: 'application/json' } }).mediaType()).toBe('application/json');
  });
});
