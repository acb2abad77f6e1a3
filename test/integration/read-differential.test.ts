import type { FastifyInstance } from 'fastify';
import {
  type FieldNode,
  getNamedType,
  getNullableType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  isLeafType,
  isNonNullType,
  isObjectType,
  Kind,
} from 'graphql';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../schema/index.js';
import { READS_BY_TYPE } from '../../src/modules/common/read-specs.js';
import { renderedObject } from '../../src/modules/common/rendered-read.js';
import { createApp } from '../../src/server/app.js';
import { getSchema } from '../../src/server/schema.js';
import { seedVariedPools, type VariedPools } from '../support/fixtures/varied-pools.js';
import { backends, renderedReadsServed, startEmptyTestApp, type TestApp, testConfig } from '../support/harness.js';
import { signInAs, type SignedIn } from '../support/sessions.js';

/**
 * Rendered reads against the executor on selections GENERATED from the schema itself: for
 * every root field the read graph plans, random subsets of every type's fields (private
 * ones and fields with their own logic included, which must send the read to the
 * executor), nested relations and pages in both directions, aliases, inline and named
 * fragments, @include/@skip, root paging forward and backward from real cursors. The
 * oracle is the same request executed by a second app on the same database with
 * RENDERED_READS=false: status and body must be equal byte for byte.
 */

/** The root fields a rendered read plans (src/modules/rendered-reads.ts), with how the generator fills their arguments. */
const PLANNED_ROOTS = [
  'pools',
  'pool',
  'user',
  'userByWallet',
  'viewer',
  'streak',
  'streaks',
  'streakPools',
  'node',
  'nodes',
  'leaderboard',
] as const;
type Root = (typeof PLANNED_ROOTS)[number];

/** A seeded generator (mulberry32), so a failing case repeats. */
function generator(seed: number) {
  const next = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    chance: (p: number) => next() < p,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!,
  };
}
type Random = ReturnType<typeof generator>;

/** Whether a field of `type` is planned by the read graph (a type it reads, the field not among the exceptions). */
function isPlanned(type: GraphQLObjectType, field: GraphQLField<unknown, unknown>): boolean {
  if (NOT_PLANNED[type.name]?.[field.name]) return false;
  const target = getNamedType(field.type);
  if (isLeafType(target)) return true;
  const object = target as GraphQLObjectType;
  return (isConnection(object) ? getNamedType(object.getFields().nodes!.type).name : object.name) in READS_BY_TYPE;
}

const isConnection = (type: GraphQLObjectType) => type.name.endsWith('Connection') && 'nodes' in type.getFields();
const requiredArgs = (field: GraphQLField<unknown, unknown>) =>
  field.args.filter((a) => isNonNullType(a.type) && a.defaultValue === undefined);

/** One generated document: its selection text, fragments and the variables it uses. */
class Document {
  readonly fragments: string[] = [];
  readonly variables = new Map<string, { type: string; value: unknown }>();
  private names = 0;

  constructor(readonly random: Random) {}

  variable(name: string, type: string, value: unknown): string {
    this.variables.set(name, { type, value });
    return `$${name}`;
  }

  /** A directive keeping or dropping the field, sometimes; the generator tracks which. */
  directive(): { text: string; kept: boolean } {
    const r = this.random;
    if (!r.chance(0.12)) return { text: '', kept: true };
    const value = r.chance(0.5);
    const include = r.chance(0.5);
    const name = value ? 'yes' : 'no';
    this.variable(name, 'Boolean!', value);
    return { text: ` @${include ? 'include' : 'skip'}(if: $${name})`, kept: include === value };
  }

  /** Fields of `type`, wrapped sometimes in an inline or a named fragment. */
  selection(type: GraphQLObjectType, depth: number): string {
    const r = this.random;
    const fields = Object.values(type.getFields()).filter((f) => !requiredArgs(f).length);
    // Fields outside the read graph (private ones, ones with their own logic) rarely, so most selections plan.
    const chance = (f: GraphQLField<unknown, unknown>) => (isPlanned(type, f) ? (depth === 0 ? 0.4 : 0.25) : 0.03);
    const chosen = fields.filter((f) => r.chance(chance(f)));
    if (!chosen.length) chosen.push(fields.find((f) => f.name === 'id') ?? fields[0]!);
    const parts = chosen.map((f) => this.field(f, depth));
    if (r.chance(0.15)) parts.push('__typename');
    const text = parts.join(' ');
    if (r.chance(0.15)) return `... on ${type.name} { ${text} }`;
    if (r.chance(0.12)) {
      const name = `F${++this.names}`;
      this.fragments.push(`fragment ${name} on ${type.name} { ${text} }`);
      return `...${name}`;
    }
    return text;
  }

