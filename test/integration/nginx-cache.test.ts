import { spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startEmptyTestApp, type TestApp } from '../support/harness.js';
import { signInAs, type SignedIn } from '../support/sessions.js';

/**
 * A cache in front of the service, as deployments run one: Debian's nginx with proxy_cache
 * (deploy/nginx-cache.sh and its template) in front of a poolgraph listening on a port. A
 * repeated public GET is answered by nginx (no statement reaches the database), and no answer
 * for a signed-in user, nor any the service marks private, is ever served from it. Runs where
 * nginx is installed; .ci/run installs it.
 */
const nginx = spawnSync('sh', ['-c', 'command -v nginx || ls /usr/sbin/nginx'], { encoding: 'utf8' });
const runnable = nginx.status === 0;
const env = { ...process.env, NGINX_CACHE_DIR: `/tmp/poolgraph-nginx-cache-test-${process.pid}` };
const script = (...args: string[]) => {
  const run = spawnSync('deploy/nginx-cache.sh', args, { env, encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) throw new Error(`nginx-cache.sh ${args.join(' ')} failed:\n${run.stdout}\n${run.stderr}`);
  return run.stdout;
};
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

interface Answer {
  status: number;
  cache: string | null;
  cacheControl: string | null;
  contentType: string | null;
  body: any;
}

const title =
  'nginx with proxy_cache in front (deploy/nginx-cache.sh)' +
  (runnable ? '' : ': skipped, nginx is not installed (Debian: apt-get install nginx; .ci/run installs it)');

describe.skipIf(!runnable)(title, () => {
  // Postgres where the run has it (as deployments do), else PGlite: the cache does not care.
  const kind = backends.at(-1)!;
  let t: TestApp;
  let base: string;
  let alice: SignedIn;
  let bob: SignedIn;
  let poolId: string;
  // Unique to this run: no answer of another run can be in the cache.
  const marker = randomUUID().slice(0, 8);

  beforeAll(async () => {
    t = await startEmptyTestApp(kind);
    const a = await t.seed.user({ username: `alice_${marker}` }).withPool();
    const b = await t.seed.user({ username: `bob_${marker}` }).withPool();
    poolId = a.pool!.id;
    alice = await signInAs(t, a.user.id);
    // Bob signs in as a browser does: the session cookie, not the Authorization header.
    const bobSession = await signInAs(t, b.user.id);
    bob = { ...bobSession, headers: { cookie: `poolgraph_access=${bobSession.accessToken}` } };
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const url = /^NGINX_CACHE_URL=(\S+)$/m.exec(script('start', new URL(address).host));
    base = url![1]!;
  }, 120_000);
  afterAll(async () => {
    script('stop');
    await t?.close();
  });

  const send = async (path: string, init: RequestInit = {}): Promise<Answer> => {
    const response = await fetch(`${base}${path}`, init);
    const text = await response.text();
    return {
      status: response.status,
      cache: response.headers.get('x-cache-status'),
      cacheControl: response.headers.get('cache-control'),
      contentType: response.headers.get('content-type'),
      body: text ? JSON.parse(text) : null,
    };
  };
  /** A GraphQL GET as a client sends one (CSRF prevention wants the preflight header). */
  const get = (params: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) search.set(name, typeof value === 'string' ? value : JSON.stringify(value));
    return send(`/graphql?${search}`, { headers: { 'apollo-require-preflight': 'true', ...headers } });
  };
  const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    send('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  /** The answer of `work` and the statements that reached the database while it ran. */
  const counted = async (work: () => Promise<Answer>): Promise<[Answer, number]> => {
    let answer: Answer | undefined;
    const statements = await t.countStatements(async () => (answer = await work()));
    return [answer!, statements];
  };

  it('a public GET: the first reaches the service, the second identical one is served by nginx with no statement', async () => {
    const query = `query Public${marker} { pools(first: 5) { totalCount nodes { id title user { username } } } }`;
    const [first, firstStatements] = await counted(() => get({ query }));
    expect(first.status).toBe(200);
    expect(first.cacheControl).toBe('max-age=60, public');
    expect(first.cache).toBe('MISS');
    expect(firstStatements).toBeGreaterThan(0);
    const [second, statements] = await counted(() => get({ query }));
    expect(second.cache).toBe('HIT');
    expect(statements).toBe(0);
    expect(second.body).toEqual(first.body);
    expect(second.body.data.pools.totalCount).toBe(2);

    // Other variables are another key: the service answers them.
    const withVariables = `query Page${marker}($n: Int) { pools(first: $n) { nodes { id } } }`;
    const [one, oneStatements] = await counted(() => get({ query: withVariables, variables: { n: 1 } }));
    const [two, twoStatements] = await counted(() => get({ query: withVariables, variables: { n: 2 } }));
    expect([one.cache, two.cache]).toEqual(['MISS', 'MISS']);
    expect([oneStatements, twoStatements].every((n) => n > 0)).toBe(true);
    expect([one.body.data.pools.nodes.length, two.body.data.pools.nodes.length]).toEqual([1, 2]);
    const [again, againStatements] = await counted(() => get({ query: withVariables, variables: { n: 1 } }));
    expect([again.cache, againStatements]).toEqual(['HIT', 0]);
    expect(again.body).toEqual(one.body);
  });

  it('the same with automatic persisted queries: GET by hash twice, the second served by nginx', async () => {
    const query = `query Persisted${marker} { leaderboard(first: 3) { nodes { rank user { username } } } pools(first: 2) { nodes { id } } }`;
    const extensions = { persistedQuery: { version: 1, sha256Hash: sha256(query) } };
    // Unknown yet: the service says so, and that answer is not kept (or the hash would stay unknown).
    const unknown = await get({ extensions });
    expect(unknown.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(unknown.cache).toBe('MISS');
    // Registered with its text (a POST, which nginx passes through).
    const registered = await post({ query, extensions });
    expect(registered.body.errors).toBeUndefined();
    const [first, firstStatements] = await counted(() => get({ extensions }));
    expect(first.status).toBe(200);
    expect(first.body.errors).toBeUndefined();
    expect(first.cacheControl).toBe('max-age=60, public');
    expect(first.cache).toBe('MISS');
    expect(firstStatements).toBeGreaterThan(0);
    const [second, statements] = await counted(() => get({ extensions }));
    expect(second.cache).toBe('HIT');
    expect(statements).toBe(0);
    expect(second.body).toEqual(first.body);
  });

  it('a signed-in read is never served from the cache: two users alternate and each gets their own, from the database', async () => {
    const reads = [
      `query Viewer${marker} { viewer { id username } }`,
      // A public field with a viewer field: private as a whole.
      `query Mixed${marker} { pools(first: 2) { nodes { id } } viewer { id username } }`,
    ];
    const statuses: Array<string | null> = [];
    for (const query of reads) {
      for (const [user, name] of [
        [alice, 'alice'],
        [bob, 'bob'],
        [alice, 'alice'],
        [bob, 'bob'],
      ] as const) {
        const [answer, statements] = await counted(() => get({ query }, user.headers));
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        expect(answer.body.data.viewer).toEqual({ id: user.userId, username: `${name}_${marker}` });
        expect(answer.cacheControl).toBe('no-store');
        expect(statements).toBeGreaterThan(0);
        statuses.push(answer.cache);
      }
    }
    // Credentials bypass the cache: not looked up, not kept.
    expect(statuses).toEqual(Array(8).fill('BYPASS'));
    // A public read by a signed-in user reaches the service and is not kept for anyone else.
    const publicRead = `query SignedInPublic${marker} { pools(first: 3) { nodes { id title } } }`;
    const signedIn = await get({ query: publicRead }, alice.headers);
    expect([signedIn.cacheControl, signedIn.cache]).toEqual(['max-age=60, public', 'BYPASS']);
    expect((await get({ query: publicRead })).cache).toBe('MISS');
    // ...and what is kept for anonymous clients is not served to a signed-in one either.
    const [kept, keptStatements] = await counted(() => get({ query: publicRead }, bob.headers));
    expect(kept.cache).toBe('BYPASS');
    expect(keptStatements).toBeGreaterThan(0);
  });

  it('an answer the service marks private is not kept even without credentials (nginx honours Cache-Control)', async () => {
    // `node` may be of any type, private ones too: no-store whoever asks.
    const query = `query Node${marker}($id: ID!) { node(id: $id) { id } }`;
    for (let i = 0; i < 3; i++) {
      const [answer, statements] = await counted(() => get({ query, variables: { id: poolId } }));
      expect(answer.body.data.node.id).toBe(poolId);
      expect(answer.cacheControl).toBe('no-store');
      expect(answer.cache).toBe('MISS');
      expect(statements).toBeGreaterThan(0);
    }
  });

  it('a POST is never served from the cache, not even of a query a GET has cached', async () => {
    const query = `query Posted${marker} { pools(first: 4) { nodes { id } } }`;
    expect((await get({ query })).cache).toBe('MISS');
    expect((await get({ query })).cache).toBe('HIT');
    for (let i = 0; i < 3; i++) {
      const [answer, statements] = await counted(() => post({ query }));
      expect(answer.status).toBe(200);
      expect(answer.cacheControl).toBe('max-age=60, public');
      expect(answer.cache).not.toBe('HIT');
      expect(statements).toBeGreaterThan(0);
    }
  });

  it('the key includes Accept: an answer kept as application/json is not served to a client asking for graphql-response+json', async () => {
    const query = `query Accept${marker} { pools(first: 1) { nodes { id } } }`;
    const json = await get({ query }, { accept: 'application/json' });
    expect(json.contentType).toMatch(/^application\/json/);
    expect((await get({ query }, { accept: 'application/json' })).cache).toBe('HIT');
    const [graphqlResponse, statements] = await counted(() => get({ query }, { accept: 'application/graphql-response+json' }));
    expect(graphqlResponse.cache).toBe('MISS');
    expect(graphqlResponse.contentType).toMatch(/^application\/graphql-response\+json/);
    expect(statements).toBeGreaterThan(0);
  });

  it("REST reads carry their operation's cache policy: a public one is kept and served again with no statement", async () => {
    const path = '/pools?limit=3&sort_by=CREATION_DATE';
    const [first, firstStatements] = await counted(() => send(path));
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(2);
    expect(first.cacheControl).toBe('max-age=60, public');
    expect(firstStatements).toBeGreaterThan(0);
    const [second, statements] = await counted(() => send(path));
    expect(second.body).toEqual(first.body);
    expect([second.cache, statements]).toEqual(['HIT', 0]);
  });
});
