import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import {
  type FieldNode,
  getNamedType,
  getNullableType,
  GraphQLEnumType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isUnionType,
  Kind,
  type OperationDefinitionNode,
  parse,
} from 'graphql';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainSubmissions, notifications, streakRewards, type StreakRow, userStreaks, users } from '../../schema/index.js';
import { READS_BY_TYPE } from '../../src/modules/common/read-specs.js';
import { ROOT_RENDERERS } from '../../src/modules/rendered-reads.js';
import { renderedObject } from '../../src/read/rendered-read.js';
import { OperationWalk } from '../../src/read/operation-walk.js';
import { createApp } from '../../src/server/app.js';
import { getSchema } from '../../src/server/schema.js';
import { transactionValues } from '../support/fixtures/values.js';
import { seedVariedPools, type VariedPools } from '../support/fixtures/varied-pools.js';
import { backends, renderedReadsServed, renderFallbacks, startEmptyTestApp, type TestApp, testConfig } from '../support/harness.js';
import { signInAs, type SignedIn } from '../support/sessions.js';
import { seededRandom } from '../support/seeded-random.js';

/**
 * Rendered reads against the executor on selections GENERATED from the schema itself: for
 * every root field of Query (but the few named below, which read no row), random subsets of
 * every type's fields (private ones and fields with their own logic included, which must
 * send the read to the executor; under `viewer`, the viewer's own lists with their filters
 * and orders), nested relations and pages in both directions, aliases, inline and named
 * fragments, @include/@skip, root paging forward and backward from real cursors, signed in
 * or not. The oracle is the same request executed by a second app on the same database with
 * RENDERED_READS=false: status and body must be equal byte for byte. Further tests: every
 * generated root is planned, and plans every field of its type and of the read graph's types
 * but the named exceptions, so a root or a field added without a planned read fails here.
 */

// The subgraph's schema (FEDERATION_SUBGRAPH): `_entities` is a generated root like any other.
const schema = await getSchema({ subgraph: true });

/**
 * Root fields of Query the differential leaves out, each with why: they read no row of the
 * read graph, so no rendered read answers them. Every other Query field is generated, and
 * must be planned (the registry, src/modules/rendered-reads.ts): a root added without a
 * planned read fails the first test below.
 */
const NOT_GENERATED: Record<string, string> = {
  rateLimit: "the request's own operation budget, counted in memory by the pipeline",
  eventSequence: "the outbox's newest sequence, the starting point of a subscription",
  _service: "the subgraph's schema as text, for a router",
};
const GENERATED_ROOTS = Object.keys(schema.getQueryType()!.getFields()).filter((name) => !(name in NOT_GENERATED));

/** Roots answering the signed-in viewer's own data: asked signed in mostly (signed out, the executor reports UNAUTHENTICATED). */
const VIEWER_ROOTS = new Set(['viewer', 'unreadNotificationCount', 'streakUserDetails']);

/** Random choices from a seeded generator, so a failing case repeats. */
function generator(seed: number) {
  const next = seededRandom(seed);
  return {
    chance: (p: number) => next() < p,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!,
  };
}
type Random = ReturnType<typeof generator>;

/** Fields the generator never asks, each with why. */
const NOT_GENERATED_FIELDS: Record<string, string> = {
  'User.balance': 'read from the chain, which this suite does not run (CHAIN_UNAVAILABLE either way)',
};

/**
 * Private fields of a user that a rendered read writes for the viewer's own row (USER_READ's
 * owned relations, the portfolio, the email and the lists of the user's own rows:
 * src/modules/discovery/user.rendered.ts).
 */