  private field(field: GraphQLField<unknown, unknown>, depth: number): string {
    const r = this.random;
    const alias = r.chance(0.15) ? `a${++this.names}: ` : '';
    const { text: directive } = this.directive();
    const type = getNamedType(field.type);
    if (isLeafType(type)) return `${alias}${field.name}${directive}`;
    const object = type as GraphQLObjectType;
    if (isConnection(object)) {
      const pageable = field.args.some((a) => a.name === 'first');
      const args = !pageable || r.chance(0.3) ? '' : `(${r.chance(0.5) ? 'first' : 'last'}: ${r.int(1, 4)})`;
      return `${alias}${field.name}${args}${directive} { ${this.connection(object, depth + 1, false)} }`;
    }
    if (depth >= 2) return `${alias}${field.name}${directive} { __typename }`;
    return `${alias}${field.name}${directive} { ${this.selection(object, depth + 1)} }`;
  }

  /** A connection's selection: nodes and totalCount mostly, edges and pageInfo sometimes (always renderable at the root). */
  connection(type: GraphQLObjectType, depth: number, root: boolean): string {
    const r = this.random;
    const node = getNamedType(type.getFields().nodes!.type) as GraphQLObjectType;
    const parts = [`nodes { ${this.selection(node, depth)} }`];
    if (r.chance(0.4)) parts.push('totalCount');
    if (r.chance(root ? 0.3 : 0.1)) parts.push(`edges { cursor node { id } }`);
    if (r.chance(root ? 0.3 : 0.1)) parts.push('pageInfo { hasNextPage hasPreviousPage startCursor endCursor }');
    return parts.join(' ');
  }
}

interface World {
  data: VariedPools;
  viewer: SignedIn;
  /** A cursor in the middle of each sort of `pools`, and of `streaks`. */
  cursors: Record<string, string>;
}

