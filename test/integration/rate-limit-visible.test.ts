import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { kitWallet } from '../support/wallets.js';

const QUERIES_PER_MINUTE = 6;
const MUTATIONS_PER_MINUTE = 30;
const BUDGET = '{ rateLimit { subject limit cost remaining resetAt } pools(first: 1) { totalCount } }';

/** The RateLimit header's members: `"queries";r=3;t=41` -> { policy, r, t }. */
function parseRateLimit(value: string | undefined) {
  const match = /^"(\w+)";r=(\d+);t=(\d+)$/.exec(value ?? '');
  expect(match, `RateLimit: ${value}`).not.toBeNull();
  return { policy: match![1], r: Number(match![2]), t: Number(match![3]) };
}

describe.each(backends)('the budget, visible in the rateLimit field and the RateLimit headers, on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startEmptyTestApp(kind, {
      config: testConfig({
        RATE_LIMIT_QUERIES_PER_MINUTE: String(QUERIES_PER_MINUTE),
        RATE_LIMIT_MUTATIONS_PER_MINUTE: String(MUTATIONS_PER_MINUTE),
        SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000',
        ALLOWED_ORIGINS: 'https://app.example',
      }),
    });
    await t.seed.user().withPool();
  });
  afterAll(() => t?.close());

  const post = async (remoteAddress: string, query: string, headers: Record<string, string> = {}, variables?: Record<string, unknown>) => {
    const response = await t.app.inject({ method: 'POST', url: '/graphql', remoteAddress, headers, payload: { query, variables } });
    return { status: response.statusCode, headers: response.headers as Record<string, string>, body: response.json() };
  };

  it('each answer says what this operation cost and what is left; the 429 comes exactly when the figures say', async () => {
    const client = '198.51.100.7';
    let previousReset: string | undefined;
    for (let i = 1; i <= QUERIES_PER_MINUTE / 2; i++) {
      // rateLimit costs nothing, pools 1 and a second root field 1: 2 per request.
      const twoFields = `{ rateLimit { subject limit cost remaining resetAt } pools(first: 1) { totalCount } streaks { totalCount } }`;
      const { status, headers, body } = await post(client, twoFields);
      expect(status).toBe(200);
      expect(body.data.rateLimit).toMatchObject({
        subject: 'CLIENT',
        limit: QUERIES_PER_MINUTE,
        cost: 2,
        remaining: QUERIES_PER_MINUTE - 2 * i,
      });
      // One window: its end does not move while it lasts.
      if (previousReset) expect(body.data.rateLimit.resetAt).toBe(previousReset);
      previousReset = body.data.rateLimit.resetAt;
      expect(headers['ratelimit-policy']).toBe(`"queries";q=${QUERIES_PER_MINUTE};w=60`);
      const header = parseRateLimit(headers['ratelimit']);
      expect(header).toMatchObject({ policy: 'queries', r: QUERIES_PER_MINUTE - 2 * i });
      expect(Math.abs(Date.parse(previousReset!) - Date.now() - header.t * 1000)).toBeLessThanOrEqual(1000);
    }
    // remaining is 0: a free rateLimit alone still answers, and says so.
    const free = await post(client, '{ rateLimit { cost remaining } }');
    expect([free.status, free.body.data.rateLimit]).toEqual([200, { cost: 0, remaining: 0 }]);
    const refused = await post(client, BUDGET);
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    const header = parseRateLimit(refused.headers['ratelimit']);
    expect(header.r).toBe(0);
    // Retry-After and the RateLimit reset are the same wait.
    expect(Math.abs(Number(refused.headers['retry-after']) - header.t)).toBeLessThanOrEqual(1);
    // Another client's budget is whole.
    const other = await post('198.51.100.8', BUDGET);
    expect(other.body.data.rateLimit).toMatchObject({ subject: 'CLIENT', remaining: QUERIES_PER_MINUTE - 1 });
  });

  it('an operation costing more than what remains is refused whole, as remaining foretold', async () => {
    const client = '198.51.100.9';
    const first = await post(client, BUDGET);
    expect(first.body.data.rateLimit.remaining).toBe(QUERIES_PER_MINUTE - 1);
    const aliases = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `p${i}: pools(first: 1) { totalCount }`).join(' ')} rateLimit { cost remaining } }`;
    const tooMany = await post(client, aliases(QUERIES_PER_MINUTE));
    expect(tooMany.status).toBe(429);
    // Nothing was taken: exactly what remained still fits.
    const fits = await post(client, aliases(QUERIES_PER_MINUTE - 1));
    expect(fits.body.data.rateLimit).toEqual({ cost: QUERIES_PER_MINUTE - 1, remaining: 0 });
  });

  it('an API key draws on its user’s budget, as the user’s sessions do, apart from its address', async () => {
    const wallet = await kitWallet();
    const client = '198.51.100.10';
    const challenge = `mutation($a: String!) { requestSignInChallenge(walletAddress: $a) { message } }`;
    const asked = await post(client, challenge, {}, { a: wallet.address });
    // Mutations have their own budget and policy.
    expect(asked.headers['ratelimit-policy']).toBe(`"mutations";q=${MUTATIONS_PER_MINUTE};w=60`);
    expect(parseRateLimit(asked.headers['ratelimit'])).toMatchObject({ policy: 'mutations', r: MUTATIONS_PER_MINUTE - 1 });
    const message = asked.body.data.requestSignInChallenge.message as string;
    const session = await post(
      client,
      `mutation($i: SignInWithWalletInput!) { signInWithWallet(input: $i) { accessToken } }`,
      {},
      {
        i: { walletAddress: wallet.address, message, signature: await wallet.signMessage(message) },
      },
    );
    const bearer = { authorization: `Bearer ${session.body.data.signInWithWallet.accessToken}` };
    const created = await post(client, `mutation { createApiKey(name: "bot") { apiKey } }`, bearer);
    const apiKey = { 'x-api-key': created.body.data.createApiKey.apiKey as string };
    await post(client, BUDGET, bearer);
    const asUser = await post(client, BUDGET, bearer);
    expect(asUser.body.data.rateLimit).toMatchObject({ subject: 'USER', remaining: QUERIES_PER_MINUTE - 2 });
    const asKey = await post(client, BUDGET, apiKey);
    expect(asKey.body.data.rateLimit).toMatchObject({ subject: 'USER', remaining: QUERIES_PER_MINUTE - 3 });
  });

  it('REST answers carry the headers too, and browsers on an allowed origin may read them and the paging headers', async () => {
    const fromBrowser = { origin: 'https://app.example' };
    const response = await t.app.inject({ method: 'GET', url: '/pools', remoteAddress: '198.51.100.11', headers: fromBrowser });
    expect(response.statusCode).toBe(200);
    expect(response.headers['ratelimit-policy']).toBe(`"queries";q=${QUERIES_PER_MINUTE};w=60`);
    expect(parseRateLimit(response.headers['ratelimit'] as string).r).toBe(QUERIES_PER_MINUTE - 1);
    const exposed = String(response.headers['access-control-expose-headers']).split(/,\s*/);
    for (const name of ['ratelimit', 'ratelimit-policy', 'retry-after', 'x-total-count', 'x-next-cursor', 'link']) {
      expect(exposed).toContain(name);
    }
    for (let i = 0; i < QUERIES_PER_MINUTE - 1; i++) await t.app.inject({ method: 'GET', url: '/pools', remoteAddress: '198.51.100.11' });
    const refused = await t.app.inject({ method: 'GET', url: '/pools', remoteAddress: '198.51.100.11' });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    expect(parseRateLimit(refused.headers['ratelimit'] as string).r).toBe(0);
  });
});
