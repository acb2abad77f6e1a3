import { type GraphQLSchema, isInterfaceType, isUnionType } from 'graphql';
import { Field, ID, InterfaceType } from 'type-graphql';
import { NODE_TYPE } from './node.service.js';

/** Rows are plain objects: `node` tags each with its type (NODE_TYPE) as it finds it. */
export function nodeTypeOf(value: { [NODE_TYPE]?: string }): string | undefined {
  return value[NODE_TYPE];
}

/**
 * Gives the built schema's Node (and `_Entity`) its type resolver as it is: type-graphql wraps every
 * resolveType in an async function, which costs each abstract field a promise; the type
 * is known synchronously.
 */
export function withNodeTypesResolved(schema: GraphQLSchema): GraphQLSchema {
  const node = schema.getType('Node');
  if (isInterfaceType(node)) node.resolveType = nodeTypeOf;
  // A subgraph's `_entities` answers the same tagged rows (modules/federation).
  const entity = schema.getType('_Entity');
  if (isUnionType(entity)) entity.resolveType = nodeTypeOf;
  return schema;
}

/**
 * The Relay Node interface: every object with an identity of its own implements it (the
 * stored resources through `Entity`, and UserTransaction). Its id is the row's UUID, already
 * unique across tables, so the same id serves `pool(id)`, the REST paths and `node(id)`.
 */
@InterfaceType('Node', {
  description: 'An object with an identity of its own, refetchable by its id with `node(id)`.',
  // Every implementation is reachable from the root fields anyway; registering them all would
  // also register the abstract Entity base class as a type.
  autoRegisterImplementations: false,
  resolveType: nodeTypeOf,
})
export abstract class Node {
  @Field(() => ID, { description: 'Globally unique id: the UUID of the object, whatever its type.' })
  id!: string;
}
