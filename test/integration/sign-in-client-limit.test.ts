import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { kitWallet } from '../support/wallets.js';

const CHALLENGE = `mutation($a: String!) { requestSignInChallenge(walletAddress: $a) { message } }`;
const SIGN_IN = `mutation($i: SignInWithWalletInput!) { signInWithWallet(input: $i) { user { walletAddress } } }`;

describe.each(backends)('sign-in attempts per client address on %s', (kind) => {
  const LIMIT = 3;
  let limited: TestApp;
  beforeAll(async () => {
    // No rows needed: the only user is the one the test's sign-in creates.
    limited = await startEmptyTestApp(kind, {
      config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: String(LIMIT) }),
    });
  });
  afterAll(() => limited.close());

  const from = (remoteAddress: string) => async (query: string, variables: Record<string, unknown>) => {
    const response = await limited.app.inject({ method: 'POST', url: '/graphql', remoteAddress, payload: { query, variables } });
    return { status: response.statusCode, ...(response.json() as { data?: any; errors?: any[] }) };
  };
  const challengeRows = () => limited.database.db.select().from(tables.signInChallenges);

  it('lets exactly the limit through from one client whatever the wallet addresses, writing nothing for the rest', async () => {
    const client = from('198.51.100.7');
    const wallets = await Promise.all(Array.from({ length: 2 * LIMIT }, () => kitWallet()));
    const responses = await Promise.all(wallets.map((wallet) => client(CHALLENGE, { a: wallet.address })));

    const passed = wallets.filter((_, i) => !responses[i]!.errors);
    expect(passed).toHaveLength(LIMIT);
    const refused = responses.filter((r) => r.errors);
    expect(refused).toHaveLength(LIMIT);
    for (const response of refused) {
      expect(response.data?.requestSignInChallenge ?? null).toBeNull();
      expect(response.errors![0]!.extensions).toMatchObject({ code: 'RATE_LIMITED' });
      expect(response.errors![0]!.extensions!.retryAfter).toBeGreaterThanOrEqual(1);
      expect(response.errors![0]!.extensions!.retryAfter).toBeLessThanOrEqual(60);
    }
    expect((await challengeRows()).map((row) => row.walletAddress).sort()).toEqual(passed.map((w) => w.address).sort());

    // Signing one of the issued challenges is an attempt too: refused from this client,
    // it consumes nothing, so the same signature still signs in from another client.
    const signer = passed[0]!;
    const message = responses[wallets.indexOf(signer)]!.data.requestSignInChallenge.message as string;
    const input = { i: { walletAddress: signer.address, message, signature: await signer.signMessage(message) } };
    const userRows = () => limited.database.db.select({ walletAddress: tables.users.walletAddress }).from(tables.users);
    const sessionCount = () => limited.database.db.select({ n: count() }).from(tables.refreshTokens);
    const refusedSignIn = await client(SIGN_IN, input);
    expect(refusedSignIn.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(await userRows()).toEqual([]);
    expect(await sessionCount()).toEqual([{ n: 0 }]);
    expect((await challengeRows()).filter((row) => row.consumedAt !== null)).toEqual([]);

    const elsewhere = await from('198.51.100.8')(SIGN_IN, input);
    expect(elsewhere.errors).toBeUndefined();
    expect(elsewhere.data.signInWithWallet.user.walletAddress).toBe(signer.address);
    expect(await userRows()).toEqual([{ walletAddress: signer.address }]);
    expect(await sessionCount()).toEqual([{ n: 1 }]);
    expect((await challengeRows()).filter((row) => row.consumedAt !== null).map((row) => row.walletAddress)).toEqual([signer.address]);
  });
});
