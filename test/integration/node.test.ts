import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { PoolRow } from '../../schema/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeTypeHints } from '../../src/modules/node/node.service.js';
import { backends, startEmptyTestApp, type TestApp, testConfig } from '../support/harness.js';
import { type SignedIn, signInAs } from '../support/sessions.js';

/**
 * `node(id)` and `nodes(ids)`: every Node type round-trips (an id read through the API
 * gives back the same object and type), private records answer null to anyone but their
 * user (and admins), exactly as an unknown id does, and the statements do not grow with
 * the number of ids.
 */

/** One object of each Node type, as its own path in the API shows it, with the fields compared. */
interface Sample {
  type: string;
  fields: string;
  object: Record<string, unknown>;
  /** Who besides the owner and admins may see it: everyone, or nobody else. */
  public: boolean;
}

describe.each(backends)('node and nodes on %s', (kind) => {
  let t: TestApp;
  let owner: SignedIn;
  let stranger: SignedIn;
  let admin: SignedIn;
  let codeCreator: SignedIn;
  const samples: Sample[] = [];

  const nodeQuery = (fields: string, type: string) => `query($id: ID!) { node(id: $id) { __typename id ... on ${type} { ${fields} } } }`;
  async function node(sample: Sample, headers?: Record<string, string>) {
    const response = await t.gql(nodeQuery(sample.fields, sample.type), { id: sample.object.id }, headers);
    expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
    return response.data.node;
  }

  beforeAll(async () => {
    t = await startEmptyTestApp(kind, { config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000' }) });
    // The owner has one of every private record the builders can write, and a rewarded
    // prediction in a resolved pool of a streak; 50 others predicted in another pool.
    const streak = await t.seed.streak();
    const { pools } = await t.seed.user().withPool({ phase: 'ended', streakId: streak.id }).withPool();
    const [resolvedPool, busyPool] = pools as [PoolRow, PoolRow];
    const ownerRows = await t.seed
      .user()
      .withSettings()
      .withNotifications([{}, {}])
      .withDeviceToken()
      .withReferralCode()
      .withImage({ avatar: true })
      .withPrediction({ pool: resolvedPool })
      .withReward()
      .withStreakReward(streak)
      .withTransaction();
    await t.seed.resolution(resolvedPool);
    await t.seed.users(50, (user) => user.withPrediction({ pool: busyPool }));
    const creatorRows = await t.seed.user().withReferralCode();
    owner = await signInAs(t, ownerRows.user.id);
    codeCreator = await signInAs(t, creatorRows.user.id);
    stranger = await signInAs(t, (await t.seed.user()).user.id);
    admin = await signInAs(t, (await t.seed.user()).user.id, 'ADMIN');

    // Records only the API creates: a redemption, an API key.
    const redeemed = await t.gql(
      `mutation($c: String!) { redeemReferralCode(code: $c) { id } }`,
      { c: creatorRows.referralCodes[0]!.code },
      owner.headers,
    );
    expect(redeemed.errors).toBeUndefined();
    expect((await t.gql(`mutation { createApiKey(name: "bot") { key { id } } }`, {}, owner.headers)).errors).toBeUndefined();

    const own = await t.gql(
      `query($streak: ID!) {
        viewer { id username settings { id userId } notifications(first: 1) { nodes { id title } } deviceTokens { id token } refreshTokens { id version }
          apiKeys { id name } referralRedemption { id referralCode { id code } } createdReferralCodes { id code } transactions(first: 1) { nodes { id operation } }
          avatar { id url } }
        streakUserDetails(streakId: $streak) { streakRewards { id amount } }
        pools(filter: { status: [RESOLVED] }, first: 30) { nodes { id title streak { id title } resolution { id result } predictions(first: 5) { nodes { id stake reward { id amount } } } } }
      }`,
      { streak: streak.id },
      owner.headers,
    );
    expect(own.errors, JSON.stringify(own.errors)).toBeUndefined();
    const v = own.data.viewer;
    const pool = own.data.pools.nodes.find((p: any) => p.streak && p.predictions.nodes.some((n: any) => n.reward));
    expect(pool, 'a resolved pool of a streak with a rewarded prediction').toBeDefined();
    const prediction = pool.predictions.nodes.find((n: any) => n.reward);
    const sample = (type: string, fields: string, object: Record<string, unknown>, isPublic: boolean) => {
      expect(object?.id, `${type}: an id through the API`).toBeTypeOf('string');
      samples.push({ type, fields, object, public: isPublic });
    };
    sample('User', 'username', { id: v.id, username: v.username }, true);
    sample('Pool', 'title', { id: pool.id, title: pool.title }, true);
    sample('Streak', 'title', pool.streak, true);
    sample('Resolution', 'result', pool.resolution, true);
    sample('Prediction', 'stake', { id: prediction.id, stake: prediction.stake }, true);
    sample('Reward', 'amount', prediction.reward, true);
    sample('Image', 'url', v.avatar, true);
    sample('Settings', 'userId', v.settings, false);
    sample('Notification', 'title', v.notifications.nodes[0], false);
    sample('DeviceToken', 'token', v.deviceTokens[0], false);
    sample('RefreshToken', 'version', v.refreshTokens[0], false);
    sample('ApiKey', 'name', v.apiKeys[0], false);
    sample('ReferralRedemption', 'referralCode { id code }', v.referralRedemption, false);
    sample('ReferralCode', 'code', v.createdReferralCodes[0], false);
    sample('UserTransaction', 'operation', v.transactions.nodes[0], false);
    sample('StreakReward', 'amount', own.data.streakUserDetails.streakRewards[0], false);
  });
  afterAll(() => t?.close());

  it('has a sample of every type implementing Node', async () => {
    const schema = await t.gql(`{ __type(name: "Node") { possibleTypes { name } } }`);
    expect(samples.map((s) => s.type).sort()).toEqual(schema.data.__type.possibleTypes.map((p: { name: string }) => p.name).sort());
  });

  it('round-trips every type: node(id) is the same object, of the same type, as its own path shows', async () => {
    for (const sample of samples) {
      expect(await node(sample, owner.headers), sample.type).toEqual({ __typename: sample.type, ...sample.object });
    }
  });

  it('nodes(ids) answers in the order given, mixing types, with null for unknown ids', async () => {
    const unknown = randomUUID();
    const ids = [unknown, ...samples.map((s) => s.object.id as string).reverse(), samples[0]!.object.id];
    const response = await t.gql(`query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`, { ids }, owner.headers);
    expect(response.errors).toBeUndefined();
    expect(response.data.nodes).toEqual([
      null,
      ...[...samples].reverse().map((s) => ({ __typename: s.type, id: s.object.id })),
      { __typename: samples[0]!.type, id: samples[0]!.object.id },
    ]);
    expect((await t.gql(`{ nodes(ids: []) { id } }`)).data.nodes).toEqual([]);
  });

  it("answers another user's private records as it answers an unknown id: null, no error", async () => {
    const privateOnes = samples.filter((s) => !s.public);
    expect(privateOnes.length).toBeGreaterThanOrEqual(9);
    for (const viewer of [stranger.headers, undefined]) {
      for (const sample of samples) {
        const found = await node(sample, viewer);
        expect(found, `${sample.type} to ${viewer ? 'another user' : 'a signed-out caller'}`).toEqual(
          sample.public ? { __typename: sample.type, ...sample.object } : null,
        );
      }
      const ids = privateOnes.map((s) => s.object.id as string);
      const response = await t.gql(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids: [...ids, randomUUID()] }, viewer);
      expect(response.errors).toBeUndefined();
      expect(response.data.nodes).toEqual(ids.map(() => null).concat([null]));
    }
  });

  it('shows private records to admins, and a referral code and its redemption to the code’s creator and its redeemer', async () => {
    for (const sample of samples)
      expect(await node(sample, admin.headers), sample.type).toEqual({ __typename: sample.type, ...sample.object });
    const redemption = samples.find((s) => s.type === 'ReferralRedemption')!;
    expect(await node(redemption, codeCreator.headers)).toEqual({ __typename: 'ReferralRedemption', ...redemption.object });
    const redeemedCode = { type: 'ReferralCode', fields: 'code', object: (redemption.object as any).referralCode, public: false };
    expect(await node(redeemedCode, owner.headers)).toEqual({ __typename: 'ReferralCode', ...redeemedCode.object });
    expect(await node(redeemedCode, codeCreator.headers)).toEqual({ __typename: 'ReferralCode', ...redeemedCode.object });
    expect(await node(redeemedCode, stranger.headers)).toBeNull();
  });

  it('refuses ids that are not UUIDs and more than 100 ids, before any statement', async () => {
    for (const [query, argument] of [
      [`{ node(id: "nope") { id } }`, 'id'],
      [`{ nodes(ids: ["${randomUUID()}", "nope"]) { id } }`, 'ids'],
      [`{ nodes(ids: [${Array.from({ length: 101 }, () => `"${randomUUID()}"`).join(', ')}]) { id } }`, 'ids'],
    ] as const) {
      let response!: Awaited<ReturnType<TestApp['gql']>>;
      expect(await t.countStatements(async () => (response = await t.gql(query)))).toBe(0);
      expect(response.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: argument });
    }
  });

  /** The texts of the read path's statements while `work` runs (the handle's `query`, which every operation's scoped view calls). */
  async function statementTexts(work: () => Promise<unknown>): Promise<string[]> {
    const texts: string[] = [];
    const database = t.database as { query: TestApp['database']['query'] };
    const query = database.query;
    database.query = ((text: string, ...rest: never[]) => {
      texts.push(text);
      return (query as (...args: unknown[]) => unknown)(text, ...rest);
    }) as typeof query;
    try {
      await work();
    } finally {
      database.query = query;
    }
    return texts;
  }
  const TABLES = ['pools', 'users', 'predictions', 'rewards', 'resolutions', 'images', 'streaks'];
  const tablesOf = (text: string) => TABLES.filter((table) => text.includes(`FROM "${table}"`));

  it("reads a refetched id's own table alone once a read has found its type; a wrong hint changes no answer", async () => {
    const { pools } = await t.seed.user().withPool();
    const id = pools[0]!.id;
    const refetch = () => t.gql(nodeQuery('title', 'Pool'), { id });
    const first = await statementTexts(async () =>
      expect((await refetch()).data.node).toEqual({ __typename: 'Pool', id, title: pools[0]!.title }),
    );
    // Not known yet: every public type's table, in one statement.
    expect(first).toHaveLength(1);
    expect(tablesOf(first[0]!).sort()).toEqual([...TABLES].sort());
    for (let i = 0; i < 2; i++) {
      const again = await statementTexts(async () => expect((await refetch()).data.node).toMatchObject({ __typename: 'Pool', id }));
      expect(again).toHaveLength(1);
      expect(tablesOf(again[0]!)).toEqual(['pools']);
    }
    // A hint is never trusted: read by a wrong one, the id is found by the executor, which looks everywhere.
    nodeTypeHints.learn(id, 'User');
    const query = `query($id: ID!) { node(id: $id) { id ... on Pool { title } ... on User { username } } }`;
    const wrong = await statementTexts(async () => expect((await t.gql(query, { id })).data.node).toEqual({ id, title: pools[0]!.title }));
    expect(tablesOf(wrong[0]!)).toEqual(['users']);
    expect(wrong.length).toBeGreaterThan(1);
  });

  it("reads refetched ids of nodes(ids) from their types' tables alone once reads have found them, in order", async () => {
    const { pools, user } = await t.seed.user().withPool().withPool();
    const ids = [pools[0]!.id, user.id, pools[1]!.id.toUpperCase()];
    const query = `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id ... on Pool { title } ... on User { username } } }`;
    const expected = [
      { __typename: 'Pool', id: pools[0]!.id, title: pools[0]!.title },
      { __typename: 'User', id: user.id, username: user.username },
      { __typename: 'Pool', id: pools[1]!.id, title: pools[1]!.title },
    ];
    const read = (asked: string[]) => statementTexts(async () => expect((await t.gql(query, { ids: asked })).data.nodes).toEqual(expected));
    // Not known yet: every public type's table, in one statement.
    const first = await read(ids);
    expect(first).toHaveLength(1);
    expect(tablesOf(first[0]!).sort()).toEqual([...TABLES].sort());
    // Known: the two types' tables, in one statement, the same answer; the pools alone, the pools' table alone.
    const again = await read(ids);
    expect(again).toHaveLength(1);
    expect(tablesOf(again[0]!).sort()).toEqual(['pools', 'users']);
    const poolsOnly = await statementTexts(async () =>
      expect((await t.gql(query, { ids: [pools[1]!.id, pools[0]!.id] })).data.nodes).toEqual([expected[2], expected[0]]),
    );
    expect(poolsOnly.map(tablesOf)).toEqual([['pools']]);
    // A hint is never trusted: a wrong one sends the ids to the executor, which looks everywhere and answers the same.
    nodeTypeHints.learn(user.id, 'Pool');
    const wrong = await read(ids);
    expect(tablesOf(wrong[0]!)).toEqual(['pools']);
    expect(wrong.length).toBeGreaterThan(1);
  });

  it('reads an id no rendered read can answer (a private record) by the executor alone once that is known', async () => {
    const rows = await t.seed.user().withNotifications([{ title: 'yours' }]);
    const reader = await signInAs(t, rows.user.id);
    const id = rows.notifications[0]!.id;
    const read = () => t.gql(`query($id: ID!) { node(id: $id) { id ... on Notification { title } } }`, { id }, reader.headers);
    // A rendered node read: each public type's object after its name.
    const renderedNode = (texts: string[]) => texts.filter((text) => /'Pool' \|\| /.test(text));
    // The first read asks every public table in vain, then the executor finds it; later reads go to the executor at once.
    for (const [attempt, expected] of [
      [1, 1],
      [2, 0],
    ] as const) {
      const texts = await statementTexts(async () => expect((await read()).data.node).toEqual({ id, title: 'yours' }));
      expect(renderedNode(texts), `read ${attempt}`).toHaveLength(expected);
    }
    // Still private: to anyone else, as an unknown id.
    expect((await t.gql(`query($id: ID!) { node(id: $id) { id } }`, { id }, stranger.headers)).data.node).toBeNull();
  });

  it('costs the same statements for 1 id as for 50, and one type lookup however many types', async () => {
    // The fixture has 51 predictions.
    const predictions = (await t.database.rows<{ id: string }>(sql`SELECT id FROM predictions ORDER BY id LIMIT 50`)).map((r) => r.id);
    expect(predictions).toHaveLength(50);
    // A selection that renders (src/modules/node/node.rendered.ts): one statement writes every object.
    const query = `query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Prediction { stake } } }`;
    const one = await t.countStatements(() => t.gql(query, { ids: predictions.slice(0, 1) }));
    const fifty = await t.countStatements(() => t.gql(query, { ids: predictions }));
    expect({ one, fifty }).toEqual({ one: 1, fifty: 1 });
    const publicIds = samples.filter((s) => s.public).map((s) => s.object.id as string);
    const mixed = await t.countStatements(() => t.gql(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids: publicIds }));
    expect(mixed).toBe(1);
    // Executed (beside a root field no rendered read writes): the type lookup, then one batched load per type.
    const executedMixed = await t.countStatements(() =>
      t.gql(`query($ids: [ID!]!) { nodes(ids: $ids) { id } rateLimit { __typename } }`, { ids: publicIds }),
    );
    expect(executedMixed).toBeGreaterThanOrEqual(1 + publicIds.length);
  });
});