const OWNED_RENDERED = new Set(['notifications', 'portfolio', 'email', 'refreshTokens', 'deviceTokens', 'apiKeys', 'createdReferralCodes']);

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
  readonly variables = new Map<string, { type: string; value: unknown; redraw: () => unknown }>();
  private names = 0;

  /**
   * `childCursor`: a newest-first cursor (a prediction's) that nested pages sometimes start
   * from; `sortCursors`: a cursor of a user's predictions in each of their other sorts, by sort.
   */
  constructor(
    readonly random: Random,
    private readonly childCursor?: string,
    private readonly sortCursors: Record<string, string> = {},
  ) {}

  /** A variable of the document; `redraw` gives it another value of the same kind (the same document asked again). */
  variable(name: string, type: string, value: unknown, redraw: () => unknown = () => value): string {
    this.variables.set(name, { type, value, redraw });
    return `$${name}`;
  }

  /** A variable whose value is one of `choices`, drawn again from them. */
  choice(name: string, type: string, choices: readonly unknown[]): string {
    return this.variable(name, type, this.random.pick(choices), () => this.random.pick(choices));
  }

  /** A directive keeping or dropping the field, sometimes; the generator tracks which. */
  directive(): { text: string; kept: boolean } {
    const r = this.random;
    if (!r.chance(0.12)) return { text: '', kept: true };
    const value = r.chance(0.5);
    const include = r.chance(0.5);
    const name = value ? 'yes' : 'no';
    this.variable(name, 'Boolean!', value, () => r.chance(0.5));
    return { text: ` @${include ? 'include' : 'skip'}(if: $${name})`, kept: include === value };
  }

  /**
   * Fields of `type`, wrapped sometimes in an inline or a named fragment. `owned`: the object
   * is the viewer's own user row, whose private fields and lists (portfolio, notifications,
   * transactions, ...) are asked often, not only the ones a rendered read writes.
   */
  selection(type: GraphQLObjectType, depth: number, owned = false): string {
    const r = this.random;
    const fields = Object.values(type.getFields()).filter(
      (f) => !requiredArgs(f).length && !NOT_GENERATED_FIELDS[`${type.name}.${f.name}`],
    );
    // Fields outside the read graph (private ones, ones with their own logic) rarely, so most selections plan.
    const chance = (f: GraphQLField<unknown, unknown>) =>
      owned && NOT_PLANNED[type.name]?.[f.name]
        ? OWNED_RENDERED.has(f.name)
          ? 0.35
          : 0.06
        : isPlanned(type, f)
          ? depth === 0
            ? 0.4
            : 0.25
          : 0.03;
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
    const args = this.arguments(field);
    if (isLeafType(type)) return `${alias}${field.name}${args}${directive}`;
    const object = type as GraphQLObjectType;
    if (isConnection(object)) return `${alias}${field.name}${args}${directive} { ${this.connection(object, depth + 1, false)} }`;
    if (depth >= 2) return `${alias}${field.name}${args}${directive} { __typename }`;
    return `${alias}${field.name}${args}${directive} { ${this.selection(object, depth + 1)} }`;
  }

  /**
   * Optional arguments of a nested field, sometimes: a page size forward or backward, and
   * any enum argument (a list's filter or order: the viewer's predictions by lifecycle or
   * stake, their notifications read or unread), each at one of its values; without one, a cursor sometimes.
   */
  private arguments(field: GraphQLField<unknown, unknown>): string {
    const r = this.random;
    const args: string[] = [];
    let backward: boolean | null = null;
    if (field.args.some((a) => a.name === 'first') && r.chance(0.7)) {
      backward = r.chance(0.5);
      args.push(`${backward ? 'last' : 'first'}: ${r.int(1, 4)}`);
    }
    let sort: string | undefined;
    for (const arg of field.args) {
      const type = getNullableType(arg.type);
      if (!(type instanceof GraphQLEnumType && r.chance(0.35))) continue;
      const value = r.pick(type.getValues()).name;
      if (arg.name === 'sort') sort = value;
      args.push(`${arg.name}: ${value}`);
    }
    // From a cursor in the middle of a busy pool's predictions (newest first), or of a user's
    // predictions in the sort asked (any filter keeps the cursor's position): rows past it, and
    // rows on its other side.
    const cursor = sort && sort !== 'NEWEST' ? this.sortCursors[sort] : this.childCursor;
    const name = sort && sort !== 'NEWEST' ? `cursor${sort}` : 'childCursor';
    if (backward !== null && cursor && r.chance(0.3))
      args.push(`${backward ? 'before' : 'after'}: ${this.variable(name, 'String', cursor, () => (r.chance(0.6) ? cursor : null))}`);
    return args.length ? `(${args.join(', ')})` : '';
  }

  /** A connection's selection: nodes and totalCount mostly, edges and pageInfo sometimes. */
  connection(type: GraphQLObjectType, depth: number, root: boolean): string {
    const r = this.random;
    const node = getNamedType(type.getFields().nodes!.type) as GraphQLObjectType;
    const parts = [`nodes { ${this.selection(node, depth)} }`];
    if (r.chance(0.4)) parts.push('totalCount');
    if (r.chance(root ? 0.3 : 0.2)) parts.push(`edges { cursor node { id } }`);
    if (r.chance(root ? 0.3 : 0.2)) parts.push('pageInfo { hasNextPage hasPreviousPage startCursor endCursor }');
    return parts.join(' ');
  }
}

