import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import {
  apiKeys,
  chainSubmissions,
  deviceTokens,
  images,
  notifications,
  pools,
  predictions,
  referralCodes,
  referralRedemptions,
  refreshTokens,
  resolutions,
  rewards,
  settings,
  streakRewards,
  streaks,
  users,
} from '../../../schema/index.js';
import { getTableName } from 'drizzle-orm';
import { readRenderedByIds, renderedByIdSql, type RenderedObject } from '../../read/nested-read.js';
import { badInput } from '../../errors.js';
import { canReadPrivate } from '../auth/viewer.js';
import { isUuid } from '../common/ids.js';
import type { ServiceContext } from '../context.js';
import { transactionsByIds } from '../viewer/history.service.js';
import { rowByIdLoader } from '../viewer/request-scoped.js';

/** Where a row handed to `node`/`nodes` keeps the name of its GraphQL type (node.type.ts resolves it). */
export const NODE_TYPE = Symbol('node type');

/** The most ids one `nodes` call takes. */
export const MAX_NODE_IDS = 100;

type Row = { id: string } & Record<string, unknown>;

/** How a Node type is found by id, and who may see it. */
interface NodeType {
  /** The table whose primary key is the type's id. */
  table: PgTable;
  /** The rows of `ids` (all of this type), in key order. */
  load: (ctx: ServiceContext, ids: string[]) => Promise<Array<Row | null | Error>>;
  /**
   * Whether the viewer may see `row`: never more than the fields that lead to the type
   * show (a private record: its user and admins). A row the viewer may not see is answered
   * as an unknown id would be, so `node` tells nothing of what exists.
   */
  visible: (ctx: ServiceContext, row: Row) => boolean | Promise<boolean>;
}

const PUBLIC = () => true;
/** Private to the user of the row's `userId` (and admins), as modules/users/private.service.ts. */
const OWNED = (ctx: ServiceContext, row: Row) => canReadPrivate(ctx.viewer, row.userId as string);
const byId = (table: PgTable & { id: PgColumn }) => (ctx: ServiceContext, ids: string[]) => rowByIdLoader<Row>(ctx, table).loadMany(ids);

const NODE_TYPES: Record<string, NodeType> = {
  User: { table: users, load: (ctx, ids) => ctx.loaders.userById.loadMany(ids), visible: PUBLIC },
  Pool: { table: pools, load: (ctx, ids) => ctx.loaders.poolById.loadMany(ids), visible: PUBLIC },
  Prediction: { table: predictions, load: (ctx, ids) => ctx.loaders.predictionById.loadMany(ids), visible: PUBLIC },
  Reward: { table: rewards, load: byId(rewards), visible: PUBLIC },
  Resolution: { table: resolutions, load: byId(resolutions), visible: PUBLIC },
  Image: { table: images, load: (ctx, ids) => ctx.loaders.imageById.loadMany(ids), visible: PUBLIC },
  Streak: { table: streaks, load: (ctx, ids) => ctx.loaders.streakById.loadMany(ids), visible: PUBLIC },
  // Streak rewards show only in the viewer's own streak details, claimables and transactions.
  StreakReward: {
    table: streakRewards,
    load: byId(streakRewards),
    visible: (ctx, row) => ownsWallet(ctx, row.userWalletAddress as string),
  },
  Settings: { table: settings, load: byId(settings), visible: OWNED },
  Notification: { table: notifications, load: (ctx, ids) => ctx.loaders.notificationById.loadMany(ids), visible: OWNED },
  DeviceToken: { table: deviceTokens, load: byId(deviceTokens), visible: OWNED },
  RefreshToken: { table: refreshTokens, load: byId(refreshTokens), visible: OWNED },
  ApiKey: { table: apiKeys, load: byId(apiKeys), visible: OWNED },
  // A code: its creator's (createdReferralCodes), and its redeemer's (referralRedemption.referralCode).
  ReferralCode: {
    table: referralCodes,
    load: (ctx, ids) => ctx.loaders.referralCodeById.loadMany(ids),
    visible: async (ctx, row) => OWNED(ctx, row) || (await redeemedBy(ctx, row.id)),
  },
  // A redemption: its redeemer's (referralRedemption) and the code's creator's (code.redemptions).
  ReferralRedemption: {
    table: referralRedemptions,
    load: byId(referralRedemptions),
    visible: async (ctx, row) => {
      if (OWNED(ctx, row)) return true;
      const code = await ctx.loaders.referralCodeById.load(row.referralCodeId as string);
      return code !== null && canReadPrivate(ctx.viewer, code.userId);
    },
  },
  UserTransaction: {
    table: chainSubmissions,
    load: (ctx, ids) => transactionsByIds(ctx, ids) as Promise<Array<Row | null>>,
    visible: OWNED,
  },
};

