import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { ROOT_RENDERERS } from '../../src/modules/rendered-reads.js';
import { backends, renderedReadsServed, startTestApp, type TestApp, testConfig } from '../support/harness.js';
import { type SignedIn, signInAs } from '../support/sessions.js';

/**
 * Private fields on the planned roots (src/modules/rendered-reads.ts): a user's email,
 * settings, notifications and portfolio are served to that user and to admins only, on every
 * root a rendered read answers, and the viewer's own page, which renders its owned parts
 * (notifications, portfolio), writes the bytes the executor writes. On the demo data.
 */

/** The private fields of a user, as a selection. */
const PRIVATE = `email settings { id } notifications(first: 2) { nodes { id } } portfolio { activeCount realizedPnl }`;

/** Per planned root: a query reaching the private fields of `owner` (or of users including them). */
const THROUGH_ROOT: Record<string, { query: string; variables: (v: Values) => Record<string, unknown> }> = {
  user: { query: `query($id: ID!) { user(id: $id) { id ${PRIVATE} } }`, variables: (v) => ({ id: v.owner }) },
  userByWallet: { query: `query($a: String!) { userByWallet(address: $a) { id ${PRIVATE} } }`, variables: (v) => ({ a: v.wallet }) },
  pools: {
    query: `query($f: PoolFilter) { pools(first: 2, filter: $f) { nodes { user { id ${PRIVATE} } } } }`,
    variables: (v) => ({ f: { createdBy: v.owner } }),
  },
  pool: { query: `query($id: ID!) { pool(id: $id) { user { id ${PRIVATE} } } }`, variables: (v) => ({ id: v.pool }) },
  streak: {
    query: `query($id: ID!) { streak(id: $id) { pools(first: 3) { nodes { user { id ${PRIVATE} } } } } }`,
    variables: (v) => ({ id: v.streak }),
  },
  streaks: { query: `{ streaks(first: 2) { nodes { pools(first: 2) { nodes { user { id ${PRIVATE} } } } } } }`, variables: () => ({}) },
  streakPools: {
    query: `query($id: ID!) { streakPools(streakId: $id, first: 2) { pools { nodes { user { id ${PRIVATE} } } } } }`,
    variables: (v) => ({ id: v.streak }),
  },
  // The viewer's own rewards' user is the viewer; the streak's pools reach their creators.
  streakUserDetails: {
    query: `query($id: ID!) { streakUserDetails(streakId: $id) { streakRewards { user { id ${PRIVATE} } } streak { pools(first: 3) { nodes { user { id ${PRIVATE} } } } } } }`,
    variables: (v) => ({ id: v.streak }),
  },
  node: { query: `query($id: ID!) { node(id: $id) { id ... on User { ${PRIVATE} } } }`, variables: (v) => ({ id: v.owner }) },
  nodes: {
    query: `query($ids: [ID!]!) { nodes(ids: $ids) { id ... on User { ${PRIVATE} } ... on Pool { user { id ${PRIVATE} } } } }`,
    variables: (v) => ({ ids: [v.owner, v.pool] }),
  },
  // A subgraph's entities (FEDERATION_SUBGRAPH): a router asks as anyone, and is answered as its viewer.
  _entities: {
    query: `query($r: [_Any!]!) { _entities(representations: $r) { ... on User { id ${PRIVATE} } ... on Pool { user { id ${PRIVATE} } } } }`,
    variables: (v) => ({
      r: [
        { __typename: 'User', id: v.owner },
        { __typename: 'Pool', id: v.pool },
      ],
    }),
  },
  leaderboard: { query: `{ leaderboard(first: 3) { nodes { user { id ${PRIVATE} } } } }`, variables: () => ({}) },
  viewer: { query: `{ viewer { id ${PRIVATE} } }`, variables: () => ({}) },
  unreadNotificationCount: { query: `{ unreadNotificationCount viewer { id ${PRIVATE} } }`, variables: () => ({}) },
};

/** The viewer's page (bench/lib/query.ts, VIEWER) and variations: rendered for the viewer, equal to the executed answer. */
const VIEWER_PAGES: Record<string, string> = {
  'the bench page':
    `{ viewer { id username portfolio { activeCount activeStake totalStaked resolvedCount resolvedStake totalPayout realizedPnl } ` +
    `notifications(first: 10) { nodes { id createdAt type title message readAt } } ` +
    `predictions(first: 10) { nodes { id stake prediction pool { id title } reward { id amount } } } } unreadNotificationCount }`,
  'aliases, fragments, counts, backward pages':
    `{ me: viewer { __typename ...Mine latest: notifications(last: 3) { __typename totalCount nodes { __typename id user { username } } } ` +
    `p: portfolio { __typename pnl: realizedPnl activeCount } } n: unreadNotificationCount } ` +
    `fragment Mine on User { id notifications(first: 4) { totalCount nodes { title readAt } } avatar { url } }`,
};

interface Values {
  owner: string;
  wallet: string;
  pool: string;
  streak: string;
}

const forbiddenPaths = (errors: any[] | undefined) =>
  (errors ?? []).filter((e) => e.extensions?.code === 'FORBIDDEN').map((e) => (e.path as Array<string | number>).join('.'));

