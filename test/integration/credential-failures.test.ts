import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/modules/auth/api-keys.js';
import { backends, startEmptyTestApp, type TestApp, testConfig } from '../support/harness.js';
import { signInAs } from '../support/sessions.js';
import { listen, socketClient } from '../support/sockets.js';

const FAILURE_BUDGET = 30;
const VIEWER = '{ viewer { id } }';

/** A random string in the API keys' shape (prefix, base58, length) whose checksum fails, as a guesser sends. */
const randomApiKey = () => `pgk_${bs58.encode(randomBytes(36))}`.slice(0, 54);
/** A well-formed HS256 access token signed with a key that is not the service's. */
const forgedToken = (userId: string) =>
  new SignJWT({ role: 'ADMIN', sid: '00000000-0000-4000-8000-000000000000', typ: 'access' })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('poolgraph')
    .setSubject(userId)
    .setExpirationTime('5m')
    .sign(randomBytes(32));

describe.each(backends)('failed credentials from one address (%s)', (kind) => {
  let t: TestApp;
  let url: string;
  let userId: string;
  let accessToken: string;
  let apiKey: string;

  beforeAll(async () => {
    t = await startEmptyTestApp(kind, { config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: String(FAILURE_BUDGET) }) });
    url = await listen(t);
    ({
      user: { id: userId },
    } = await t.seed.user());
    ({ accessToken } = await signInAs(t, userId));
    const created = await t.gql('mutation { createApiKey(name: "bot") { apiKey } }', undefined, { authorization: `Bearer ${accessToken}` });
    apiKey = created.data.createApiKey.apiKey;
  }, 120_000);
  afterAll(() => t?.close());

  // Every request comes from the address the test's sockets connect from.
  const fromHere = (headers: Record<string, string>) =>
    t.app.inject({ method: 'POST', url: '/graphql', remoteAddress: '127.0.0.1', payload: { query: VIEWER }, headers });

  it('after 300 bad credentials, valid ones are served and bad ones refused; a random key or forged token costs no statement', async () => {
    const statuses: number[] = [];
    const refuse = async (headers: Record<string, string>) => {
      const response = await fromHere(headers);
      statuses.push(response.statusCode);
      const { code } = response.json().errors[0].extensions;
      if (response.statusCode === 429) {
        expect(code).toBe('RATE_LIMITED');
        expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      } else {
        expect([response.statusCode, code]).toEqual([401, 'UNAUTHENTICATED']);
      }
    };
    const cheap = await t.countStatements(async () => {
      for (let i = 0; i < 100; i++) await refuse({ 'x-api-key': randomApiKey() });
      for (let i = 0; i < 50; i++) await refuse({ authorization: `Bearer ${await forgedToken(userId)}` });
      for (let i = 0; i < 50; i++) await refuse({ authorization: `Bearer ${randomBytes(24).toString('base64url')}` });
    });
    expect(cheap).toBe(0);
    // Keys that pass the checksum (it is no secret) are looked up: one statement each, still counted as failures.
    const lookedUp = await t.countStatements(async () => {
      for (let i = 0; i < 50; i++) await refuse({ 'x-api-key': generateApiKey() });
    });
    expect(lookedUp).toBe(50);
    for (let i = 0; i < 50; i++) {
      const socket = socketClient(url, { authorization: `Bearer ${randomBytes(24).toString('base64url')}` });
      const closed = await socket.closed;
      statuses.push(closed.code === 4429 ? 429 : closed.code);
      expect([4403, 4429]).toContain(closed.code);
      expect(closed.reason).toMatch(closed.code === 4429 ? /^RATE_LIMITED: / : /^UNAUTHENTICATED: /);
      await socket.dispose();
    }
    expect(statuses).toHaveLength(300);
    expect(statuses.filter((status) => status === 401 || status === 4403)).toHaveLength(FAILURE_BUDGET);
    expect(statuses.slice(FAILURE_BUDGET).every((status) => status === 429)).toBe(true);

    const byToken = await fromHere({ authorization: `Bearer ${accessToken}` });
    expect([byToken.statusCode, byToken.json()]).toEqual([200, { data: { viewer: { id: userId } } }]);
    const byKey = await fromHere({ 'x-api-key': apiKey });
    expect([byKey.statusCode, byKey.json()]).toEqual([200, { data: { viewer: { id: userId } } }]);
    const socket = socketClient(url, { authorization: `Bearer ${accessToken}` });
    await socket.connected;
    const viewer = await new Promise((resolve, reject) => {
      socket.client.subscribe({ query: VIEWER }, { next: resolve, error: reject, complete: () => {} });
    });
    expect(viewer).toEqual({ data: { viewer: { id: userId } } });
    await socket.dispose();

    // The bad ones are still refused, over HTTP and sockets.
    await refuse({ 'x-api-key': randomApiKey() });
    expect(statuses.at(-1)).toBe(429);
    const refused = socketClient(url, { 'x-api-key': randomApiKey() });
    expect((await refused.closed).code).toBe(4429);
    await refused.dispose();
    // Another address is not affected.
    const elsewhere = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      remoteAddress: '203.0.113.9',
      payload: { query: VIEWER },
      headers: { 'x-api-key': randomApiKey() },
    });
    expect(elsewhere.statusCode).toBe(401);
  }, 120_000);
});