async function ownsWallet(ctx: ServiceContext, walletAddress: string): Promise<boolean> {
  if (!ctx.viewer) return false;
  if (ctx.viewer.role === 'ADMIN') return true;
  const viewer = await ctx.loaders.userById.load(ctx.viewer.userId);
  return viewer?.walletAddress === walletAddress;
}

async function redeemedBy(ctx: ServiceContext, codeId: string): Promise<boolean> {
  if (!ctx.viewer) return false;
  const redemption = await ctx.loaders.referralRedemptionByUser.load(ctx.viewer.userId);
  return redemption?.referralCodeId === codeId;
}

/** At most `maxIds` UUIDs; throws BAD_USER_INPUT. */
function checkIds(ids: readonly string[], argumentName: string, maxIds = MAX_NODE_IDS): void {
  if (ids.length > maxIds) throw badInput(argumentName, `${argumentName} takes at most ${maxIds} ids, got ${ids.length}`);
  for (const id of ids) if (!isUuid(id)) throw badInput(argumentName, `${argumentName} must be UUIDs, got ${JSON.stringify(id)}`);
}

/** Whether every object of the Node type `name` is everyone's to see, so `node` answers it without asking who the viewer is. */
export const isPublicNodeType = (name: string) => NODE_TYPES[name]?.visible === PUBLIC;

/**
 * The objects of `ids` as JSON written by ONE statement (a rendered read: `objects` is what
 * the selection renders of each public type, by type name), in order; null when some id is
 * of another type (a private one, whose visibility findNodes checks) or names nothing: the
 * caller then reads them with findNodes, which tells those apart. What the read found of
 * each id is learned ({@link nodeTypeHints}), as for `node`. Only public types may be
 * rendered here (a private one is refused), so nothing private is written by this path.
 */
export async function findRenderedNodes(
  ctx: ServiceContext,
  ids: readonly string[],
  argumentName: string,
  objects: Record<string, RenderedObject>,
): Promise<string[] | null> {
  checkIds(ids, argumentName);
  const tagged = await readRenderedByIds(ctx.database.query, publicObjects(objects), ids, Object.keys(objects));
  const found = tagged.map((json, i) => readTaggedNode(ids[i]!, json));
  return found.every((json) => json !== null) ? (found as string[]) : null;
}

/**
 * Of `objects` (by type name), those a read of `ids` needs by what {@link nodeTypeHints}
 * remembers of them: all of them while some id's type is not known; null when one is known
 * to be none of them (NOT_RENDERED, or a type the selection does not render), so the
 * executor reads them at once. Each subset is kept (by `objects`, then its types), so a
 * plan's statement text (kept per objects, see publicObjects) is made once per set of types.
 */
export function objectsForIds(objects: Record<string, RenderedObject>, ids: readonly string[]): Record<string, RenderedObject> | null {
  const types = new Set<string>();
  for (const id of ids) {
    const type = nodeTypeHints.typeOf(id);
    if (type === undefined) return objects;
    if (!Object.hasOwn(objects, type)) return null;
    types.add(type);
  }
  if (types.size === 0) return objects;
  return subsetOf(objects, types);
}

/**
 * Of `objects` (by type name), those of `types` (each of which `objects` has), the same
 * record each time for the same types: a plan's statement text is kept per record
 * (publicObjects, read/nested-read.ts), so it is made once per set of types.
 */
export function subsetOf(objects: Record<string, RenderedObject>, types: ReadonlySet<string>): Record<string, RenderedObject> {
  if (types.size === Object.keys(objects).length) return objects;
  let subsets = subsetsOf.get(objects);
  if (!subsets) subsetsOf.set(objects, (subsets = new Map()));
  const key = [...types].sort().join(',');
  let subset = subsets.get(key);
  if (!subset) {
    subset = Object.fromEntries(Object.entries(objects).filter(([type]) => types.has(type)));
    subsets.set(key, subset);
  }
  return subset;
}

const subsetsOf = new WeakMap<Record<string, RenderedObject>, Map<string, Record<string, RenderedObject>>>();

/** A `node` id argument, checked as findNodes checks it (BAD_USER_INPUT unless a UUID). */
export function nodeIdOf(id: string, argumentName: string): string {
  checkIds([id], argumentName);
  return id;
}

/**
 * The SQL writing, as {@link findRenderedNodes} writes it, the JSON of the object `idSql`
 * names after its type's name (`Pool{...}`, which {@link readTaggedNode} reads; null when it
 * is none of `objects`' types): for a statement shared with other fields.
 */
export function renderedNodeSql(objects: Record<string, RenderedObject>, idSql: string, params: unknown[]): string {
  return renderedByIdSql(publicObjects(objects), idSql, params, Object.keys(objects));
}

/**
 * The object `renderedNodeSql` wrote for `id` (null when it found none), what it found
 * learned for later reads of the id ({@link nodeTypeHints}): its type, or NOT_RENDERED.
 */
