import Fastify from 'fastify';
import {
  buildSchema,
  execute,
  extendSchema,
  getNamedType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  isEnumType,
  isNonNullType,
  isScalarType,
  Kind,
  type OperationDefinitionNode,
  parse,
  printSchema,
} from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { PRIVATE_FIELD } from '../../src/modules/auth/viewer.js';
import { registerRest } from '../../src/server/rest/index.js';
import { embedsOf } from '../../src/server/rest/mapping.js';
import { buildOpenApiDocument } from '../../src/server/rest/openapi.js';
import { fragmentName, REST_RESOURCES, restResources } from '../../src/server/rest/resources.js';
import type { RunOperation } from '../../src/server/rest/run-operation.js';
import { getSchema } from '../../src/server/schema.js';

/**
 * The REST resources derive from their GraphQL types (src/server/rest/resources.ts). The
 * expectations here walk the types themselves, written apart from the derivation: every
 * scalar or enum field is in its resource's fragment and JSON schema, with its JSON type,
 * except what REST_RESOURCES lists; and a field added to a type is in the REST answer and the
 * OpenAPI document with nothing written for it.
 */

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The JSON type a GraphQL scalar or enum serializes to (ids and date-times are strings). */
function jsonTypeOf(type: GraphQLNamedType): string {
  if (isEnumType(type)) return 'string';
  return (
    { ID: 'string', String: 'string', DateTime: 'string', Int: 'integer', Float: 'number', Boolean: 'boolean' } as Record<string, string>
  )[type.name]!;
}

/** The fields a REST resource shows: those answering a scalar or an enum, needing no argument, in the type's order. */
function valueFields(type: GraphQLObjectType): GraphQLField<unknown, unknown>[] {
  return Object.values(type.getFields()).filter((field) => {
    const named = getNamedType(field.type);
    return (
      (isScalarType(named) || isEnumType(named)) && field.args.every((arg) => !isNonNullType(arg.type) || arg.defaultValue !== undefined)
    );
  });
}

/** The field names a fragment definition selects. */
function selectedBy(fragment: string): string[] {
  const [definition] = parse(fragment).definitions;
  if (definition?.kind !== Kind.FRAGMENT_DEFINITION) throw new Error(`not a fragment: ${fragment}`);
  return definition.selectionSet.selections.map((selection) => (selection.kind === Kind.FIELD ? selection.name.value : '?'));
}

const ownRecordOnly = (resource: string) =>
  Object.entries(REST_RESOURCES[resource]!.fields ?? {})
    .filter(([, form]) => form.ownRecordOnly)
    .map(([name]) => name);

type JsonSchema = { properties: Record<string, Record<string, unknown>>; required: string[]; description: string };

describe('the REST resources, derived from the GraphQL types', () => {
  let schema: GraphQLSchema;
  let derived: ReturnType<typeof restResources>;
  const schemaOf = (resource: string) => derived.schemas.find((s) => s.$id === resource) as unknown as JsonSchema;
  beforeAll(async () => {
    schema = await getSchema();
    derived = restResources(schema);
  });

  it('list every scalar and enum field of each type with its JSON type, but what REST_RESOURCES keeps to the own record', () => {
    expect(Object.keys(REST_RESOURCES)).toEqual([
      'User',
      'Image',
      'Resolution',
      'Streak',
      'Reward',
      'Prediction',
      'Pool',
      'StreakReward',
      'ApiKey',
    ]);
    for (const resource of Object.keys(REST_RESOURCES)) {
      const type = schema.getType(resource) as GraphQLObjectType;
      const fields = valueFields(type);
      const own = ownRecordOnly(resource);
      // Not vacuous: each type has its id and dates, and more.
      expect(fields.length, resource).toBeGreaterThan(4);
      const publicFields = fields.map((field) => field.name).filter((name) => !own.includes(name));
      expect(selectedBy(derived.fragments.get(fragmentName(resource))!), resource).toEqual(publicFields);

      const json = schemaOf(resource);
      expect(json.required, resource).toEqual(publicFields.map(snake));
      for (const field of fields) {
        const property = json.properties[snake(field.name)];
        const coordinate = `${resource}.${field.name}`;
        expect(property, coordinate).toBeDefined();
        const jsonType = jsonTypeOf(getNamedType(field.type));
        expect(property!.type, coordinate).toEqual(isNonNullType(field.type) ? jsonType : [jsonType, 'null']);
        const named = getNamedType(field.type);
        if (isEnumType(named)) expect(property!.enum, coordinate).toEqual(named.getValues().map((value) => value.name));
        if (named.name === 'ID') expect(property!.format, coordinate).toBe('uuid');
        if (named.name === 'DateTime') expect(property!.format, coordinate).toBe('date-time');
      }
      // The rest of the properties are the relations REST embeds, none of them required.
      const embedded = Object.keys(json.properties).filter((name) => !fields.some((field) => snake(field.name) === name));
      expect(embedded, resource).toEqual(embedsOf(resource).map((embed) => snake(embed.field)));
    }
    expect(ownRecordOnly('User')).toEqual(['email']);
    expect(schemaOf('User').properties.email).toEqual({ type: ['string', 'null'], description: 'Only in your own record (GET /auth/me).' });
  });

  it('describe exactly the token amounts, which the GraphQL descriptions say are in whole tokens, as whole tokens', () => {
    let amounts = 0;
    for (const resource of Object.keys(REST_RESOURCES)) {
      for (const field of valueFields(schema.getType(resource) as GraphQLObjectType)) {
        const property = schemaOf(resource).properties[snake(field.name)]!;
        const isAmount = /in whole tokens/i.test(field.description ?? '');
        if (isAmount) amounts++;
        expect(property.description === 'Whole tokens.', `${resource}.${field.name}: ${field.description}`).toBe(isAmount);
      }
    }
    // Pool's three, a prediction's stake, a reward's and a streak reward's amount, a resolution's two, a streak's three.
    expect(amounts).toBe(11);
  });

  it('keep every private field out of the fragments, which every read of anyone’s record spreads', () => {
    let privateFields = 0;
    for (const resource of Object.keys(REST_RESOURCES)) {
      const selected = selectedBy(derived.fragments.get(fragmentName(resource))!);
      for (const field of valueFields(schema.getType(resource) as GraphQLObjectType)) {
        if (!field.description?.includes(PRIVATE_FIELD)) continue;
        privateFields++;
        expect(selected, `${resource}.${field.name} is private: list it as ownRecordOnly in REST_RESOURCES`).not.toContain(field.name);
      }
    }
    expect(privateFields).toBeGreaterThan(0);
  });

  it('complete a route’s document with the fragments it spreads and does not define, once', () => {
    const query =
      'query { viewer { ...UserFields } pool(id: "x") { ...PoolWithRelations } }\nfragment PoolWithRelations on Pool { ...PoolFields }';
    const document = derived.completeDocument(query);
    const definitions = parse(document).definitions.map((definition) =>
      definition.kind === Kind.FRAGMENT_DEFINITION ? definition.name.value : (definition as OperationDefinitionNode).operation,
    );
    expect(definitions).toEqual(['query', 'PoolWithRelations', 'UserFields', 'PoolFields']);
    expect(derived.completeDocument(query)).toBe(document);
  });

  it('refuses a table naming a field its type does not have', () => {
    const withoutEmail = buildSchema('type Query { user: User } type User { id: ID! username: String! }');
    expect(() => restResources(withoutEmail)).toThrow('REST resource User: email is not one of its fields');
  });
});

