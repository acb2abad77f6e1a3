import { type FieldNode, getNamedType, type GraphQLAbstractType, type GraphQLField, type GraphQLObjectType, isLeafType } from 'graphql';
import type { RenderedObject } from '../../read/nested-read.js';
import { READS_BY_TYPE } from '../common/read-specs.js';
import { renderedObject, type RootFieldRenderer } from '../../read/rendered-read.js';
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
 * `node(id)` and `nodes(ids)` rendered (a Relay refetch): the selection is rendered for each
 * public type of the read graph it renders for (`... on Pool { ... }` applies to Pool alone),
 * and one statement writes each id's object from whichever of those tables holds it; `node`
 * as a column of the operation's shared statement. An id of another type, or of nothing,
 * leaves the query to the executor (findNodes), which tells a private object's owner from
 * everyone else.
 *
 * The tables are probed in turn until one holds the id, the types with the most selected
 * fields first: a refetch names the type it expects by a fragment on it, so its table is
 * usually the first and only one probed. Once a read has found an id's type
 * (nodeTypeHints), a `node` read of it names that type's table alone: that plan is kept for
 * every id of the type (the plan depends on the type, not the id); a plan made before the
 * type was known is made again next time. A `nodes` read names the tables of its ids' types
 * alone once each is known (objectsForIds), chosen at each request.
 */
const renderNodes =
  (argument: 'id' | 'ids'): RootFieldRenderer =>
  (field, nodes, walk) => {
    const objects = renderedNodeObjects(field, nodes, walk);
    if (!objects) return null;
    if (argument === 'id') {
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
    }
    return async (ctx, args) => {
      const ids = args.ids as string[];
      // Refetches of known ids name their types' tables alone, as `node` does.
      const probed = objectsForIds(objects, ids);
      if (!probed) throw unrendered();
      const found = await findRenderedNodes(ctx, ids, argument, probed);
      if (!found) throw unrendered();
      return ['[', ...found.flatMap((json, i) => (i ? [',', json] : [json])), ']'];
    };
  };

/**
 * What the selection of an abstract root field (`node`'s Node, `_entities`' union) renders
 * of each of its public types, by type name, the types of the most selected fields first
 * (a stable sort: types of as many fields keep the schema's order); null when it renders none,
 * or when it selects a field with a cache policy of its own on a type it does not render. A rendered read tells
 * Apollo's plugins of the fields of every type its selection names (it resolves none, and
 * which types it found is known only once it ran), so cache control takes the policy of them
 * all: had a fragment on a type of private fields no rendering, an answer holding only pools
 * would be told private where the executor, told of the pools' fields alone, says public.
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

/**
 * Whether a field brings a cache policy of its own (Apollo's cache control: a hint on the
 * field, or an object it returns, which is not cacheable unless hinted); a plain scalar
 * field takes its parent's and changes nothing.
 */
function hasCachePolicy(type: GraphQLObjectType, node: FieldNode): boolean {
  const field = type.getFields()[node.name.value];
  if (!field) return false;
  return (
    !isLeafType(getNamedType(field.type)) || (field.astNode?.directives ?? []).some((directive) => directive.name.value === 'cacheControl')
  );
}

/** Thrown by a rendered read that finds an object it has no rendering for: the executor answers the operation. */
export const unrendered = () => new Error('an id is of a type this plan does not render: executed instead');

/** The node module's root fields a rendered read answers. */
export const NODE_ROOT_RENDERERS: Record<string, RootFieldRenderer> = {
  node: renderNodes('id'),
  nodes: renderNodes('ids'),
};
