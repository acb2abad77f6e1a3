import { getNamedType, getNullableType, type GraphQLLeafType, type GraphQLObjectType, type GraphQLOutputType, isListType } from 'graphql';
import type { PageRendering, RenderedConnection, RenderedObject } from '../../read/nested-read.js';
import type { PageArguments } from '../common/pagination.js';
import { POOL_READ, STREAK_READ, STREAK_REWARD_READ } from '../common/read-specs.js';
import {
  connectionRoot,
  objectRoot,
  renderedConnection,
  renderedObject,
  type RootFieldRenderer,
  nestMembers,
  pageRendering,
  type PieceRange,
  writeConnection,
  writtenObjects,
} from '../../read/rendered-read.js';
import { selectionWriter } from '../../read/selection-json.js';
import { parseId } from '../common/ids.js';
import {
  renderedStreakPools,
  renderedStreaks,
  rewardJsonSql,
  STATE_COLUMNS,
  userStreakDetails,
  type UserStreakDetailsRendering,
  type UserStreakDetailsResult,
} from './streak.service.js';

/**
 * `streakPools` through the resolver's service, with one plan for the streak and one for its page of pools, whose statements write
 * their JSON. A second alias of `streak` or `pools` leaves the query to the executor.
 */
const renderStreakPools: RootFieldRenderer = (field, nodes, walk) => {
  const type = getNamedType(field.type) as GraphQLObjectType;
  const parts: Array<{ key: string; kind: '__typename' | 'streak' | 'pools' }> = [];
  let streak: RenderedObject | null = null;
  let pools: RenderedConnection | null = null;
  for (const [key, fieldNodes] of walk.fieldsOf(type, nodes)) {
    const name = fieldNodes[0]!.name.value;
    const target = getNamedType(type.getFields()[name]?.type ?? type) as GraphQLObjectType;
    if (name === '__typename') parts.push({ key, kind: name });
    else if (name === 'streak' && !streak && (streak = renderedObject(target, STREAK_READ, fieldNodes, walk)))
      parts.push({ key, kind: name });
    else if (name === 'pools' && !pools && (pools = renderedConnection(target, POOL_READ, fieldNodes, walk)))
      parts.push({ key, kind: name });
    else return null;
  }
  // One array for the plan's life: readRenderedByIds keeps its statement by it.
  const plans: { streak: [RenderedObject]; pools: PageRendering } = {
    streak: [streak ?? { spec: STREAK_READ, fields: [] }],
    pools: pools ? pageRendering(pools) : { objects: [], cursors: false, joined: true },
  };
  return async (ctx, args) => {
    const { streakId, ...page } = args;
    const result = await renderedStreakPools(ctx, streakId as string, page, plans);
    const out = ['{'];
    const members = new Map<string, PieceRange>();
    for (const [i, part] of parts.entries()) {
      out.push(`${i ? ',' : ''}${JSON.stringify(part.key)}:`);
      const from = out.length;
      if (part.kind === '__typename') out.push(JSON.stringify(type.name));
      else if (part.kind === 'streak') out.push(result.streak);
      else {
        const connection = await writeConnection(result.pools, pools!, writtenObjects);
        nestMembers(members, part.key, from, connection.members);
        out.push(...connection);
      }
      members.set(part.key, [from, out.length]);
    }
    out.push('}');
    return Object.assign(out, { members });
  };
};

/** The viewer's state in the streak, by field: written as the executor writes the service's values. */
const DETAILS_VALUES = new Set<string>(STATE_COLUMNS);

/** A leaf (or a list of leaves) as JSON: its type's serializer, as the executor completes it. */
function leafJson(type: GraphQLOutputType, value: unknown): string {
  if (value == null) return 'null';
  const nullable = getNullableType(type);
  if (isListType(nullable)) return `[${(value as unknown[]).map((item) => leafJson(nullable.ofType, item)).join(',')}]`;
  return JSON.stringify((nullable as GraphQLLeafType).serialize(value));
}

/**
 * `streakUserDetails` in the service's one statement, which writes the streak and rewards as JSON through the read graph; the
 * viewer's state is written here as its resolvers give it. Signed out or an unknown streak, the read throws and the executor reports it.
 */
const renderStreakUserDetails: RootFieldRenderer = (field, nodes, walk) => {
  const type = getNamedType(field.type) as GraphQLObjectType;
  const rendering: UserStreakDetailsRendering = { streak: [], rewards: [] };
  const write = selectionWriter<UserStreakDetailsResult>(type, nodes, walk, (name, fieldNodes) => {
    const definition = type.getFields()[name];
    if (!definition) return null;
    if (DETAILS_VALUES.has(name)) return (result) => leafJson(definition.type, result[name as keyof UserStreakDetailsResult]);
    const target = getNamedType(definition.type) as GraphQLObjectType;
    if (name === 'streak') {
      const streak = renderedObject(target, STREAK_READ, fieldNodes, walk);
      if (!streak) return null;
      const index = rendering.streak.push(streak) - 1;
      return (result) => result.renderedStreak![index]!;
    }
    if (name !== 'streakRewards') return null;
    const reward = renderedObject(target, STREAK_REWARD_READ, fieldNodes, walk);
    const json = reward && rewardJsonSql(reward);
    if (!json) return null;
    const index = rendering.rewards.push(json) - 1;
    return (result) => result.renderedRewards![index]!;
  });
  if (!write) return null;
  return async (ctx, args) => [
    write(await userStreakDetails(ctx, args.streakId as string, args.isClaimed as boolean | null | undefined, rendering)),
  ];
};

export const STREAK_ROOT_RENDERERS: Record<string, RootFieldRenderer> = {
  streak: objectRoot('id', (_ctx, args) => parseId(args.id as string, 'id')),
  streaks: connectionRoot((ctx, args, rendering) => renderedStreaks(ctx, args as PageArguments, rendering)),
  streakPools: renderStreakPools,
  streakUserDetails: renderStreakUserDetails,
};
