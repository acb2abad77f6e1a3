import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { kitWallet } from '../support/wallets.js';

const QUERIES_PER_MINUTE = 10;
const MUTATIONS_PER_MINUTE = 20;

/** A mutation every client may run: a sign-in challenge for a fresh address. */
const challenge = (alias: string, address: string) => `${alias}: requestSignInChallenge(walletAddress: "${address}") { nonce }`;

describe.each(backends)('rate limits count operations on %s', (kind) => {
  let t: TestApp;
  let url: string;
  let addresses: string[];
  let authorization: string;
  // One pool, so a served query answers something to check; the limits themselves need no rows.
  beforeAll(async () => {
    t = await startEmptyTestApp(kind, {
      config: testConfig({
        RATE_LIMIT_QUERIES_PER_MINUTE: String(QUERIES_PER_MINUTE),
        RATE_LIMIT_MUTATIONS_PER_MINUTE: String(MUTATIONS_PER_MINUTE),
        SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000',
      }),
    });
    await t.seed.user().withPool();
    url = `${await t.app.listen({ host: '127.0.0.1', port: 0 })}/graphql`;
    addresses = await Promise.all(Array.from({ length: 40 }, async () => (await kitWallet()).address));
    authorization = await signIn();
  });

  /** Signs a fresh wallet in from another address (its two mutations use none of 127.0.0.1's budget). */
  async function signIn(): Promise<string> {
    const wallet = await kitWallet();
    const gql = async (query: string, variables: Record<string, unknown>) =>
      (await t.app.inject({ method: 'POST', url: '/graphql', remoteAddress: '127.0.0.2', payload: { query, variables } })).json();
    const asked = await gql(`mutation($a: String!) { requestSignInChallenge(walletAddress: $a) { message } }`, { a: wallet.address });
    const message = asked.data.requestSignInChallenge.message as string;
    const session = await gql(`mutation($i: SignInWithWalletInput!) { signInWithWallet(input: $i) { accessToken } }`, {
      i: { walletAddress: wallet.address, message, signature: await wallet.signMessage(message) },
    });
    return `Bearer ${session.data.signInWithWallet.accessToken}`;
  }
  afterAll(() => t.close());

  /** POSTs over a real socket from 127.0.0.1. */
  async function post(query: string, headers: Record<string, string> = {}) {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query }),
    });
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      ...((await response.json()) as { data?: any; errors?: any[] }),
    };
  }

  it('lets exactly the limit through of twice the limit sent at once', async () => {
    const responses = await Promise.all(
      Array.from({ length: 2 * QUERIES_PER_MINUTE }, () =>
        post('{ pools(first: 1) { totalCount } }', { 'x-forwarded-for': '203.0.113.1' }),
      ),
    );
    const served = responses.filter((r) => r.status === 200 && !r.errors);
    const refused = responses.filter((r) => r.status === 429);
    expect(served).toHaveLength(QUERIES_PER_MINUTE);
    for (const response of served) expect(response.data).toEqual({ pools: { totalCount: 1 } });
    expect(refused).toHaveLength(QUERIES_PER_MINUTE);
    for (const response of refused) {
      expect(response.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
      const retryAfter = response.errors?.[0]?.extensions?.retryAfter;
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(response.retryAfter).toBe(String(retryAfter));
    }
  });

  it('counts every root field: 15 aliased mutations are 15 operations', async () => {
    // The query budget above is spent; mutations have their own.
    const fifteen = await post(
      `mutation { ${addresses
        .slice(0, 15)
        .map((a, i) => challenge(`c${i}`, a))
        .join(' ')} }`,
    );
    expect(fifteen.errors).toBeUndefined();
    expect(Object.keys(fifteen.data)).toHaveLength(15);
    // 5 of 20 left: 6 more are refused whole (none of them runs), 5 still fit.
    let six!: Awaited<ReturnType<typeof post>>;
    const statements = await t.countStatements(async () => {
      six = await post(
        `mutation { ${addresses
          .slice(15, 21)
          .map((a, i) => challenge(`c${i}`, a))
          .join(' ')} }`,
      );
    });
    expect(six.status).toBe(429);
    expect(six.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(six.data).toBeUndefined();
    expect(statements).toBe(0);
    const five = await post(
      `mutation { ${addresses
        .slice(21, 26)
        .map((a, i) => challenge(`c${i}`, a))
        .join(' ')} }`,
    );
    expect(five.errors).toBeUndefined();
    const oneMore = await post(`mutation { ${challenge('c', addresses[26]!)} }`);
    expect(oneMore.status).toBe(429);
  });

  it('refuses outright an operation with more root fields than a whole minute allows', async () => {
    const tooMany = await post(
      `mutation { ${addresses
        .slice(0, MUTATIONS_PER_MINUTE + 1)
        .map((a, i) => challenge(`c${i}`, a))
        .join(' ')} }`,
      { 'x-forwarded-for': '203.0.113.99' },
    );
    expect(tooMany.status).toBe(429);
    expect(tooMany.errors?.[0]?.message).toMatch(/21 root fields; at most 20 may run per minute/);
  });

  it('keys by client address, ignoring X-Forwarded-For unless a proxy is trusted', async () => {
    // Every request above came from 127.0.0.1 whatever X-Forwarded-For said, so the query
    // budget is spent for any forwarded address too.
    const spoofed = await post('{ pools(first: 1) { totalCount } }', { 'x-forwarded-for': '198.51.100.7' });
    expect(spoofed.status).toBe(429);
  });

  it('keys a signed-in viewer by user, apart from the address', async () => {
    const responses = await Promise.all(
      Array.from({ length: QUERIES_PER_MINUTE + 2 }, () => post('{ viewer { id } pools(first: 1) { totalCount } }', { authorization })),
    );
    // Two root fields each: five operations fit in ten.
    expect(responses.filter((r) => r.status === 200 && !r.errors)).toHaveLength(QUERIES_PER_MINUTE / 2);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(QUERIES_PER_MINUTE / 2 + 2);
  });
});

describe('rate limits behind a trusted proxy', () => {
  let t: TestApp;
  beforeAll(async () => {
    // No rows: only the status of each answer is checked.
    t = await startEmptyTestApp('pglite', { config: testConfig({ RATE_LIMIT_QUERIES_PER_MINUTE: '2', TRUST_PROXY: 'loopback' }) });
  });
  afterAll(() => t.close());

  it('keys by the forwarded client address when the peer is a trusted proxy', async () => {
    const from = (address: string) => t.gql('{ pools(first: 1) { totalCount } }', undefined, { 'x-forwarded-for': address });
    expect((await from('198.51.100.1')).status).toBe(200);
    expect((await from('198.51.100.1')).status).toBe(200);
    expect((await from('198.51.100.1')).status).toBe(429);
    expect((await from('198.51.100.2')).status).toBe(200);
  });
});
