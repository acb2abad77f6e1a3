import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { operationNameHeader } from '../../src/server/apollo-plugins.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { listen, socketClient, type SocketClient, Subscription } from '../support/sockets.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** What a transport answered: the first error's code (or 'ok') and, over HTTP, the status. */
interface Outcome {
  code: string;
  status?: number;
}

const codeOf = (body: { errors?: Array<{ extensions?: { code?: string } }> } | undefined) => body?.errors?.[0]?.extensions?.code ?? 'ok';

/** A refusal and how each transport that can express it triggers it; null where it cannot. */
interface Row {
  code: string;
  /** The HTTP status of GraphQL over HTTP when the refusal comes before execution. */
  httpStatus?: number;
  http: () => Promise<Outcome>;
  rest: (() => Promise<Outcome>) | null;
  ws: ((socket: SocketClient) => Promise<Outcome>) | null;
}

/** Over graphql-ws: the first error, whether the server refused the operation (`error`) or it ran with errors (`next`). */
async function overSocket(
  socket: SocketClient,
  query: string,
  extensions?: Record<string, unknown>,
  operationName?: string,
): Promise<Outcome> {
  const subscription = new Subscription(socket.client, query, undefined, {
    ...(extensions ? { extensions } : {}),
    ...(operationName ? { operationName } : {}),
  });
  await subscription.waitForEnd();
  if (subscription.error) return { code: (subscription.error as Array<{ extensions: { code: string } }>)[0]!.extensions.code };
  return { code: codeOf(subscription.results[0] as never) };
}

