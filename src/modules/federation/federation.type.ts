import { GraphQLScalarType, valueFromASTUntyped } from 'graphql';
import { createUnionType, Directive, Field, ObjectType } from 'type-graphql';
import { nodeTypeOf } from '../node/node.type.js';
import { Pool } from '../pools/pool.type.js';
import { Prediction } from '../predictions/prediction.type.js';
import { Streak } from '../streaks/streak.type.js';
import { Image, User } from '../users/user.type.js';

/**
 * The types another subgraph of a supergraph may reference and extend (Apollo Federation's
 * entities), each keyed by its id: the UUID `node(id)` takes. Only public types: an entity
 * is answered to whoever asks the router, so nothing private to a user is one. This list is
 * the one place: each gets its `@key` here, and `_Entity` is their union.
 */
export const FEDERATED_ENTITIES = [Pool, User, Prediction, Streak, Image];
export const ENTITY_TYPE_NAMES: ReadonlySet<string> = new Set(FEDERATED_ENTITIES.map((entity) => entity.name));

/** The key of every entity: its id. */
export const ENTITY_KEY = '@key(fields: "id")';
for (const entity of FEDERATED_ENTITIES) Directive(ENTITY_KEY)(entity);

/** What `_entities` answers, per the federation spec: any entity type, told by the row's Node type. */
export const EntityUnion = createUnionType({
  name: '_Entity',
  description: 'Any type another subgraph may reference by its key.',
  types: () => FEDERATED_ENTITIES,
  // `_entities` tags each row with its type (NODE_TYPE), as `node` does.
  resolveType: (value) => nodeTypeOf(value as Parameters<typeof nodeTypeOf>[0]),
});

/**
 * A representation of an entity, as a router sends it: `{ __typename, id }`. Checked where
 * it is used (federation.service.ts: representationsOf), which names what is wrong.
 */
export const AnyScalar = new GraphQLScalarType({
  name: '_Any',
  description: 'A representation of an entity: its `__typename` and key fields.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (node, variables) => valueFromASTUntyped(node, variables),
});

@ObjectType('_Service', { description: 'This subgraph, as a router composing a supergraph reads it.' })
export class SubgraphService {
  @Field(() => String, { nullable: true, description: "The subgraph's schema, with its federation directives." })
  sdl!: string;
}