interface World {
  data: VariedPools;
  viewer: SignedIn;
  /** A cursor in the middle of each sort of `pools`, and of `streaks`; `predictionSorts`, of a user's predictions in their other sorts. */
  cursors: Record<string, string> & { predictionSorts?: Record<string, string> };
}

const ids = (rows: ReadonlyArray<{ id: string }>) => rows.map((row) => row.id);

/** How the generator fills a root's arguments: their text, with the document's variables and paging helper. */
type RootArguments = (doc: Document, random: Random, world: World, page: (cursorKey: string) => string) => string;

const POOL_SORTS = ['END_DATE', 'CREATION_DATE', 'OLD_CREATION_DATE', 'VOLUME_HIGH', 'VOLUME_LOW'];

/** The arguments of every generated root (an empty text: none); each root of GENERATED_ROOTS has its entry. */
const ROOT_ARGUMENTS: Record<string, RootArguments> = {
  pools: (_doc, random, _world, page) => {
    const sort = random.pick(POOL_SORTS);
    return `(sort: ${sort}, ${page(sort)})`;
  },
  streaks: (_doc, _random, _world, page) => `(${page('streaks')})`,
  pool: (doc, _random, world) => `(id: ${doc.choice('id', 'ID!', ids(world.data.pools))})`,
  user: (doc, _random, world) => `(id: ${doc.choice('id', 'ID!', ids([...world.data.creators, ...world.data.predictors]))})`,
  userByWallet: (doc, _random, world) =>
    `(address: ${doc.choice(
      'address',
      'String!',
      world.data.creators.map((creator) => creator.walletAddress),
    )})`,
  streak: (doc, _random, world) => `(id: ${doc.choice('id', 'ID!', ids(world.data.streaks))})`,
  streakPools: (doc, random, world, page) =>
    `(streakId: ${doc.choice('id', 'ID!', ids(world.data.streaks))}, pastOnly: ${random.chance(0.3)}, ${page('streakPools')})`,
  // The viewer's state and rewards are in the first streak; in the others they have none (the defaults).
  streakUserDetails: (doc, random, world) => {
    const isClaimed = random.pick([undefined, null, true, false]);
    const filter =
      isClaimed === undefined
        ? ''
        : `, isClaimed: ${doc.variable('claimed', 'Boolean', isClaimed, () => random.pick([null, true, false]))}`;
    return `(streakId: ${doc.choice('id', 'ID!', ids([world.data.streaks[0]!, ...world.data.streaks]))}${filter})`;
  },
  viewer: () => '',
  unreadNotificationCount: () => '',
  node: (doc, _random, world) =>
    `(id: ${doc.choice('id', 'ID!', ids([...world.data.pools, ...world.data.creators, ...world.data.streaks]))})`,
  nodes: (doc, random, world) => {
    const draw = () => Array.from({ length: random.int(1, 4) }, () => random.pick([...world.data.pools, ...world.data.predictors]).id);
    return `(ids: ${doc.variable('ids', '[ID!]!', draw(), draw)})`;
  },
  // Entities of every type by key, a few asked for as another type (null, as for an unknown key).
  _entities: (doc, random, world) => {
    const keyed: Array<[string, string]> = [
      ...world.data.pools.map((pool): [string, string] => ['Pool', pool.id]),
      ...[...world.data.creators, ...world.data.predictors].map((user): [string, string] => ['User', user.id]),
      ...world.data.streaks.map((streak): [string, string] => ['Streak', streak.id]),
    ];
    const draw = () =>
      Array.from({ length: random.int(1, 4) }, () => {
        const [type, id] = random.pick(keyed);
        return { __typename: random.chance(0.1) ? random.pick(['Pool', 'User', 'Streak', 'Prediction']) : type, id };
      });
    return `(representations: ${doc.variable('representations', '[_Any!]!', draw(), draw)})`;
  },
  leaderboard: (_doc, random) =>
    `(${random.chance(0.5) ? 'first' : 'last'}: ${random.int(1, 6)}, by: ${random.pick(['PAYOUT', 'PRECISION'])})`,
};