describe.each(backends)('Apollo Server as the GraphQL engine on %s', (kind) => {
  let t: TestApp;
  let url: string;
  let socket: SocketClient;
  beforeAll(async () => {
    t = await startEmptyTestApp(kind, {
      config: testConfig({ RATE_LIMIT_QUERIES_PER_MINUTE: '60', MAX_QUERY_COST: '500', MAX_QUERY_DEPTH: '6' }),
    });
    url = await listen(t);
    socket = socketClient(url);
    await socket.connected;
  });
  afterAll(async () => {
    await socket.dispose();
    await t.close();
  });

  const post = async (payload: object, headers: Record<string, string> = {}): Promise<Outcome> => {
    const response = await t.app.inject({ method: 'POST', url: '/graphql', payload, headers });
    return { status: response.statusCode, code: codeOf(response.json()) };
  };
  const get = async (search: string, headers: Record<string, string> = {}): Promise<Outcome> => {
    const response = await t.app.inject({ method: 'GET', url: `/graphql?${search}`, headers });
    return { status: response.statusCode, code: codeOf(response.json()) };
  };
  const rest = async (path: string): Promise<Outcome> => {
    const response = await t.app.inject({ method: 'GET', url: path });
    const body = response.json() as { error?: { code: string } };
    return { status: response.statusCode, code: body.error?.code ?? 'ok' };
  };

  const EXPENSIVE = '{ pools(first: 100) { nodes { predictions(first: 100) { nodes { user { id } } } } } }';
  const FORGED_CURSOR = '{ pools(first: 1, after: "not-a-cursor") { totalCount } }';
  const SIGNED_IN_ONLY = `{ streakUserDetails(streakId: "${randomUUID()}") { currentStreakCount } }`;
  const rows: Row[] = [
    {
      code: 'GRAPHQL_PARSE_FAILED',
      httpStatus: 400,
      http: () => post({ query: '{ pools {' }),
      rest: null, // REST routes run fixed documents
      ws: (s) => overSocket(s, '{ pools {'),
    },
    {
      code: 'GRAPHQL_VALIDATION_FAILED',
      httpStatus: 400,
      http: () => post({ query: '{ pools { nope } }' }),
      rest: null,
      ws: (s) => overSocket(s, '{ pools { nope } }'),
    },
    {
      code: 'OPERATION_RESOLUTION_FAILURE',
      httpStatus: 400,
      http: () => post({ query: 'query A { __typename }', operationName: 'B' }),
      rest: null,
      ws: (s) => overSocket(s, 'query A { __typename }', undefined, 'B'),
    },
    {
      code: 'QUERY_TOO_COMPLEX',
      httpStatus: 400,
      http: () => post({ query: EXPENSIVE }),
      // 100 pools with 50 predictions each and their users cost more than 500 (a relation not included costs nothing).
      rest: () => rest('/pools?limit=100&includes=predictions.user&predictions_limit=50'),
      ws: (s) => overSocket(s, EXPENSIVE),
    },
    {
      code: 'PERSISTED_QUERY_NOT_FOUND',
      httpStatus: 404,
      http: () => post({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ streaks { totalCount } }') } } }),
      rest: null,
      ws: (s) => overSocket(s, '', { persistedQuery: { version: 1, sha256Hash: sha256('{ streaks { totalCount } }') } }),
    },
    {
      code: 'PERSISTED_QUERY_HASH_MISMATCH',
      httpStatus: 400,
      http: () => post({ query: '{ __typename }', extensions: { persistedQuery: { version: 1, sha256Hash: sha256('other') } } }),
      rest: null,
      ws: (s) => overSocket(s, '{ __typename }', { persistedQuery: { version: 1, sha256Hash: sha256('other') } }),
    },
    {
      code: 'SUBSCRIPTION_REQUIRES_WEBSOCKET',
      httpStatus: 400,
      http: () => post({ query: 'subscription { poolCreated { id } }' }),
      rest: null,
      ws: null, // where subscriptions run
    },
    {
      code: 'METHOD_NOT_ALLOWED',
      httpStatus: 405,
      http: () => get(`query=${encodeURIComponent('mutation { signOut }')}`, { 'apollo-require-preflight': 'true' }),
      rest: null,
      ws: null,
    },
    {
      code: 'UNSUPPORTED_MEDIA_TYPE',
      httpStatus: 415,
      http: () => get('query=%7B__typename%7D', { 'content-type': 'application/x-anything', 'apollo-require-preflight': 'true' }),
      rest: null,
      ws: null,
    },
    {
      code: 'NOT_ACCEPTABLE',
      httpStatus: 406,
      http: () => post({ query: 'mutation { signOut }' }, { accept: 'text/html' }),
      rest: null,
      ws: null,
    },
    {
      code: 'BAD_REQUEST',
      httpStatus: 400,
      // A GET a page on another site could send with the victim's cookies: no preflight header, no JSON type.
      http: () => get('query=%7B__typename%7D'),
      rest: null,
      ws: null,
    },
    {
      code: 'UNAUTHENTICATED',
      http: () => post({ query: SIGNED_IN_ONLY }),
      rest: () => rest(`/streak/user-details?streak_id=${randomUUID()}`),
      ws: (s) => overSocket(s, SIGNED_IN_ONLY),
    },
    {
      code: 'UNAUTHENTICATED',
      httpStatus: 401,
      http: () => post({ query: '{ __typename }' }, { authorization: 'Bearer not-a-token' }),
      rest: async () => {
        const response = await t.app.inject({ method: 'GET', url: '/pools', headers: { authorization: 'Bearer not-a-token' } });
        return { status: response.statusCode, code: (response.json() as { error: { code: string } }).error.code };
      },
      ws: null, // credentials are refused at connection_init: close 4403
    },
    {
      code: 'BAD_USER_INPUT',
      http: () => post({ query: FORGED_CURSOR }),
      rest: () => rest('/pools?cursor=not-a-cursor'),
      ws: (s) => overSocket(s, FORGED_CURSOR),
    },
  ];

  it.each(rows.map((row, i) => [`${row.code} #${i}`, row] as const))(
    '%s keeps its code over HTTP, REST and WebSocket',
    async (_name, row) => {
      const http = await row.http();
      expect(http.code).toBe(row.code);
      if (row.httpStatus) expect(http.status).toBe(row.httpStatus);
      if (row.rest) expect(await row.rest()).toMatchObject({ code: row.code, status: expect.any(Number) });
      if (row.ws) expect(await row.ws(socket)).toEqual({ code: row.code });
    },
  );

  // Last: it spends the address's whole budget, shared by every transport.
  it('RATE_LIMITED keeps its code (429 with Retry-After) over HTTP, REST and WebSocket', async () => {
    let refused = null;
    for (let i = 0; i < 80 && !refused; i++) {
      const response = await t.app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ streaks(first: 1) { totalCount } }' } });
      if (response.statusCode !== 200) refused = response;
    }
    expect(refused?.statusCode).toBe(429);
    expect(codeOf(refused!.json())).toBe('RATE_LIMITED');
    expect(Number(refused!.headers['retry-after'])).toBeGreaterThan(0);
    expect(await rest('/pools')).toEqual({ status: 429, code: 'RATE_LIMITED' });
    expect(await overSocket(socket, '{ streaks(first: 1) { totalCount } }')).toEqual({ code: 'RATE_LIMITED' });
  });
});

describe('an Apollo plugin of the deployment', () => {
  it('runs on /graphql and REST alike, after poolgraph’s (the example of docs/operations.md)', async () => {
    const t = await startEmptyTestApp('pglite');
    const app = await createApp({ config: testConfig(), database: t.database, plugins: [operationNameHeader()] });
    try {
      const response = await app.inject({ method: 'POST', url: '/graphql', payload: { query: 'query Named { __typename }' } });
      expect(response.json()).toEqual({ data: { __typename: 'Query' } });
      expect(response.headers['x-graphql-operation']).toBe('Named');
      // REST runs through executeOperation: the plugin sees its operation, though REST answers its own headers.
      const plain = await t.app.inject({ method: 'POST', url: '/graphql', payload: { query: 'query Named { __typename }' } });
      expect(plain.headers['x-graphql-operation']).toBeUndefined();
    } finally {
      await app.close();
      await t.close();
    }
    // Two servers start: a minute and more on a busy machine.
  }, 120_000);
});
