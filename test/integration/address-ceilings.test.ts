import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { backends } from '../support/harness.js';
import { type EmptyApp, makePng, startEmptyApp } from '../support/operator-fixture.js';

/** Per person (user), and per address whoever is signed in there. */
const QUERIES_PER_USER = 6;
const QUERIES_PER_ADDRESS = 15;
const UPLOADS_PER_USER = 2;
const UPLOADS_PER_ADDRESS = 5;
const QUERY = '{ rateLimit { subject limit remaining } pools(first: 1) { totalCount } }';

describe.each(backends)('budgets per person and per address on %s', (kind) => {
  let t: EmptyApp;

  beforeAll(async () => {
    t = await startEmptyApp(kind, {
      env: {
        RATE_LIMIT_QUERIES_PER_MINUTE: String(QUERIES_PER_USER),
        RATE_LIMIT_QUERIES_PER_ADDRESS_PER_MINUTE: String(QUERIES_PER_ADDRESS),
        // Room for the sign-ins and key rotations themselves: this suite counts queries and uploads.
        RATE_LIMIT_MUTATIONS_PER_MINUTE: '1000',
        RATE_LIMIT_MUTATIONS_PER_ADDRESS_PER_MINUTE: '1000',
        IMAGE_UPLOADS_PER_MINUTE: String(UPLOADS_PER_USER),
        IMAGE_UPLOADS_PER_ADDRESS_PER_MINUTE: String(UPLOADS_PER_ADDRESS),
      },
    });
  }, 60_000);
  afterAll(() => t?.close());

  const query = async (remoteAddress: string, headers: Record<string, string>) => {
    const response = await t.app.inject({ method: 'POST', url: '/graphql', remoteAddress, headers, payload: { query: QUERY } });
    return { status: response.statusCode, body: response.json() as { data?: { rateLimit: Record<string, unknown> } } };
  };
  const mutate = async (remoteAddress: string, headers: Record<string, string>, mutation: string, variables?: Record<string, unknown>) =>
    (await t.app.inject({ method: 'POST', url: '/graphql', remoteAddress, headers, payload: { query: mutation, variables } })).json() as {
      data: any;
    };

  it('ten rotated API keys of one user share the user’s budget, from one address or from ten', async () => {
    const owner = await t.signIn();
    for (const [round, addressOf] of [
      [1, () => '198.51.100.20'],
      [2, (i: number) => `198.51.100.${30 + i}`],
    ] as const) {
      let accepted = 0;
      const subjects = new Set<unknown>();
      for (let i = 0; i < 10; i++) {
        const created = await mutate('192.0.2.1', owner.headers, `mutation($n: String!) { createApiKey(name: $n) { apiKey key { id } } }`, {
          n: `rotated-${round}-${i}`,
        });
        const { apiKey, key } = created.data.createApiKey;
        for (let j = 0; j < QUERIES_PER_USER; j++) {
          const answer = await query(addressOf(i), { 'x-api-key': apiKey });
          if (answer.status === 200) {
            accepted++;
            subjects.add(answer.body.data!.rateLimit.subject);
          }
        }
        await mutate('192.0.2.1', owner.headers, `mutation($id: ID!) { revokeApiKey(id: $id) { id } }`, { id: key.id });
      }
      // 60 attempted over ten keys; the user's one budget (which the first round already spent) allows 6 a minute.
      expect(accepted).toBe(round === 1 ? QUERIES_PER_USER : 0);
      if (round === 1) expect([...subjects]).toEqual(['USER']);
    }
  });

  it('fifteen fresh wallets from one address share its ceiling, anonymous queries included; others are unaffected', async () => {
    const address = '203.0.113.40';
    const wallets = [];
    for (let i = 0; i < 15; i++) wallets.push(await t.signIn());
    let accepted = 0;
    const refusals: Array<Record<string, unknown>> = [];
    for (const wallet of wallets) {
      for (let j = 0; j < QUERIES_PER_USER; j++) {
        const answer = await query(address, wallet.headers);
        if (answer.status === 200) accepted++;
        else refusals.push((answer.body as { errors: Array<{ extensions: Record<string, unknown> }> }).errors[0]!.extensions);
      }
    }
    // 90 attempted, each wallet within its own budget: the address's ceiling allows 15.
    expect(accepted).toBe(QUERIES_PER_ADDRESS);
    expect(refusals.every((extensions) => extensions.code === 'RATE_LIMITED')).toBe(true);
    expect((await query(address, {})).status).toBe(429);
    // The same wallets from another address, and a stranger elsewhere, are served.
    expect((await query('203.0.113.41', wallets[14]!.headers)).status).toBe(200);
    expect((await query('203.0.113.42', {})).status).toBe(200);
  });

  it('the ceiling is the binding budget the answer shows when it has less left than the user’s', async () => {
    const address = '203.0.113.50';
    const [first, second] = [await t.signIn(), await t.signIn()];
    for (let i = 0; i < QUERIES_PER_USER; i++) expect((await query(address, first.headers)).status).toBe(200);
    for (let i = 0; i < 6; i++) expect((await query(address, second.headers)).status).toBe(200);
    const shown = await query(address, (await t.signIn()).headers);
    expect(shown.body.data!.rateLimit).toEqual({ subject: 'ADDRESS', limit: QUERIES_PER_ADDRESS, remaining: 2 });
  });

  it('uploads: fresh wallets from one address share its ceiling, each within its own', async () => {
    const before = (await t.database.db.select().from(tables.images)).length;
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) {
      const wallet = await t.signIn();
      for (let j = 0; j < UPLOADS_PER_USER; j++) {
        const response = await t.app.inject({
          method: 'POST',
          url: '/images',
          remoteAddress: '203.0.113.60',
          payload: multipart(makePng(4, 4)),
          headers: { ...wallet.headers, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        });
        statuses.push(response.statusCode);
        if (response.statusCode === 429) expect(response.json().errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED' });
      }
    }
    expect(statuses.filter((status) => status === 201)).toHaveLength(UPLOADS_PER_ADDRESS);
    expect(statuses.filter((status) => status === 429)).toHaveLength(30 - UPLOADS_PER_ADDRESS);
    expect((await t.database.db.select().from(tables.images)).length - before).toBe(UPLOADS_PER_ADDRESS);
    // Another address is not held by this one's ceiling.
    const elsewhere = await t.signIn();
    expect((await t.upload(makePng(4, 4), elsewhere.headers)).status).toBe(201);
  });
});

const BOUNDARY = '----poolgraphceiling';
function multipart(bytes: Uint8Array): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    Buffer.from(bytes),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}