/** A generated query on `root`, with its variables. */
function generate(schema: GraphQLSchema, root: Root, random: Random, world: World): { query: string; variables: Record<string, unknown> } {
  const doc = new Document(random);
  const query = schema.getQueryType()!;
  const field = query.getFields()[root]!;
  const type = getNamedType(field.type) as GraphQLObjectType;
  const page = (cursorKey: string) => {
    const backward = random.chance(0.5);
    const size = `${backward ? 'last' : 'first'}: ${random.int(1, 6)}`;
    if (!random.chance(0.4)) return size;
    return `${size}, ${backward ? 'before' : 'after'}: ${doc.variable('cursor', 'String', world.cursors[cursorKey])}`;
  };
  let args = '';
  switch (root) {
    case 'pools': {
      const sort = random.pick(['END_DATE', 'CREATION_DATE', 'OLD_CREATION_DATE', 'VOLUME_HIGH', 'VOLUME_LOW']);
      args = `(sort: ${sort}, ${page(sort)})`;
      break;
    }
    case 'streaks':
      args = `(${page('streaks')})`;
      break;
    case 'pool':
      args = `(id: ${doc.variable('id', 'ID!', random.pick(world.data.pools).id)})`;
      break;
    case 'user':
      args = `(id: ${doc.variable('id', 'ID!', random.pick([...world.data.creators, ...world.data.predictors]).id)})`;
      break;
    case 'userByWallet':
      args = `(address: ${doc.variable('address', 'String!', random.pick(world.data.creators).walletAddress)})`;
      break;
    case 'streak':
      args = `(id: ${doc.variable('id', 'ID!', random.pick(world.data.streaks).id)})`;
      break;
    case 'streakPools':
      args = `(streakId: ${doc.variable('id', 'ID!', random.pick(world.data.streaks).id)}, pastOnly: ${random.chance(0.3)}, ${page('streakPools')})`;
      break;
    case 'viewer':
      break;
    case 'node':
      args = `(id: ${doc.variable('id', 'ID!', random.pick([...world.data.pools, ...world.data.creators, ...world.data.streaks]).id)})`;
      break;
    case 'nodes': {
      const ids = Array.from({ length: random.int(1, 4) }, () => random.pick([...world.data.pools, ...world.data.predictors]).id);
      args = `(ids: ${doc.variable('ids', '[ID!]!', ids)})`;
      break;
    }
    case 'leaderboard':
      args = `(${random.chance(0.5) ? 'first' : 'last'}: ${random.int(1, 6)}, by: ${random.pick(['PAYOUT', 'PRECISION'])})`;
      break;
  }
  const objectTypes = (names: string[]) => names.map((name) => schema.getType(name) as GraphQLObjectType);
  const selection =
    root === 'node' || root === 'nodes'
      ? // The interface's id, and each type's selection in a fragment on it.
        `id ${objectTypes(['Pool', 'User', 'Streak', 'Prediction'])
          .filter(() => random.chance(0.7))
          .map((object) => `... on ${object.name} { ${doc.selection(object, 0)} }`)
          .join(' ')}`
      : root === 'leaderboard'
        ? `totalCount nodes { rank payout staked precision predictionCount user { ${doc.selection(objectTypes(['User'])[0]!, 1)} } }` +
          (random.chance(0.3) ? ' pageInfo { hasNextPage hasPreviousPage } edges { cursor node { rank } }' : '')
        : isConnection(type)
          ? doc.connection(type, 0, true)
          : doc.selection(type, 0);
  const twice = random.chance(0.2)
    ? ` again: ${root}${args} { __typename ${isConnection(type) ? 'totalCount' : 'id' in ('getFields' in type ? type.getFields() : {}) ? 'id' : ''} }`
    : '';
  const declared = [...doc.variables].map(([name, v]) => `$${name}: ${v.type}`);
  const text = `query${declared.length ? `(${declared.join(', ')})` : ''} { ${root}${args} { ${selection} }${twice} }\n${doc.fragments.join('\n')}`;
  return { query: text, variables: Object.fromEntries([...doc.variables].map(([name, v]) => [name, v.value])) };
}

const CASES_PER_ROOT = 30;