describe.each(backends)('private fields on planned roots on %s', (kind) => {
  let t: TestApp;
  /** The same server with RENDERED_READS=false: every operation executed. */
  let executor: FastifyInstance;
  const values: Values = { owner: '', wallet: '', pool: '', streak: '' };
  let owner: SignedIn;
  let stranger: SignedIn;
  let admin: SignedIn;

  beforeAll(async () => {
    const config = testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '1000', FEDERATION_SUBGRAPH: 'true' });
    t = await startTestApp(kind, { config });
    executor = await createApp({ config: testConfig({ RENDERED_READS: 'false', FEDERATION_SUBGRAPH: 'true' }), database: t.database });
    // The owner: the creator of the first pool of the first streak, with notifications and predictions.
    const found = await t.gql(`{ streaks(first: 1) { nodes { id pools(first: 1) { nodes { id user { id } } } } } }`);
    values.streak = found.data.streaks.nodes[0].id;
    values.pool = found.data.streaks.nodes[0].pools.nodes[0].id;
    values.owner = found.data.streaks.nodes[0].pools.nodes[0].user.id;
    owner = await signInAs(t, values.owner);
    values.wallet = (await t.gql(`{ viewer { walletAddress } }`, undefined, owner.headers)).data.viewer.walletAddress;
    const [someone, other] = await t.database.query<{ id: string }>(
      `SELECT u.id FROM users u WHERE u.id <> $1 AND NOT EXISTS (SELECT 1 FROM pools p WHERE p.created_by = u.id) ORDER BY u.id LIMIT 2`,
      [values.owner],
    );
    stranger = await signInAs(t, someone!.id);
    admin = await signInAs(t, other!.id, 'ADMIN');
  });
  afterAll(async () => {
    await executor?.close();
    await t.close();
  });

  const ask = async (app: FastifyInstance, query: string, variables: Record<string, unknown>, who: SignedIn) => {
    const before = await renderedReadsServed(app);
    const reply = await app.inject({ method: 'POST', url: '/graphql', payload: { query, variables }, headers: who.headers });
    return { body: reply.body, json: reply.json(), rendered: (await renderedReadsServed(app)) - before };
  };

  it('every planned root is covered', () => {
    expect(Object.keys(THROUGH_ROOT).sort()).toEqual(Object.keys(ROOT_RENDERERS).sort());
  });

  it.each(Object.entries(THROUGH_ROOT))('%s: private fields for their owner and admins only', async (root, { query, variables }) => {
    const vars = variables(values);
    const asStranger = await ask(t.app, query, vars, stranger);
    const asOwner = await ask(t.app, query, vars, owner);
    const asAdmin = await ask(t.app, query, vars, admin);
    if (root === 'viewer' || root === 'unreadNotificationCount') {
      // Each viewer sees their own: no one is refused, and each gets their own id.
      for (const [who, answer] of [
        [stranger, asStranger],
        [owner, asOwner],
        [admin, asAdmin],
      ] as const) {
        expect(forbiddenPaths(answer.json.errors)).toEqual([]);
        expect(answer.json.data.viewer.id).toBe(who.userId);
      }
      return;
    }
    // A stranger: every private field of every user reached is refused, and holds nothing.
    const refused = forbiddenPaths(asStranger.json.errors);
    expect(refused.length).toBeGreaterThanOrEqual(4);
    expect(asStranger.rendered).toBe(0);
    for (const field of ['email', 'settings', 'notifications', 'portfolio']) expect(refused.some((p) => p.endsWith(field))).toBe(true);
    expect(JSON.stringify(asStranger.json.data)).not.toMatch(/"(settings|notifications|portfolio)":\{/);
    // Admins read them all.
    expect(forbiddenPaths(asAdmin.json.errors)).toEqual([]);
    // The owner reads their own (the roots that reach the owner alone refuse nothing).
    if (['user', 'userByWallet', 'node', 'pools', 'pool', '_entities'].includes(root)) {
      expect(forbiddenPaths(asOwner.json.errors)).toEqual([]);
      expect(JSON.stringify(asOwner.json.data)).toMatch(/"portfolio":\{"activeCount":\d+/);
    }
  });

  it('a notification by node(id): its owner and admins see it, a stranger gets null', async () => {
    const mine = await ask(t.app, `{ viewer { notifications(first: 1) { nodes { id } } } }`, {}, owner);
    const id = mine.json.data.viewer.notifications.nodes[0].id as string;
    const query = `query($id: ID!) { node(id: $id) { id ... on Notification { title } } }`;
    expect((await ask(t.app, query, { id }, owner)).json.data.node.id).toBe(id);
    expect((await ask(t.app, query, { id }, admin)).json.data.node.id).toBe(id);
    expect((await ask(t.app, query, { id }, stranger)).json.data.node).toBeNull();
  });

  it.each(Object.entries(VIEWER_PAGES))('the viewer page, %s: rendered, the executed bytes', async (_name, query) => {
    for (const who of [owner, admin]) {
      const executed = await ask(executor, query, {}, who);
      expect(executed.json.errors, JSON.stringify(executed.json.errors)).toBeUndefined();
      const rendered = await ask(t.app, query, {}, who);
      expect(rendered.rendered).toBe(1);
      expect(rendered.body).toBe(executed.body);
    }
    // The owner's page has every part filled.
    const page = (await ask(t.app, query, {}, owner)).json.data;
    expect(JSON.stringify(page)).toMatch(/"notifications":\{[^}]*"nodes":\[\{/);
  });
});
