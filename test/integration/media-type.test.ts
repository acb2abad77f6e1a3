import { ApolloServer, HeaderMap } from '@apollo/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmptyTestApp, type TestApp } from '../support/harness.js';
import { seededRandom } from '../support/seeded-random.js';

const RANGES = [
  'application/json',
  'application/graphql-response+json',
  'application/json;callbackSpec=1.0',
  'application/graphql-response+json; charset=utf-8',
  'application/*',
  '*/*',
  'text/html',
  'text/*',
  'application/xml',
  'multipart/mixed',
];
const WEIGHTS = ['', ';q=0', ';q=0.1', ';q=0.5', ';q=0.9', ';q=1', ' ; q=0.3'];

/** Accept headers as clients send them and as they could: one to three ranges, weighted or not, in any order. */
function acceptHeaders(count: number): Array<string | undefined> {
  const random = seededRandom(22);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const generated = Array.from({ length: count }, () =>
    Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(RANGES) + pick(WEIGHTS)).join(pick([',', ', '])),
  );
  return [undefined, '', ',', 'nonsense', ...RANGES, ...generated];
}

/**
 * The media type of a GraphQL response is Apollo Server's own choice: the plugin sets it
 * from a negotiation made once per Accept header (src/server/pipeline/media-type.ts), so
 * Apollo skips its own; the reference here is Apollo Server alone, negotiating at every
 * request. A header that allows none is refused (406) by both.
 */
describe('the media type of a GraphQL response', () => {
  let t: TestApp;
  const reference = new ApolloServer({ typeDefs: 'type Query { ok: Boolean }' });
  beforeAll(async () => {
    t = await startEmptyTestApp('pglite');
    await reference.start();
  });
  afterAll(async () => {
    await reference.stop();
    await t.close();
  });

  async function answers(accept: string | undefined) {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(accept === undefined ? {} : { accept }) };
    const ours = await t.app.inject({ method: 'POST', url: '/graphql', headers, payload: { query: '{ __typename }' } });
    const apollos = await reference.executeHTTPGraphQLRequest({
      httpGraphQLRequest: {
        method: 'POST',
        headers: new HeaderMap(Object.entries(headers)),
        body: { query: '{ __typename }' },
        search: '',
      },
      context: async () => ({}),
    });
    return {
      ours: { status: ours.statusCode, type: ours.statusCode === 406 ? null : ours.headers['content-type'] },
      apollos: { status: apollos.status ?? 200, type: apollos.status === 406 ? null : apollos.headers.get('content-type') },
    };
  }

  it("is Apollo Server's choice for every Accept header, the first time and when it is known", async () => {
    let refused = 0;
    const chosen = new Set<unknown>();
    for (const accept of acceptHeaders(300)) {
      for (const time of ['first', 'again']) {
        const { ours, apollos } = await answers(accept);
        expect(ours, `Accept: ${accept} (${time})`).toEqual(apollos);
        if (ours.status === 406) refused++;
        chosen.add(ours.type);
      }
    }
    // The corpus reaches every outcome: each media type, and refusals.
    expect(chosen).toEqual(
      new Set([
        null,
        'application/json; charset=utf-8',
        'application/graphql-response+json; charset=utf-8',
        'application/json; callbackSpec=1.0; charset=utf-8',
      ]),
    );
    expect(refused).toBeGreaterThan(0);
  });
});