describe.each(backends)('generated selections, rendered against executed, on %s', (kind) => {
  let t: TestApp;
  let executor: FastifyInstance;
  let schema: GraphQLSchema;
  const world = {} as World;

  beforeAll(async () => {
    // Generated selections nest pages in pages, past the default cost budget; the budget has tests of its own.
    const generous = { SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '1000', MAX_QUERY_COST: '10000000' };
    t = await startEmptyTestApp(kind, { config: testConfig(generous) });
    executor = await createApp({ config: testConfig({ ...generous, RENDERED_READS: 'false' }), database: t.database });
    schema = await getSchema();
    world.data = await seedVariedPools(t.seed, t.database);
    await t.seed.user().withImage({ avatar: true });
    world.viewer = await signInAs(t, world.data.predictors[0]!.id);
    world.cursors = {};
    for (const sort of ['END_DATE', 'CREATION_DATE', 'OLD_CREATION_DATE', 'VOLUME_HIGH', 'VOLUME_LOW']) {
      const { data } = await t.gql(`{ pools(first: 8, sort: ${sort}) { edges { cursor } } }`);
      world.cursors[sort] = data.pools.edges[4].cursor;
    }
    const { data } = await t.gql(`{ streaks(first: 3) { edges { cursor } } }`);
    world.cursors.streaks = data.streaks.edges[1].cursor;
    const busiest = world.data.streaks[0]!.id;
    const inStreak = await t.gql(`query($id: ID!) { streakPools(streakId: $id, first: 6) { pools { edges { cursor } } } }`, {
      id: busiest,
    });
    world.cursors.streakPools = inStreak.data.streakPools.pools.edges[3].cursor;
  });
  afterAll(async () => {
    await executor?.close();
    await t?.close();
  });

  it('a private field is served only to its owner and an admin, through every planned root that reaches a user', async () => {
    const owner = world.data.creators[0]!;
    await t.database.db.update(users).set({ email: 'owner@example.test' }).where(eq(users.id, owner.id));
    const self = await signInAs(t, owner.id);
    const admin = await signInAs(t, world.data.creators[1]!.id, 'ADMIN');
    const [{ walletAddress }] = (await t.database.db
      .select({ walletAddress: users.walletAddress })
      .from(users)
      .where(eq(users.id, owner.id))) as [{ walletAddress: string }];
    const streakId = world.data.pools.find((p) => p.createdBy === owner.id && p.streakId)!.streakId!;
    const poolId = world.data.pools.find((p) => p.createdBy === owner.id)!.id;
    const who = `id email`;
    // Each root with the path to the owner's user object(s) in its answer.
    const reads: Array<{ query: string; variables: Record<string, unknown>; users: (data: any) => any[]; viewerOnly?: boolean }> = [
      { query: `query($id: ID!) { user(id: $id) { ${who} } }`, variables: { id: owner.id }, users: (d) => [d.user] },
      {
        query: `query($a: String!) { userByWallet(address: $a) { ${who} } }`,
        variables: { a: walletAddress },
        users: (d) => [d.userByWallet],
      },
      { query: `{ viewer { ${who} } }`, variables: {}, users: (d) => [d.viewer], viewerOnly: true },
      { query: `query($id: ID!) { pool(id: $id) { user { ${who} } } }`, variables: { id: poolId }, users: (d) => [d.pool.user] },
      {
        query: `query($id: ID!) { pools(first: 50, filter: { createdBy: $id }) { nodes { user { ${who} } } } }`,
        variables: { id: owner.id },
        users: (d) => d.pools.nodes.map((p: any) => p.user),
      },
      {
        query: `query($id: ID!) { streak(id: $id) { pools(first: 50) { nodes { user { ${who} } } } } }`,
        variables: { id: streakId },
        users: (d) => d.streak.pools.nodes.map((p: any) => p.user),
      },
      {
        query: `query($id: ID!) { streakPools(streakId: $id, first: 50) { pools { nodes { user { ${who} } } } } }`,
        variables: { id: streakId },
        users: (d) => d.streakPools.pools.nodes.map((p: any) => p.user),
      },
      {
        query: `{ streaks(first: 5) { nodes { pools(first: 50) { nodes { user { ${who} } } } } } }`,
        variables: {},
        users: (d) => d.streaks.nodes.flatMap((s: any) => s.pools.nodes.map((p: any) => p.user)),
      },
    ];
    for (const read of reads) {
      for (const [name, headers, allowed] of [
        ['anonymous', {}, false],
        ['another user', world.viewer.headers, false],
        ['the owner', self.headers, true],
        ['an admin', admin.headers, true],
      ] as const) {
        if (read.viewerOnly && name !== 'the owner') continue;
        const reply = await t.app.inject({
          method: 'POST',
          url: '/graphql',
          headers,
          payload: { query: read.query, variables: read.variables },
        });
        const body = reply.json();
        const found = read.users(body.data) as Array<{ id: string; email: string | null }>;
        const owned = found.filter((user) => user.id === owner.id);
        expect(owned.length, `${name}: ${read.query}`).toBeGreaterThan(0);
        for (const user of owned)
          expect(user, `${name}: ${read.query}`).toEqual({ id: owner.id, email: allowed ? 'owner@example.test' : null });
        // Every user object the viewer may not read answers FORBIDDEN: others' ones too, unless an admin asks.
        const refused = found.filter((user) => !(name === 'an admin' || (allowed && user.id === owner.id)));
        const codes = (body.errors ?? []).map((e: any) => e.extensions.code);
        expect(codes, `${name}: ${read.query}`).toEqual(refused.map(() => 'FORBIDDEN'));
      }
    }
  });

  it.each([
    [
      'a user profile',
      `query($id: ID!) { user(id: $id) { id username predictions(first: 20) { totalCount nodes { id stake pool { id title totalVolume } reward { amount } } }
      pools(first: 10) { nodes { id title totalVolume } } } }`,
    ],
    [
      'the streaks page',
      `{ streaks(first: 10) { nodes { id title pools(first: 10) { nodes { id title predictions(first: 5) { nodes { id stake user { id username } } } } } } } }`,
    ],
    [
      'a streak with its pools',
      `query($s: ID!) { streakPools(streakId: $s, first: 10) { streak { id title } pools { nodes { id predictions(first: 5) { nodes { user { username } } } } } } }`,
    ],
  ])('%s is one statement, rendered', async (_name, query) => {
    const variables = { id: world.data.predictors[0]!.id, s: world.data.streaks[0]!.id };
    const used = Object.fromEntries(Object.entries(variables).filter(([name]) => query.includes(`$${name}:`)));
    const send = () => t.app.inject({ method: 'POST', url: '/graphql', payload: { query, variables: used } });
    await send();
    const before = await renderedReadsServed(t.app);
    let reply: Awaited<ReturnType<typeof send>> | undefined;
    const statements = await t.countStatements(async () => {
      reply = await send();
    });
    expect(reply!.json().errors).toBeUndefined();
    expect((await renderedReadsServed(t.app)) - before).toBe(1);
    // streakPools reads its streak, then the page of its pools: two statements.
    expect(statements).toBe(query.includes('streakPools') ? 2 : 1);
  });

  it.each(PLANNED_ROOTS)('%s: every generated selection answers the same bytes rendered and executed', async (root) => {
    const random = generator(kind.length * 1000 + PLANNED_ROOTS.indexOf(root));
    let rendered = 0;
    for (let i = 0; i < CASES_PER_ROOT; i++) {
      const { query, variables } = generate(schema, root, random, world);
      const send = (app: FastifyInstance) =>
        app.inject({
          method: 'POST',
          url: '/graphql',
          headers: root === 'viewer' ? world.viewer.headers : {},
          payload: { query, variables },
        });
      const executed = await send(executor);
      const before = await renderedReadsServed(t.app);
      const answer = await send(t.app);
      rendered += (await renderedReadsServed(t.app)) - before;
      expect(executed.statusCode, `${query}\n${executed.body.slice(0, 500)}`).toBe(200);
      expect({ status: answer.statusCode, body: answer.body }, query).toEqual({ status: executed.statusCode, body: executed.body });
    }
    // Not vacuous: a good share of the generated selections really were rendered.
    expect(rendered).toBeGreaterThanOrEqual(CASES_PER_ROOT / 5);
  });
});