export function readTaggedNode(id: string, tagged: string | null): string | null {
  if (tagged === null) {
    nodeTypeHints.learn(id, NOT_RENDERED);
    return null;
  }
  const brace = tagged.indexOf('{');
  nodeTypeHints.learn(id, tagged.slice(0, brace));
  return tagged.slice(brace);
}

/**
 * The Node type of ids that rendered `node` reads found, so that a read of one again
 * (a refetch: the same ids, again and again) asks its type's table alone, not every
 * table in turn: Postgres locks and sets up each table a statement names, whether or not it
 * reaches it, and for a refetch that was a third of the statement's cost (bench/README.md).
 * An id a read found nowhere it looked (another type, private or not rendered there, or
 * nothing) is remembered as `NOT_RENDERED`: its reads go to the executor (findNodes) at once.
 *
 * A hint, never trusted: a read by it that finds nothing is left to findNodes, which looks
 * in every table and answers as if there were no hint. So one process-wide memory serves
 * every database: an id is a random UUID, one row of one table wherever it is found. The
 * oldest hint is forgotten past {@link NODE_TYPE_HINTS} ids.
 */
export class NodeTypeHints {
  private readonly types = new Map<string, string>();

  constructor(private readonly capacity: number) {}

  /** The type a read of `id` found, `NOT_RENDERED`, or undefined when no read has looked. */
  typeOf(id: string): string | undefined {
    return this.types.get(id.toLowerCase());
  }

  learn(id: string, type: string): void {
    const key = id.toLowerCase();
    if (this.types.get(key) === type) return;
    if (this.types.size >= this.capacity && !this.types.has(key)) this.types.delete(this.types.keys().next().value!);
    this.types.set(key, type);
  }
}

/** What {@link NodeTypeHints} remembers of an id that no rendered read found. */
export const NOT_RENDERED = '';
const NODE_TYPE_HINTS = 10_000;
export const nodeTypeHints = new NodeTypeHints(NODE_TYPE_HINTS);

/** The objects of a plan as one array (so a statement's text is made once: read/nested-read.ts keeps it by the array), public types only. */
export function publicObjects(objects: Record<string, RenderedObject>): RenderedObject[] {
  let list = objectLists.get(objects);
  if (!list) {
    for (const type of Object.keys(objects))
      if (!isPublicNodeType(type)) throw new Error(`${type} objects are private to their owners: never rendered, whoever asks`);
    objectLists.set(objects, (list = Object.values(objects)));
  }
  return list;
}

const objectLists = new WeakMap<Record<string, RenderedObject>, RenderedObject[]>();

/**
 * Which Node type each id belongs to, in ONE statement whatever the number of ids: every
 * table probed by its primary key, the ids as one array parameter. Ids are random UUIDs
 * (gen_random_uuid) in every table, so an id names one row of one table.
 */
const TYPE_OF_IDS = Object.entries(NODE_TYPES)
  .map(
    ([name, type]) =>
      `SELECT '${name}' AS "type", t."id"::text AS "id" FROM "${getTableName(type.table)}" t WHERE t."id" = ANY($1::uuid[])`,
  )
  .join(' UNION ALL ');

/**
 * The objects of `ids`, each tagged with its type for `Node`'s resolveType: null for an id
 * that names nothing, or something the viewer may not see (the same answer). An id that is
 * not a UUID is BAD_USER_INPUT, as for `pool(id)`. Costs the type lookup plus one batched
 * load per type present (the request's loaders, shared with every other field).
 */
export async function findNodes(
  ctx: ServiceContext,
  ids: readonly string[],
  argumentName: string,
  maxIds = MAX_NODE_IDS,
): Promise<Array<Row | null>> {
  checkIds(ids, argumentName, maxIds);
  const keys = [...new Set(ids.map((id) => id.toLowerCase()))];
  if (keys.length === 0) return [];
  const found = await ctx.database.query<{ type: string; id: string }>(TYPE_OF_IDS, [keys]);
  const idsByType = new Map<string, string[]>();
  const typed = new Set<string>();
  for (const { type, id } of found) {
    // Should two tables ever hold one UUID, the first type of the lookup answers: one id, one object.
    if (typed.has(id)) continue;
    typed.add(id);
    const group = idsByType.get(type);
    if (group) group.push(id);
    else idsByType.set(type, [id]);
  }
  const objects = new Map<string, Row>();
  await Promise.all(
    [...idsByType].map(async ([name, typeIds]) => {
      const type = NODE_TYPES[name]!;
      const rows = await type.load(ctx, typeIds);
      await Promise.all(
        rows.map(async (row) => {
          // A failed load (the database, say) fails the field: it is no unknown id.
          if (row instanceof Error) throw row;
          if (!row) return;
          if (await type.visible(ctx, row)) objects.set(row.id, { ...row, [NODE_TYPE]: name });
        }),
      );
    }),
  );
  return ids.map((id) => objects.get(id.toLowerCase()) ?? null);
}
