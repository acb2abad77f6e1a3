import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { type DefinitionNode, type DocumentNode, type GraphQLSchema, Kind, parse, print } from 'graphql';

/** The federation version the subgraph speaks, and the directives of it the schema uses. */
const FEDERATION_LINK = 'extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])';

/** What the spec adds to a subgraph's schema: a router knows them, and the SDL leaves them out. */
const FEDERATION_TYPES = new Set(['_Entity', '_Any', '_Service']);
const FEDERATION_FIELDS = new Set(['_entities', '_service']);

const sdlOf = new WeakMap<GraphQLSchema, string>();

/**
 * The schema as `_service { sdl }` gives it to a router (Apollo Federation 2): every type
 * with its directives (`@key` on the entities, and the cache hints), after the `@link` that
 * says which federation it speaks, without the federation fields and types themselves.
 * Printed once per schema. (`@apollo/subgraph`'s printSubgraphSchema prints a type from its
 * `astNode` when it has one, and type-graphql gives each type with a directive an `astNode`
 * holding its directives alone, so it would print those types without their fields.)
 */
export function subgraphSdl(schema: GraphQLSchema): string {
  let sdl = sdlOf.get(schema);
  if (sdl === undefined) {
    const document = parse(printSchemaWithDirectives(schema));
    const definitions = document.definitions.flatMap((definition): DefinitionNode[] => {
      if ('name' in definition && definition.name && FEDERATION_TYPES.has(definition.name.value)) return [];
      if (definition.kind === Kind.OBJECT_TYPE_DEFINITION && definition.name.value === schema.getQueryType()?.name) {
        return [{ ...definition, fields: definition.fields?.filter((field) => !FEDERATION_FIELDS.has(field.name.value)) }];
      }
      return [definition];
    });
    sdl = `${FEDERATION_LINK}\n\n${print({ ...document, definitions } satisfies DocumentNode)}\n`;
    sdlOf.set(schema, sdl);
  }
  return sdl;
}