/** A generated query on `root`, with its variables. */
function generate(
  root: string,
  random: Random,
  world: World,
): { query: string; variables: Record<string, unknown>; redrawn: () => Record<string, unknown> } {
  const doc = new Document(random, world.cursors.child, world.cursors.predictionSorts);
  const field = schema.getQueryType()!.getFields()[root]!;
  const type = getNamedType(field.type);
  const page = (cursorKey: string) => {
    const backward = random.chance(0.5);
    const size = `${backward ? 'last' : 'first'}: ${random.int(1, 6)}`;
    if (!random.chance(0.4)) return size;
    // Asked again, sometimes without its cursor: a plan kept for one must not answer the other.
    const cursor = world.cursors[cursorKey];
    return `${size}, ${backward ? 'before' : 'after'}: ${doc.variable('cursor', 'String', cursor, () => (random.chance(0.6) ? cursor : null))}`;
  };
  const fill = ROOT_ARGUMENTS[root];
  if (!fill) throw new Error(`no arguments for ${root}: give it an entry in ROOT_ARGUMENTS, or name it in NOT_GENERATED with why`);
  const args = fill(doc, random, world, page);
  const objectTypes = (names: string[]) => names.map((name) => schema.getType(name) as GraphQLObjectType);
  const selection = isLeafType(type)
    ? ''
    : root === 'node' || root === 'nodes' || root === '_entities'
      ? // The interface's id (the union's type name), and each type's selection in a fragment on it.
        `{ ${root === '_entities' ? '__typename' : 'id'} ${objectTypes(['Pool', 'User', 'Streak', 'Prediction'])
          .filter(() => random.chance(0.7))
          .map((object) => `... on ${object.name} { ${doc.selection(object, 0)} }`)
          .join(' ')} }`
      : root === 'leaderboard'
        ? `{ totalCount nodes { rank payout staked precision predictionCount user { ${doc.selection(objectTypes(['User'])[0]!, 1)} } }` +
          (random.chance(0.3) ? ' pageInfo { hasNextPage hasPreviousPage } edges { cursor node { rank } }' : '') +
          ' }'
        : isConnection(type as GraphQLObjectType)
          ? `{ ${doc.connection(type as GraphQLObjectType, 0, true)} }`
          : `{ ${doc.selection(type as GraphQLObjectType, 0, root === 'viewer')} }`;
  const again = isLeafType(type)
    ? ''
    : isUnionType(type)
      ? '{ __typename }'
      : `{ __typename ${isConnection(type as GraphQLObjectType) ? 'totalCount' : 'id' in (type as GraphQLObjectType).getFields() ? 'id' : ''} }`;
  const twice = random.chance(0.2) ? ` again: ${root}${args} ${again}` : '';
  const declared = [...doc.variables].map(([name, v]) => `$${name}: ${v.type}`);
  const text = `query${declared.length ? `(${declared.join(', ')})` : ''} { ${root}${args} ${selection}${twice} }\n${doc.fragments.join('\n')}`;
  return {
    query: text,
    variables: Object.fromEntries([...doc.variables].map(([name, v]) => [name, v.value])),
    redrawn: () => Object.fromEntries([...doc.variables].map(([name, v]) => [name, v.redraw()])),
  };
}

/**
 * The viewer's own rows beyond their predictions: notifications read and unread, two
 * transactions, their state in the first streak (scores whose shortest forms are awkward
 * doubles) and rewards there (claimed and not, two at one instant), one in the second
 * streak, and another user's in the first, which must never show.
 */
