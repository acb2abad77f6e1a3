import { type FieldNode, getNamedType, type GraphQLAbstractType, type GraphQLField, type GraphQLObjectType, isLeafType } from 'graphql';
import type { RenderedObject } from '../../read/nested-read.js';
import { READS_BY_TYPE } from '../common/read-specs.js';
import { renderedObject, type RootArguments, type RootFieldRenderer } from '../../read/rendered-read.js';
import type { ServiceContext } from '../context.js';
import { argumentReader } from '../../read/arguments.js';
import type { SelectionWalk } from '../../read/operation-walk.js';
import {
  findRenderedNodes,
  isPublicNodeType,
  nodeIdOf,
  nodeTypeHints,
  objectsForIds,
  readTaggedNode,
  renderedNodeSql,
} from './node.service.js';

/**
 * `node(id)` and `nodes(ids)` (a Relay refetch): one statement writes each id's object from whichever public type's table holds it;
 * `node` as a column of the operation's shared statement. An id of another type, or of nothing, leaves the query to the executor
 * (findNodes), which tells a private object's owner from everyone else.
 *
 * Tables are probed most selected fields first, since a refetch names the type it expects by a fragment. Once an id's type is known
 * (nodeTypeHints), a `node` plan names that type's table alone and is kept for every id of the type; a plan made before is
 * provisional. `nodes` does the same per request for its ids' known types (objectsForIds).
 */
const renderNode: RootFieldRenderer = (field, nodes, walk) => {
  const objects = renderedNodeObjects(field, nodes, walk);
  if (!objects) return null;
  const argumentsOf = argumentReader(field, nodes[0]!);
  const hint = walk.dependOn(nodes[0]!, (variables) => nodeTypeHints.typeOf(argumentsOf(variables).id as string));
  // A type read before, or NOT_RENDERED: this selection renders it, or the executor reads it.
  const probed = hint === undefined ? objects : Object.hasOwn(objects, hint) ? { [hint]: objects[hint]! } : null;
  if (!probed) return null;
  return {
    sql: (params, slot) => renderedNodeSql(probed, slot('uuid'), params),
    values: (_ctx, args) => [nodeIdOf(args.id as string, 'id')],
    write: (tagged, args) => {
      const json = readTaggedNode(args.id as string, tagged);
      if (json === null) throw unrendered();
      return json;
    },
    provisional: hint === undefined,
  };
};

/** A root field answering a JSON list of the objects `find` writes, each of a type {@link renderedNodeObjects} renders (else null). */
export const renderedObjectList =
  (
    find: (ctx: ServiceContext, args: RootArguments, objects: Record<string, RenderedObject>) => Promise<string[] | null>,
  ): RootFieldRenderer =>
  (field, nodes, walk) => {
    const objects = renderedNodeObjects(field, nodes, walk);
    if (!objects) return null;
    return async (ctx, args) => {
      const found = await find(ctx, args, objects);
      if (!found) throw unrendered();
      return ['[', ...found.flatMap((json, i) => (i ? [',', json] : [json])), ']'];
    };
  };

/**
 * What an abstract root field's selection (`node`'s Node, `_entities`' union) renders of each public type, by name, most selected
 * fields first (stable sort: ties keep schema order). Null when it renders none, or selects a field with its own cache policy on a
 * type it does not render: a rendered read tells Apollo's plugins of every type its selection names (its types are known only once
 * it ran), so cache control takes all their policies, and an all-pools answer would be told private where the executor says public.
 */
export function renderedNodeObjects(
  field: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  walk: SelectionWalk,
): Record<string, RenderedObject> | null {
  const rendered: Array<[string, RenderedObject]> = [];
  for (const type of walk.schema.getPossibleTypes(getNamedType(field.type) as GraphQLAbstractType)) {
    const spec = READS_BY_TYPE[type.name];
    const object = spec && isPublicNodeType(type.name) && renderedObject(type, spec, nodes, walk);
    if (object) rendered.push([type.name, object]);
    else if ([...walk.fieldsOf(type, nodes).values()].some(([node]) => hasCachePolicy(type, node!))) return null;
  }
  if (!rendered.length) return null;
  return Object.fromEntries(rendered.sort(([, a], [, b]) => b.fields.length - a.fields.length));
}

/** Whether a field brings its own cache policy (a hint, or a returned object, uncacheable unless hinted); a scalar takes its parent's. */
function hasCachePolicy(type: GraphQLObjectType, node: FieldNode): boolean {
  const field = type.getFields()[node.name.value];
  if (!field) return false;
  return (
    !isLeafType(getNamedType(field.type)) || (field.astNode?.directives ?? []).some((directive) => directive.name.value === 'cacheControl')
  );
}

/** Thrown by a rendered read that finds an object it has no rendering for: the executor answers the operation. */
export const unrendered = () => new Error('an id is of a type this plan does not render: executed instead');

export const NODE_ROOT_RENDERERS: Record<string, RootFieldRenderer> = {
  node: renderNode,
  nodes: renderedObjectList(async (ctx, args, objects) => {
    const ids = args.ids as string[];
    const probed = objectsForIds(objects, ids);
    return probed && findRenderedNodes(ctx, ids, 'ids', probed);
  }),
};
