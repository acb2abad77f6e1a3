import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreakRewardRow, UserRow } from '../../schema/index.js';
import { INCLUDABLE } from '../../src/server/rest/mapping.js';
import { seedVariedPools, type VariedPools } from '../support/fixtures/varied-pools.js';
import { backends, metricSample, renderedReadsServed, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { signInAs } from '../support/sessions.js';
import { delayEveryStatement } from '../support/slow-database.js';

/** GraphQL's answer in the interface's names: keys to snake_case, `{ nodes }` connections to arrays (written apart from the code under test). */
function snakeCase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeCase);
  if (value === null || typeof value !== 'object') return value;
  if ('nodes' in value && Object.keys(value).length === 1) return snakeCase((value as { nodes: unknown }).nodes);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snakeCase(v)]));
}
const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

describe.each(backends)('the REST form answers what GraphQL answers, in the interface’s shape, on %s', (kind) => {
  let t: TestApp;
  /** The scalar fields of a resource as the OpenAPI document lists them, as a GraphQL selection. */
  let fields: (resource: string, except?: string[]) => string;
  /** The varied fixture (24 pools: 8 ACTIVE or RESOLVED, 3 streaks) and one user with two rewards in its first streak. */
  let world: VariedPools;
  let rewarded: UserRow;
  let streakRewards: StreakRewardRow[];

  beforeAll(async () => {
    t = await startEmptyTestApp(kind, { config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000' }) });
    world = await seedVariedPools(t.seed, t.database);
    const streak = world.streaks[0]!;
    ({ user: rewarded, streakRewards } = await t.seed.user().withStreakReward(streak, { isClaimed: true }).withStreakReward(streak));
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    fields = (resource, except = []) => {
      const properties = document.components.schemas[resource].properties as Record<string, Record<string, unknown>>;
      const scalar = Object.entries(properties).filter(
        ([, schema]) => !schema.$ref && !schema.anyOf && !(schema.items as { $ref?: string })?.$ref,
      );
      return scalar
        .map(([name]) => camel(name))
        .filter((name) => !except.includes(name))
        .join(' ');
    };
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
  const post = (url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, payload: payload as object, headers });
  const user = () => `{ ${fields('User', ['email'])} }`;
  const streak = () => `{ ${fields('Streak')} }`;
  const pool = () => fields('Pool');

  it('GET /pools: sort_by, filter_by in both list syntaxes, includes with dotted paths; paging metadata in headers', async () => {
    const url =
      '/pools?sort_by=VOLUME_HIGH&filter_by[]=ACTIVE&filter_by[]=RESOLVED&includes[]=user&includes[]=predictions.user&includes[]=streak&predictions_limit=3&limit=5';
    const rest = await get(url);
    expect(rest.statusCode, rest.body).toBe(200);
    const graphql = await t.gql(`{ pools(filter: { status: [ACTIVE, RESOLVED] }, sort: VOLUME_HIGH, first: 5) {
      totalCount pageInfo { endCursor } nodes { ${pool()} user ${user()} streak ${streak()} predictions(first: 3) { nodes { ${fields('Prediction')} user ${user()} } } } } }`);
    expect(graphql.errors).toBeUndefined();
    expect(rest.json()).toEqual(snakeCase(graphql.data.pools.nodes));
    expect(rest.json()).toHaveLength(5);
    // The busiest pool (10 predictions, resolved) has the highest volume.
    expect(rest.json()[0].id).toBe(world.busiestPool.id);
    expect(rest.json()[0].predictions).toHaveLength(3);
    // 6 resolved, and 2 ACTIVE: the fixture's other open pools' windows open later today.
    expect(rest.headers['x-total-count']).toBe('8');
    expect(graphql.data.pools.totalCount).toBe(8);
    expect(rest.headers['x-next-cursor']).toBe(graphql.data.pools.pageInfo.endCursor);
    const repeated = await get(url.replaceAll('filter_by[]', 'filter_by').replaceAll('includes[]', 'includes'));
    expect(repeated.json()).toEqual(rest.json());

    // Without includes, no relation is embedded; search, and the streak, creator and reference-date filters map too.
    // A pool in a streak with "price" in its title; the filters together keep it alone.
    const aPool = world.pools.find((p) => p.streakId !== null && /price/i.test(p.title))!;
    const filtered = await get(
      `/pools?query=price&streak_id=${aPool!.streakId}&created_by=${aPool!.createdBy}&reference_date=${aPool!.referenceDate.toISOString()}&sort_by=CREATION_DATE`,
    );
    const expected = await t.gql(
      `query($f: PoolFilter) { pools(filter: $f, search: "price", sort: CREATION_DATE) { nodes { ${pool()} } } }`,
      {
        f: { streakId: aPool!.streakId, createdBy: aPool!.createdBy, referenceDate: aPool!.referenceDate.toISOString() },
      },
    );
    expect(filtered.json()).toEqual(snakeCase(expected.data.pools.nodes));
    expect(filtered.json().map((p: { id: string }) => p.id)).toEqual([aPool.id]);
    expect(Object.keys(filtered.json()[0])).not.toContain('user');
  });

  it('GET /pools pages by offset/limit and by cursor (Link rel="next"), and refuses bad parameters with BAD_USER_INPUT', async () => {
    const all = (await t.gql(`{ pools(sort: CREATION_DATE, first: 100) { nodes { id } } }`)).data.pools.nodes.map(
      (p: { id: string }) => p.id,
    );
    expect(all).toHaveLength(24);
    const page = await get('/pools?sort_by=CREATION_DATE&limit=4&offset=6');
    expect(page.json().map((p: { id: string }) => p.id)).toEqual(all.slice(6, 10));

    const followed: string[] = [];
    let next: string | undefined = '/pools?sort_by=CREATION_DATE&limit=7';
    while (next) {
      const response = await get(next);
      followed.push(...response.json().map((p: { id: string }) => p.id));
      next = /^<([^>]+)>; rel="next"$/.exec(String(response.headers.link ?? ''))?.[1];
    }
    expect(followed).toEqual(all);

    const cursor = String((await get('/pools?limit=2')).headers['x-next-cursor']);
    const refused: Array<[string, string]> = [
      [`/pools?offset=2&cursor=${cursor}`, 'offset'],
      ['/pools?limit=0', 'limit'],
      ['/pools?limit=101', 'limit'],
      ['/pools?sort_by=NEWEST', 'sort_by'],
      ['/pools?filter_by=OPEN', 'filter_by'],
      ['/pools?includes=user.avatar', 'includes'],
      ['/pools?cursor=not-a-cursor', 'cursor'],
    ];
    for (const [url, parameter] of refused) {
      const response = await get(url);
      expect([response.statusCode, response.json().error?.code, response.json().error?.argumentName], url).toEqual([
        400,
        'BAD_USER_INPUT',
        parameter,
      ]);
    }
    // The SDK's mint_address is taken; a parameter no route names is refused, never ignored.
    expect((await get(`/pools?sort_by=CREATION_DATE&limit=4&offset=6&mint_address=${world.pools[0]!.stakeTokenMint}`)).json()).toEqual(
      page.json(),
    );
    const unknown = await get('/pools?sort_by=CREATION_DATE&colour=red');
    expect([unknown.statusCode, unknown.json().error]).toEqual([
      400,
      expect.objectContaining({ code: 'BAD_USER_INPUT', argumentName: 'colour' }),
    ]);
  });

  it('takes the forms clients send: comma lists, brackets, any case, 1/0, date-only; refuses the rest naming the parameter', async () => {
    const canonical = await get(
      '/pools?sort_by=VOLUME_HIGH&filter_by=ACTIVE&filter_by=RESOLVED&includes=user&includes=predictions&predictions_limit=2&limit=5',
    );
    expect(canonical.statusCode, canonical.body).toBe(200);
    expect(canonical.json()).toHaveLength(5);
    for (const url of [
      '/pools?sort_by=VOLUME_HIGH&filter_by=ACTIVE,RESOLVED&includes=user,predictions&predictions_limit=2&limit=5',
      '/pools?sort_by=volume_high&filter_by[]=active&filter_by[]=Resolved&includes[]=user&includes[]=predictions' +
        '&predictions_limit=2&limit=5',
      '/pools?sort_by=Volume_High&filter_by=ACTIVE,&filter_by[]=RESOLVED&includes=USER, predictions&predictions_limit=2&limit=5',
      '/pools?sort_by=VOLUME_HIGH&filter_by[0]=ACTIVE&filter_by[1]=RESOLVED&includes[0]=user&includes[1]=predictions&predictions_limit=2&limit=5',
    ]) {
      const response = await get(url);
      expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
      expect(response.json(), url).toEqual(canonical.json());
      expect(response.headers['x-total-count']).toBe(canonical.headers['x-total-count']);
    }

    // includes[]=predictions.pool: each embedded prediction carries its pool, without relations.
    const nested = await get('/pools?sort_by=VOLUME_HIGH&includes[]=predictions.pool&predictions_limit=2&limit=1');
    expect(nested.statusCode, nested.body).toBe(200);
    const [busiest] = nested.json();
    const { predictions, ...poolFields } = busiest;
    expect(predictions).toHaveLength(2);
    for (const prediction of predictions) expect(prediction.pool).toEqual(poolFields);

    // A date alone is that UTC day, as the full timestamp of any time of it is.
    const dated = world.pools.find((p) => p.streakId !== null)!;
    const day = dated.referenceDate.toISOString().slice(0, 10);
    const byDay = await get(`/pools?reference_date=${day}&limit=100`);
    expect(byDay.statusCode, byDay.body).toBe(200);
    expect(byDay.json().map((p: { id: string }) => p.id)).toContain(dated.id);
    expect(byDay.json()).toEqual((await get(`/pools?reference_date=${day}T23:59:59Z&limit=100`)).json());

    // Booleans as 1/0, and participated_only=false (the list never filters by participation).
    const streakId = world.streaks[0]!.id;
    for (const [given, meaning] of [
      ['1', 'true'],
      ['0', 'false'],
      ['TRUE', 'true'],
    ]) {
      const asGiven = await get(`/streak/pools?streak_id=${streakId}&past_only=${given}&participated_only=false`);
      expect(asGiven.statusCode, asGiven.body).toBe(200);
      expect(asGiven.json()).toEqual((await get(`/streak/pools?streak_id=${streakId}&past_only=${meaning}`)).json());
    }
    expect((await get(`/streak/pools?streak_id=${streakId}&past_only=1`)).headers['x-total-count']).toBe('4');

    const refused: Array<[string, string]> = [
      ['/pools?search=price', 'search'],
      ['/pools?page=2', 'page'],
      ['/pools?filter=ACTIVE', 'filter'],
      ['/pools?sort_by=END_DATE&sort_by=VOLUME_LOW', 'sort_by'],
      ['/pools?filter_by=ACTIVE,OPEN', 'filter_by'],
      ['/pools?includes=user,avatar', 'includes'],
      ['/pools?reference_date=2026-13-45', 'reference_date'],
      [`/pools/${dated.id}?limit=2`, 'limit'],
      [`/streak/pools?streak_id=${streakId}&past_only=yes`, 'past_only'],
      [`/streak/pools?streak_id=${streakId}&participated_only=true`, 'participated_only'],
      [`/streak/pools?streak_id=${streakId}&cursor_id=1`, 'cursor_id'],
    ];
    for (const [url, parameter] of refused) {
      const response = await get(url);
      expect([response.statusCode, response.json().error?.code, response.json().error?.argumentName], url).toEqual([
        400,
        'BAD_USER_INPUT',
        parameter,
      ]);
      expect(response.json().error.message, url).toContain(parameter);
    }
    // An enum's refusal lists the values it takes.
    const sort = (await get('/pools?sort_by=NEWEST')).json().error.message;
    expect(sort).toContain('END_DATE, CREATION_DATE, OLD_CREATION_DATE, VOLUME_HIGH, VOLUME_LOW');

    // An unknown path answers in the REST shape; /graphql's own refusals keep GraphQL's.
    const missing = await get('/pool?limit=1');
    expect([missing.statusCode, missing.json()]).toEqual([
      404,
      { error: { code: 'ROUTE_NOT_FOUND', message: 'No route answers GET /pool' } },
    ]);
    expect((await get('/graphql/nothing')).json().errors[0].extensions.code).toBe('ROUTE_NOT_FOUND');
  });

  it('pages the caller’s streak rewards with offset/limit, as the SDK sends them', async () => {
    const reward = streakRewards[0]!;
    const session = await signInAs(t, rewarded.id);
    const all = (await get(`/streak/user-details?streak_id=${reward.streakId}`, session.headers)).json().streak_rewards;
    expect(all).toHaveLength(2);
    const first = await get(`/streak/user-details?streak_id=${reward.streakId}&offset=0&limit=1`, session.headers);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().streak_rewards).toEqual(all.slice(0, 1));
    expect((await get(`/streak/user-details?streak_id=${reward.streakId}&offset=1`, session.headers)).json().streak_rewards).toEqual(
      all.slice(1),
    );
  });

  it('creates an API key over REST, and serves the schema with an ETag (304 when unchanged)', async () => {
    const session = await signInAs(t, world.creators[1]!.id);
    const created = await post('/auth/api-keys', { name: 'rest bot' }, session.headers);
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json().key).toMatchObject({ name: 'rest bot', is_active: true, user_id: world.creators[1]!.id, last_used_at: null });
    const me = await get('/auth/me', { 'x-api-key': created.json().api_key });
    expect(me.json().id).toBe(world.creators[1]!.id);
    expect((await post('/auth/api-keys', { name: 'anonymous' })).statusCode).toBe(401);
    expect((await post('/auth/api-keys', {}, session.headers)).json().error).toMatchObject({
      code: 'BAD_USER_INPUT',
      argumentName: 'name',
    });

    const sdl = await get('/schema.graphql');
    expect(sdl.statusCode).toBe(200);
    expect(sdl.headers['content-type']).toMatch(/^application\/graphql/);
    expect(sdl.body).toContain('type Query');
    expect(sdl.body).toContain('rateLimit: RateLimit');
    const etag = String(sdl.headers.etag);
    expect(etag).toMatch(/^"[\w-]{43}"$/);
    const again = await get('/schema.graphql', { 'if-none-match': etag });
    expect([again.statusCode, again.body]).toEqual([304, '']);
    expect((await get('/schema.graphql', { 'if-none-match': `W/${etag}, "other"` })).statusCode).toBe(304);
    expect((await get('/schema.graphql', { 'if-none-match': '"stale"' })).statusCode).toBe(200);
  });

  it('GET /pools/{id} answers GraphQL pool with the relations asked for; 404 and 400 otherwise', async () => {
    // The busiest pool is resolved, with 10 predictions, each with a reward.
    const resolved = world.busiestPool;
    const rest = await get(`/pools/${resolved!.id}?includes=resolution&includes=image&includes=predictions.reward`);
    expect(rest.statusCode, rest.body).toBe(200);
    const graphql = await t.gql(
      `query($id: ID!) { pool(id: $id) { ${pool()} resolution { ${fields('Resolution')} } image { ${fields('Image')} }
      predictions(first: 20) { nodes { ${fields('Prediction')} reward { ${fields('Reward')} } } } } }`,
      { id: resolved!.id },
    );
    expect(rest.json()).toEqual(snakeCase(graphql.data.pool));
    expect(rest.json().resolution.pool_id).toBe(resolved.id);
    expect(rest.json().predictions).toHaveLength(10);
    for (const prediction of rest.json().predictions) expect(prediction.reward.prediction_id).toBe(prediction.id);
    expect((await get('/pools/00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await get('/pools/00000000-0000-4000-8000-000000000000')).json().error.code).toBe('NOT_FOUND');
    expect((await get('/pools/42')).json().error).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: 'id' });
  });

  it('GET /streak/pools answers { pools, streak } as GraphQL streakPools does; 404 for an unknown streak', async () => {
    // The first streak has 8 pools, 4 of them past their prediction window.
    const aStreak = world.streaks[0];
    for (const pastOnly of [false, true]) {
      const rest = await get(`/streak/pools?streak_id=${aStreak!.id}&past_only=${pastOnly}&limit=3&includes=user`);
      expect(rest.statusCode, rest.body).toBe(200);
      const graphql = await t.gql(
        `query($s: ID!, $p: Boolean) { streakPools(streakId: $s, pastOnly: $p, first: 3) { streak ${streak()} pools { totalCount nodes { ${pool()} user ${user()} } } } }`,
        {
          s: aStreak!.id,
          p: pastOnly,
        },
      );
      expect(rest.json()).toEqual({
        pools: snakeCase(graphql.data.streakPools.pools.nodes),
        streak: snakeCase(graphql.data.streakPools.streak),
      });
      expect(rest.headers['x-total-count']).toBe(String(graphql.data.streakPools.pools.totalCount));
      expect(rest.headers['x-total-count']).toBe(pastOnly ? '4' : '8');
      expect(rest.json().pools).toHaveLength(3);
    }
    const unknown = await get('/streak/pools?streak_id=00000000-0000-4000-8000-000000000000');
    expect([unknown.statusCode, unknown.json().error.code, unknown.json().error.argumentName]).toEqual([404, 'NOT_FOUND', 'streak_id']);
    expect((await get('/streak/pools')).json().error).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: 'streak_id' });
  });

  it('GET /streak/user-details answers GraphQL streakUserDetails for the caller; 401 signed out', async () => {
    const reward = streakRewards[0];
    const session = await signInAs(t, rewarded.id);
    for (const claimed of ['', '&is_claimed=false', '&is_claimed=true']) {
      const rest = await get(`/streak/user-details?streak_id=${reward!.streakId}${claimed}`, session.headers);
      expect(rest.statusCode, rest.body).toBe(200);
      const graphql = await t.gql(
        `query($s: ID!, $c: Boolean) { streakUserDetails(streakId: $s, isClaimed: $c) {
        streak ${streak()} currentStreakCount lastStreakEvent lastPoolParticipatedAt currentStreakScores lastProcessedPoolId
        streakRewards { ${fields('StreakReward')} streak ${streak()} } } }`,
        { s: reward!.streakId, c: claimed ? claimed.endsWith('true') : null },
        session.headers,
      );
      expect(rest.json()).toEqual(snakeCase(graphql.data.streakUserDetails));
    }
    const all = (await get(`/streak/user-details?streak_id=${reward!.streakId}`, session.headers)).json();
    expect(all.streak_rewards.map((r: { id: string }) => r.id).sort()).toEqual(streakRewards.map((r) => r.id).sort());
    const unclaimed = (await get(`/streak/user-details?streak_id=${reward!.streakId}&is_claimed=false`, session.headers)).json();
    expect(unclaimed.streak_rewards.map((r: { id: string }) => r.id)).toEqual([streakRewards[1]!.id]);
    const anonymous = await get(`/streak/user-details?streak_id=${reward!.streakId}`);
    expect([anonymous.statusCode, anonymous.json().error.code]).toEqual([401, 'UNAUTHENTICATED']);
  });

  it('identity: an API key opens a session with cookies; /auth/me, /auth/refresh and /auth/logout act on it', async () => {
    const someone = world.creators[0];
    const signedIn = await signInAs(t, someone!.id);
    const created = await t.gql(`mutation { createApiKey(name: "bot") { apiKey } }`, {}, signedIn.headers);
    const apiKey = created.data.createApiKey.apiKey as string;

    const session = await post('/auth/session', { api_key: apiKey });
    expect(session.statusCode, session.body).toBe(200);
    expect(Object.keys(session.json()).sort()).toEqual([
      'access_token',
      'access_token_expires_at',
      'refresh_token',
      'refresh_token_expires_at',
      'user',
    ]);
    const cookies = [session.headers['set-cookie']]
      .flat()
      .map((c) => String(c).split(';')[0])
      .join('; ');
    expect(cookies).toContain('poolgraph_access=');
    const me = await get('/auth/me', { cookie: cookies });
    const viewer = await t.gql(`{ viewer { ${fields('User')} } }`, {}, { authorization: `Bearer ${session.json().access_token}` });
    expect(me.json()).toEqual(snakeCase(viewer.data.viewer));
    expect(me.json().id).toBe(someone!.id);
    // The SDK's header, and the x-api-key header, work as the body does; a wrong key is 401, none 400.
    const bySdkHeader = await post('/auth/session', undefined, { 'trepa-api-key': apiKey });
    expect(bySdkHeader.statusCode, bySdkHeader.body).toBe(200);
    expect((await post('/auth/session', undefined, { 'x-api-key': apiKey })).statusCode).toBe(200);
    expect((await post('/auth/session', { api_key: 'pgk_wrong' })).json().error.code).toBe('UNAUTHENTICATED');
    expect((await post('/auth/session', { api_key: 'pgk_wrong' })).statusCode).toBe(401);
    expect((await post('/auth/session')).json().error).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: 'api_key' });

    const refreshed = await post('/auth/refresh', { refresh_token: session.json().refresh_token });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expect(refreshed.json().refresh_token).not.toBe(session.json().refresh_token);
    expect((await post('/auth/refresh', { refresh_token: session.json().refresh_token })).statusCode).toBe(401);
    const out = await post('/auth/logout', { refresh_token: refreshed.json().refresh_token });
    expect(out.json()).toEqual({ signed_out: true });
    expect((await post('/auth/refresh', { refresh_token: refreshed.json().refresh_token })).statusCode).toBe(401);
    expect((await get('/auth/me')).statusCode).toBe(401);
  });

  it('errors keep the catalogue’s status and the REST shape: 503 with Retry-After, 413, non-JSON bodies, the cost limit', async () => {
    const { headers } = await signInAs(t, world.predictors[0]!.id);
    const aPool = world.pools[1];
    // This app has no chain.
    const noChain = await post('/transactions/prediction', { pool_id: aPool!.id, stake: 1, value: 1 }, headers);
    expect([noChain.statusCode, noChain.json().error.code, noChain.headers['retry-after']]).toEqual([503, 'CHAIN_UNAVAILABLE', '5']);
    const huge = await post('/auth/wallet/challenge', { wallet_address: 'x'.repeat(200_000) });
    expect([huge.statusCode, huge.json().error.code]).toEqual([413, 'REQUEST_TOO_LARGE']);
    const text = await t.app.inject({
      method: 'POST',
      url: '/transactions/withdraw',
      payload: '{}',
      headers: { ...headers, 'content-type': 'text/plain' },
    });
    expect([text.statusCode, text.json().error.code]).toEqual([400, 'BAD_USER_INPUT']);
    const bodyless = await t.app.inject({ method: 'POST', url: '/transactions/withdraw', headers });
    expect([bodyless.statusCode, bodyless.json().error.code]).toEqual([400, 'BAD_USER_INPUT']);
    const costly = await get('/pools?limit=100&includes=predictions.user&includes=predictions.reward&predictions_limit=100');
    expect([costly.statusCode, costly.json().error.code, costly.json().error.limit]).toEqual([400, 'QUERY_TOO_COMPLEX', 'cost']);
  });

  it('REST operations are GraphQL operations in the metrics, by their operation name', async () => {
    const count = async () =>
      metricSample((await get('/metrics')).body, 'poolgraph_graphql_operations_total', { operation: 'RestGetPool', outcome: 'ok' });
    const before = await count();
    expect((await get(`/pools/${world.pools[1]!.id}`)).statusCode).toBe(200);
    expect(await count()).toBe(before + 1);
  });

  it('answers a rendered read from its JSON text byte for byte as the executed read answers, every include and route', async () => {
    const executor = await (
      await import('../../src/server/app.js')
    ).createApp({ config: testConfig({ RENDERED_READS: 'false' }), database: t.database });
    try {
      const includes = INCLUDABLE;
      const streakId = world.streaks[0]!.id;
      const urls = [
        ...includes.map(
          (include, i) => `/pools?sort_by=${i % 2 ? 'VOLUME_HIGH' : 'CREATION_DATE'}&includes=${include}&limit=6&predictions_limit=4`,
        ),
        `/pools?sort_by=VOLUME_HIGH&includes=${includes.join(',')}&limit=20&predictions_limit=10`,
        `/pools?filter_by=RESOLVED&includes=resolution,predictions.reward&limit=3&offset=2`,
        '/pools?limit=2',
        `/pools/${world.busiestPool.id}?includes=${includes.join(',')}`,
        `/pools/${world.busiestPool.id}`,
        `/streak/pools?streak_id=${streakId}&includes=user,predictions.user&limit=3`,
      ];
      let rendered = 0;
      for (const url of urls) {
        const executed = await executor.inject({ method: 'GET', url });
        expect(executed.statusCode, `${url}: ${executed.body}`).toBe(200);
        const before = await renderedReadsServed(t.app);
        const answered = await get(url);
        rendered += (await renderedReadsServed(t.app)) - before;
        expect(answered.body, url).toBe(executed.body);
        expect(answered.headers['content-type'], url).toBe(executed.headers['content-type']);
        for (const header of ['x-total-count', 'x-next-cursor', 'link'])
          expect(answered.headers[header], `${url} ${header}`).toBe(executed.headers[header]);
      }
      // Every one was answered from a rendered read's text, none fell back to the executor.
      expect(rendered).toBe(urls.length);
      const missing = await get('/pools/00000000-0000-4000-8000-000000000000');
      expect([missing.statusCode, missing.json().error.code]).toEqual([404, 'NOT_FOUND']);
    } finally {
      await executor.close();
    }
  });
});