/**
 * Every field of a type the read graph reads (src/modules/common/read-specs.ts) is planned:
 * a column, an amount or a relation of the one definition. The exceptions are named here
 * with their reason; a field added to such a type without a planned read fails this test.
 */
const NOT_PLANNED: Record<string, Record<string, string>> = {
  User: {
    email: 'private: the service checks the viewer',
    settings: 'private',
    notifications: 'private',
    deviceTokens: 'private',
    refreshTokens: 'private',
    apiKeys: 'private',
    referralRedemption: 'private',
    createdReferralCodes: 'private',
    balance: 'private, and read from the chain',
    claimable: 'private',
    portfolio: 'private',
    transactions: 'private',
  },
  Prediction: { streak: "the pool's streak, a relation of a relation" },
  Pool: { viewerPrediction: "the signed-in viewer's own prediction" },
};

describe('the read graph plans every field of its types', () => {
  it.each(Object.keys(READS_BY_TYPE))('%s', async (typeName) => {
    const schema = await getSchema();
    const type = schema.getType(typeName) as GraphQLObjectType;
    expect(isObjectType(type)).toBe(true);
    const walk = { schema, fragments: {}, variables: {} };
    const unplanned: string[] = [];
    for (const field of Object.values(type.getFields())) {
      const target = getNamedType(getNullableType(field.type));
      const sub = isLeafType(target) ? undefined : isConnection(target as GraphQLObjectType) ? '{ totalCount }' : '{ __typename }';
      const node: FieldNode = {
        kind: Kind.FIELD,
        name: { kind: Kind.NAME, value: field.name },
        ...(sub
          ? {
              selectionSet: {
                kind: Kind.SELECTION_SET,
                selections: [{ kind: Kind.FIELD, name: { kind: Kind.NAME, value: sub.slice(2, -2) } }],
              },
            }
          : {}),
      };
      const parent: FieldNode = {
        kind: Kind.FIELD,
        name: { kind: Kind.NAME, value: 'x' },
        selectionSet: { kind: Kind.SELECTION_SET, selections: [node] },
      };
      if (!renderedObject(type, READS_BY_TYPE[typeName]!, [parent], walk)) unplanned.push(field.name);
    }
    expect(unplanned.sort()).toEqual(Object.keys(NOT_PLANNED[typeName] ?? {}).sort());
  });
});
