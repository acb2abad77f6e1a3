import { getNamedType, type GraphQLObjectType } from 'graphql';
import type { ReadPlan, RenderedObject } from '../../db/nested-read.js';
import type { PageArguments } from '../common/pagination.js';
import { POOL_READ, STREAK_READ } from '../common/read-specs.js';
import {
  argumentsOf,
  connectionRoot,
  objectRoot,
  type RenderedConnection,
  renderedConnection,
  renderedObject,
  renderedOf,
  type RootFieldRenderer,
  subSelections,
  writeConnection,
} from '../common/rendered-read.js';
import { collectFields } from '../common/selections.js';
import { parseId } from '../common/ids.js';
import { listStreaks, streakPools } from './streak.service.js';

/**
 * `streakPools` rendered: the resolver's streakPools with one plan for the streak and one
 * for its page of pools, whose statements write their JSON. Each of `streak` and `pools`
 * renders once; a second alias of either leaves the query to the executor.
 */
const renderStreakPools: RootFieldRenderer = (field, nodes, walk) => {
  const type = getNamedType(field.type) as GraphQLObjectType;
  const args = argumentsOf(field, nodes[0]!, walk);
  if (!args) return null;
  const parts: Array<{ key: string; kind: '__typename' | 'streak' | 'pools' }> = [];
  let streak: RenderedObject | null = null;
  let pools: RenderedConnection | null = null;
  for (const [key, fieldNodes] of collectFields(type, subSelections(nodes), walk)) {
    const name = fieldNodes[0]!.name.value;
    const target = getNamedType(type.getFields()[name]?.type ?? type) as GraphQLObjectType;
    if (name === '__typename') parts.push({ key, kind: name });
    else if (name === 'streak' && !streak && (streak = renderedObject(target, STREAK_READ, fieldNodes, walk)))
      parts.push({ key, kind: name });
    else if (name === 'pools' && !pools && (pools = renderedConnection(target, POOL_READ, fieldNodes, walk)))
      parts.push({ key, kind: name });
    else return null;
  }
  const plans: { streak: ReadPlan; pools: ReadPlan } = {
    streak: { spec: STREAK_READ, columns: new Set(['id']), relations: new Map(), rendered: streak ? [streak] : [] },
    pools: { spec: POOL_READ, columns: new Set(['id', 'createdAt']), relations: new Map(), rendered: pools?.objects ?? [] },
  };
  return async (ctx) => {
    const { streakId, ...page } = args;
    const result = await streakPools(ctx, streakId as string, page, plans);
    const out = ['{'];
    for (const [i, part] of parts.entries()) {
      out.push(`${i ? ',' : ''}${JSON.stringify(part.key)}:`);
      if (part.kind === '__typename') out.push(JSON.stringify(type.name));
      else if (part.kind === 'streak') out.push(renderedOf(result.streak)[0]!);
      else out.push(...(await writeConnection(result.pools, pools!, renderedOf)));
    }
    out.push('}');
    return out;
  };
};

/** The root fields of the streaks module that a rendered read answers, through the resolvers' own service calls. */
export const STREAK_ROOT_RENDERERS: Record<string, RootFieldRenderer> = {
  streak: objectRoot('id', (_ctx, args) => parseId(args.id as string, 'id')),
  streaks: connectionRoot((ctx, args, plan) => listStreaks(ctx, args as PageArguments, plan)),
  streakPools: renderStreakPools,
};