describe('a field added to a GraphQL type', () => {
  const EXTENSION = parse(`
    extend type Pool {
      "How many times the pool was shared."
      shareCount: Int!
      "An optional caption."
      caption: String
    }
  `);

  it('is in the resource’s fragment and JSON schema, and so in the OpenAPI document', async () => {
    const extended = extendSchema(await getSchema(), EXTENSION);
    const { fragments, schemas } = restResources(extended);
    expect(selectedBy(fragments.get('PoolFields')!)).toEqual(expect.arrayContaining(['shareCount', 'caption']));
    const pool = schemas.find((s) => s.$id === 'Pool') as unknown as JsonSchema;
    expect(pool.properties.share_count).toEqual({ type: 'integer' });
    expect(pool.properties.caption).toEqual({ type: ['string', 'null'] });
    expect(pool.required).toEqual(expect.arrayContaining(['share_count', 'caption']));

    const openapi = await buildOpenApiDocument(extended);
    expect(openapi.components.schemas.Pool.properties.share_count).toEqual({ type: 'integer' });
    // Everything else is as the served schema's document has it.
    const served = await buildOpenApiDocument();
    const { share_count: _shareCount, caption: _caption, ...others } = openapi.components.schemas.Pool.properties;
    expect(others).toEqual(served.components.schemas.Pool.properties);
  });

  it('is in the REST answer: the route’s document selects it, and the response schema keeps it', async () => {
    // A schema without resolvers: its fields read the root value, so the operation needs no database.
    const extended = extendSchema(buildSchema(printSchema(await getSchema())), EXTENSION);
    const poolType = extended.getType('Pool') as GraphQLObjectType;
    const id = '00000000-0000-4000-8000-000000000001';
    const pool = { ...sampleOf(poolType), id, shareCount: 7, caption: 'hello' };
    const runOperation: RunOperation = async (_request, _reply, operation) => {
      const result = await execute({
        schema: extended,
        document: parse(operation.query),
        rootValue: { pool },
        variableValues: operation.variables,
        operationName: operation.operationName,
      });
      const errors = result.errors?.map((error) => ({ message: error.message, extensions: { code: 'INTERNAL_SERVER_ERROR' as const } }));
      return { status: 200, headers: {}, body: { data: result.data ?? undefined, errors } };
    };
    const app = Fastify({ logger: false });
    await registerRest(app, { runOperation, schema: extended, serveSchemaDocument: false });
    try {
      const response = await app.inject({ method: 'GET', url: `/pools/${id}` });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ id, share_count: 7, caption: 'hello', title: 'text', min_stake: 2.5, status: 'ACTIVE' });
    } finally {
      await app.close();
    }
  });
});

/** A value of every non-null scalar and enum field of `type` (nullable ones null), as a resolver-less schema reads it. */
function sampleOf(type: GraphQLObjectType): Record<string, unknown> {
  const samples: Record<string, unknown> = {
    ID: '00000000-0000-4000-8000-000000000000',
    String: 'text',
    Int: 3,
    Float: 2.5,
    Boolean: true,
  };
  samples.DateTime = '2026-03-01T12:00:00.000Z';
  const value: Record<string, unknown> = {};
  for (const field of valueFields(type)) {
    const named = getNamedType(field.type);
    value[field.name] = !isNonNullType(field.type) ? null : isEnumType(named) ? named.getValues()[0]!.name : samples[named.name];
  }
  return value;
}