async function seedViewersOwn(t: TestApp, world: World): Promise<void> {
  const db = t.database.db;
  const viewer = world.data.predictors[0]!;
  const [first, second] = world.data.streaks as [StreakRow, StreakRow];
  const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 12, minutes, 0, 123));
  await db.insert(notifications).values(
    Array.from({ length: 6 }, (_, i) => ({
      userId: viewer.id,
      type: 'REWARD_CLAIMED' as const,
      title: `notice ${i}`,
      message: `message "${i}" \u00e9`,
      data: { i },
      readAt: i % 2 ? at(i) : null,
      createdAt: at(10 + (i >> 1)),
    })),
  );
  await db.insert(chainSubmissions).values([transactionValues(viewer.id, {}), transactionValues(viewer.id, { operation: 'claimReward' })]);
  await db.insert(userStreaks).values({
    userId: viewer.id,
    streakId: first.id,
    currentStreakCount: 3,
    lastStreakEvent: 'QUALIFIED',
    lastPoolParticipatedAt: at(7),
    currentStreakScores: [0.1 + 0.2, 1e-7, 0.9],
    lastProcessedPoolId: world.data.pools[0]!.id,
  });
  // Wallets as they are now (signing in gives the user a wallet the test holds).
  const walletOf = async (id: string) => (await db.select({ wallet: users.walletAddress }).from(users).where(eq(users.id, id)))[0]!.wallet;
  const [mine, others] = [await walletOf(viewer.id), await walletOf(world.data.creators[0]!.id)];
  await db.insert(streakRewards).values([
    { streakId: first.id, userWalletAddress: mine, amount: 1234567n, isClaimed: true, createdAt: at(1) },
    { streakId: first.id, userWalletAddress: mine, amount: 7n, isClaimed: false, createdAt: at(2) },
    { streakId: first.id, userWalletAddress: mine, amount: 2n * 10n ** 6n, isClaimed: true, createdAt: at(2) },
    { streakId: second.id, userWalletAddress: mine, amount: 5n, createdAt: at(3) },
    { streakId: first.id, userWalletAddress: others, amount: 9n, createdAt: at(4) },
  ]);
}

/**
 * Each case is a random selection asked with three sets of values, of two apps, so a root's
 * 15 cases are 90 answers compared; the generator draws per root, so these are the first 15
 * of the 30 it once ran, at half the CPU time. That every field is planned at all is checked
 * apart, below, from the schema.
 */
const CASES_PER_ROOT = 15;
/** The viewer's selections ask private lists the executor answers (transactions, settings, ...) often: more cases, so enough render too. */
const casesOf = (root: string) => (root === 'viewer' ? 2 * CASES_PER_ROOT : CASES_PER_ROOT);

