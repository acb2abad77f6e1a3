import { Field, ID, InterfaceType } from 'type-graphql';

/** Where a row handed to `node`/`nodes` keeps the name of its GraphQL type. */
export const NODE_TYPE = Symbol('node type');

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
  // Rows are plain objects: `node` tags each with its type (NODE_TYPE) as it finds it.
  resolveType: (value: { [NODE_TYPE]?: string }) => value[NODE_TYPE],
})
export abstract class Node {
  @Field(() => ID, { description: 'Globally unique id: the UUID of the object, whatever its type.' })
  id!: string;
}