describe('the REST form shares GraphQL’s rate limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    // No rows: only the budget is checked.
    t = await startEmptyTestApp('pglite', { config: testConfig({ RATE_LIMIT_QUERIES_PER_MINUTE: '2' }) });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts REST reads against the query budget of /graphql; the third gets 429 with Retry-After', async () => {
    expect((await t.gql(`{ pools(first: 1) { totalCount } }`)).errors).toBeUndefined();
    expect((await t.app.inject({ method: 'GET', url: '/pools?limit=1' })).statusCode).toBe(200);
    const limited = await t.app.inject({ method: 'GET', url: '/pools?limit=1' });
    expect([limited.statusCode, limited.json().error.code]).toEqual([429, 'RATE_LIMITED']);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json().error.retryAfter).toBe(Number(limited.headers['retry-after']));
  });
});

describe('the REST form keeps the time budget of /graphql', () => {
  let t: TestApp;
  beforeAll(async () => {
    // No rows: the list's first statement is already slower than the budget.
    t = await startEmptyTestApp('pglite', { config: testConfig({ REQUEST_TIMEOUT_MS: '300' }) });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers 504 OPERATION_TIMEOUT in the REST shape past the budget', async () => {
    // Every statement takes 400 ms: slower than the 300 ms budget.
    const fault = delayEveryStatement(t.database, 400);
    try {
      const response = await t.app.inject({ method: 'GET', url: '/pools' });
      expect(response.statusCode).toBe(504);
      expect(response.json()).toEqual({ error: { code: 'OPERATION_TIMEOUT', message: expect.stringContaining('300 ms'), budgetMs: 300 } });
    } finally {
      fault.restore();
      await fault.drained();
    }
  });
});