describe.each(backends)('generated selections, rendered against executed, on %s', (kind) => {
  let t: TestApp;
  let executor: FastifyInstance;
  const world = {} as World;

  beforeAll(async () => {
    // Generated selections nest pages in pages, past the default cost budget; the budget has tests of its own.
    const generous = {
      SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '1000',
      MAX_QUERY_COST: '10000000',
      MAX_QUERY_BYTES: '0',
      MAX_QUERY_ALIASES: '0',
      FEDERATION_SUBGRAPH: 'true',
    };
    t = await startEmptyTestApp(kind, { config: testConfig(generous) });
    executor = await createApp({ config: testConfig({ ...generous, RENDERED_READS: 'false' }), database: t.database });
    world.data = await seedVariedPools(t.seed, t.database);
    await t.seed.user().withImage({ avatar: true });
    world.viewer = await signInAs(t, world.data.predictors[0]!.id);
    await seedViewersOwn(t, world);
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
    // Read by the executor, so the cursor does not depend on what is tested.
    const child = await executor.inject({
      method: 'POST',
      url: '/graphql',
      payload: { query: '{ pools(first: 1, sort: VOLUME_HIGH) { nodes { predictions(first: 3) { edges { cursor } } } } }' },
    });
    world.cursors.child = child.json().data.pools.nodes[0].predictions.edges[1].cursor;
    world.cursors.predictionSorts = {};
    for (const sort of ['OLDEST', 'STAKE_HIGH', 'STAKE_LOW']) {
      const sorted = await executor.inject({
        method: 'POST',
        url: '/graphql',
        payload: {
          query: `query($id: ID!) { user(id: $id) { predictions(first: 3, sort: ${sort}) { edges { cursor } } } }`,
          variables: { id: world.data.predictors[0]!.id },
        },
      });
      world.cursors.predictionSorts[sort] = sorted.json().data.user.predictions.edges[1].cursor;
    }
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
    [
      "the viewer's streak details",
      `query($s: ID!) { streakUserDetails(streakId: $s) { streak { id title pools(first: 5) { nodes { id title } } } currentStreakCount
      lastStreakEvent currentStreakScores streakRewards { id amount isClaimed streak { title } user { username } } } }`,
    ],
    [
      "the viewer's account: email, sessions, devices, API keys and referral codes",
      `{ viewer { id email refreshTokens { id version expiresAt revokedAt user { username } } deviceTokens { id platform createdAt }
      apiKeys { id name keyHash isActive lastUsedAt } createdReferralCodes { id code notes } } }`,
    ],
  ])('%s is one statement, rendered', async (_name, query) => {
    const variables = { id: world.data.predictors[0]!.id, s: world.data.streaks[0]!.id };
    const used = Object.fromEntries(Object.entries(variables).filter(([name]) => query.includes(`$${name}:`)));
    const signedIn = /streakUserDetails|viewer/.test(query);
    const headers = signedIn ? world.viewer.headers : {};
    const send = (text = query) => t.app.inject({ method: 'POST', url: '/graphql', headers, payload: { query: text, variables: used } });
    await send();
    // What the request costs before any read (signed in: the credentials' check), counted alike.
    const baseline = await t.countStatements(() => send('{ __typename }'));
    const before = await renderedReadsServed(t.app);
    let reply: Awaited<ReturnType<typeof send>> | undefined;
    const statements = await t.countStatements(async () => {
      reply = await send();
    });
    expect(reply!.json().errors).toBeUndefined();
    // The viewer's three rewards in the first streak (another user's there never).
    if (query.includes('streakUserDetails')) expect(reply!.json().data.streakUserDetails.streakRewards).toHaveLength(3);
    expect((await renderedReadsServed(t.app)) - before).toBe(1);
    // streakPools reads its streak, then the page of its pools: two statements. Signed in, the
    // viewer's details are one statement that reads the session too: the credentials' check of `{ __typename }` costs nothing more.
    if (signedIn) expect({ statements, baseline }).toEqual({ statements: 1, baseline: 1 });
    else expect(statements - baseline).toBe(query.includes('streakPools') ? 2 : 1);
    // The bytes the executor answers; not vacuous: the viewer's own lists hold rows (a session at least: the one asking).
    const executed = await executor.inject({ method: 'POST', url: '/graphql', headers, payload: { query, variables: used } });
    expect(reply!.body).toBe(executed.body);
    if (query.includes('refreshTokens')) expect(reply!.json().data.viewer.refreshTokens.length).toBeGreaterThan(0);
  });

  it.each(GENERATED_ROOTS)('%s: every generated selection answers the same bytes rendered and executed', async (root) => {
    const random = generator(kind.length * 1000 + GENERATED_ROOTS.indexOf(root));
    let rendered = 0;
    let answers = 0;
    const fallbacksBefore = await renderFallbacks(t.app);
    for (let i = 0; i < casesOf(root); i++) {
      const { query, variables, redrawn } = generate(root, random, world);
      // Signed in as the viewer mostly on the viewer's roots, now and then elsewhere (a pool's viewerPrediction, private fields).
      const headers = random.chance(VIEWER_ROOTS.has(root) ? 0.9 : 0.25) ? world.viewer.headers : {};
      // The same document asked again with other values (other ids, conditions, no cursor):
      // a plan is kept per document and shape, so one kept for the first values must answer the others as the executor does.
      for (const values of [variables, redrawn(), redrawn()]) {
        const send = (app: FastifyInstance) =>
          app.inject({ method: 'POST', url: '/graphql', headers, payload: { query, variables: values } });
        const executed = await send(executor);
        const before = await renderedReadsServed(t.app);
        const answer = await send(t.app);
        rendered += (await renderedReadsServed(t.app)) - before;
        answers++;
        const asked = `${query}\n${JSON.stringify(values)}`;
        expect(executed.statusCode, `${asked}\n${executed.body.slice(0, 500)}`).toBe(200);
        // The cache policy too (Cache-Control, from the cache hints): a rendered read's is the executed one's.
        expect({ status: answer.statusCode, body: comparable(answer.body), cacheControl: answer.headers['cache-control'] }, asked).toEqual({
          status: executed.statusCode,
          body: comparable(executed.body),
          cacheControl: executed.headers['cache-control'],
        });
      }
    }
    // Every answer not rendered was counted as a fallback with its reason, and the share is reported.
    const fallbacksAfter = await renderFallbacks(t.app);
    const fellBack = Object.fromEntries(
      Object.entries(fallbacksAfter)
        .map(([reason, n]) => [reason, n - (fallbacksBefore[reason] ?? 0)] as const)
        .filter(([, n]) => n > 0),
    );
    console.log(
      `[${kind}] ${root}: ${rendered} of ${answers} answers rendered (${Math.round((100 * rendered) / answers)} %); fell back: ${JSON.stringify(fellBack)}`,
    );
    expect(rendered + Object.values(fellBack).reduce((sum, n) => sum + n, 0)).toBe(answers);
    // Not vacuous: a share of the answers really were rendered (a tenth at least; the viewer's
    // selections, which ask private lists often, render least: one in six with this seed).
    expect(rendered).toBeGreaterThanOrEqual((3 * casesOf(root)) / 10);
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
};

/**
 * An answer as compared: its bytes. With two errors or more (an executed answer: a rendered
 * one has none), their order is the order the executor met them in, which the timing of its
 * concurrent loads decides and GraphQL does not fix: they are compared sorted.
 */
function comparable(body: string): string {
  const parsed = JSON.parse(body) as { errors?: unknown[] };
  if (!parsed.errors || parsed.errors.length < 2) return body;
  const errors = parsed.errors.map((error) => JSON.stringify(error)).sort();
  return JSON.stringify({ ...parsed, errors: errors.map((error) => JSON.parse(error) as unknown) });
}

describe('the generated roots', () => {
  it('are every root field of Query but the named exceptions, and each is planned', () => {
    const queryFields = Object.keys(schema.getQueryType()!.getFields());
    // No stale exception, and none of them planned (a planned root is generated).
    for (const name of Object.keys(NOT_GENERATED)) expect(queryFields, name).toContain(name);
    expect(Object.keys(NOT_GENERATED).filter((name) => name in ROOT_RENDERERS)).toEqual([]);
    // Every other root has its arguments generated and a rendered read (a root added without either fails here).
    expect(Object.keys(ROOT_ARGUMENTS).sort()).toEqual([...GENERATED_ROOTS].sort());
    expect(Object.keys(ROOT_RENDERERS).sort()).toEqual([...GENERATED_ROOTS].sort());
  });
});

describe('each generated root plans every field of the type it answers', () => {
  // A placeholder for each required argument: planning reads no row, it only coerces them. A new id each time: `node`
  // plans by what reads of an id learned (nodeTypeHints, process-wide), and the test files share a process.
  const UUID = JSON.stringify(randomUUID());
  const placeholder = (type: GraphQLInputType): string => {
    const nullable = getNullableType(type);
    return isListType(nullable) ? `[${placeholder(nullable.ofType)}]` : UUID;
  };
  it.each(GENERATED_ROOTS)('%s', (root) => {
    const field = schema.getQueryType()!.getFields()[root]!;
    const args = requiredArgs(field).map((arg) => `${arg.name}: ${placeholder(arg.type)}`);
    const call = `${root}${args.length ? `(${args.join(', ')})` : ''}`;
    const walk = closedWalk(schema);
    const plans = (selection: string) => {
      const operation = parse(`{ ${call} ${selection} }`).definitions[0] as OperationDefinitionNode;
      return ROOT_RENDERERS[root]!(field, [operation.selectionSet.selections[0] as FieldNode], walk) !== null;
    };
    const type = getNamedType(field.type);
    if (isLeafType(type)) return expect(plans('')).toBe(true);
    // A union has no fields of its own: its type name, and each member by a fragment.
    if (isUnionType(type)) {
      for (const member of type.getTypes()) expect(plans(`{ __typename ... on ${member.name} { id } }`), member.name).toBe(true);
      return;
    }
    const unplanned = Object.values((type as GraphQLObjectType).getFields())
      .filter((f) => {
        const target = getNamedType(f.type);
        const sub = isLeafType(target) ? '' : isObjectType(target) && isConnection(target) ? '{ totalCount }' : '{ __typename }';
        return !plans(`{ ${f.name} ${sub} }`);
      })
      .map((f) => f.name);
    // The read graph's exceptions of that type; the viewer's own row renders its owned parts too.
    const expected = Object.keys(NOT_PLANNED[type.name] ?? {}).filter((name) => !(root === 'viewer' && OWNED_RENDERED.has(name)));
    expect(unplanned.sort()).toEqual(expected.sort());
  });
});

/**
 * A made walk of an operation that selects nothing: asked for the fields of a selection it did not walk (a planner tried on a field
 * alone), it collects them as a walk collects them, keeping nothing.
 */
function closedWalk(schema: GraphQLSchema): OperationWalk {
  const document = parse('{ __typename }');
  const walk = new OperationWalk(schema, document, document.definitions[0] as OperationDefinitionNode, {});
  walk.close();
  return walk;
}

describe('the read graph plans every field of its types', () => {
  it.each(Object.keys(READS_BY_TYPE))('%s', async (typeName) => {
    const schema = await getSchema();
    const type = schema.getType(typeName) as GraphQLObjectType;
    expect(isObjectType(type)).toBe(true);
    const walk = closedWalk(schema);
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
