import {
  getNamedType,
  getNullableType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  isEnumType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isRequiredArgument,
  Kind,
  parse,
  visit,
} from 'graphql';
import { READS_BY_TYPE } from '../../modules/common/read-specs.js';
import { embedsOf } from './mapping.js';
import { snakeCaseName } from '../../read/answer-form.js';
import { boolean, dateTime, id, integer, nullable, nullableRef, number, object, ref, type Schema, string } from './resources.schema.js';

/**
 * The REST form's resources, derived from their GraphQL object types in the built schema.
 * A resource's fields are every field of its type that answers a scalar or an enum (or a
 * list of them) and needs no argument, in the type's order: they make the resource's
 * fragment (`fragment PoolFields on Pool { ... }`, which the routes' documents spread) and
 * its JSON schema (the response schema fastify serializes with, so a key it does not list
 * would be dropped, and the OpenAPI component), in snake_case, with the JSON type, format and
 * nullability of the field's type; every one is required. Token amounts are described as
 * whole tokens, from the read graph's list of them (common/read-specs.ts, `amounts`). Its
 * embedded relations are optional properties, those of the read graph REST embeds
 * (mapping.ts, REST_EMBEDS). So a field added to a type is in the REST answers and the
 * OpenAPI document with no change here, and so is a relation added to the graph where the
 * type embeds every relation; REST_RESOURCES holds all that is REST's own of the fields.
 */

/** How a resource's REST form differs from its GraphQL type, on purpose. */
interface ResourceForm {
  /** REST's description of the resource, where it says something the type's does not. */
  description?: string;
  /** Fields REST shows otherwise than derived. */
  fields?: Record<string, FieldForm>;
}

interface FieldForm {
  /** A description REST adds to the property. */
  description?: string;
  /**
   * Private to the record's user: left out of the resource's fragment, which the reads of
   * anyone's record spread (a field that answers FORBIDDEN there would fail the read); an
   * optional property, present where a route reads the caller's own record and selects it.
   */
  ownRecordOnly?: true;
}

/**
 * The resources and every deliberate difference from their GraphQL types, in the order the
 * OpenAPI document lists them. A private field of a resource's type must be listed here
 * (`ownRecordOnly`): rest-derivation.test.ts fails while one is in a fragment.
 */
export const REST_RESOURCES: Record<string, ResourceForm> = {
  User: {
    // GET /auth/me selects it beside UserFields (auth.routes.ts).
    fields: { email: { ownRecordOnly: true, description: 'Only in your own record (GET /auth/me).' } },
  },
  // REST shows an image only as a pool's picture (`includes=image`), never as an avatar.
  Image: { description: 'An uploaded image.' },
  Resolution: {},
  Streak: {},
  Reward: {},
  Prediction: {},
  Pool: {
    // The relations of a REST pool come only when asked for.
    description: 'A pool asking for a numeric outcome; embedded relations appear only when listed in `includes`.',
  },
  StreakReward: {},
  // POST /auth/api-keys answers the key beside its record: the hash is not the key.
  ApiKey: { fields: { keyHash: { description: 'SHA-256 of the key, hex.' } } },
};

/** How a token amount's property is described. */
const WHOLE_TOKENS = 'Whole tokens.';

/** JSON schemas of the scalars resources use. Every id of the interface is a UUID. */
const SCALAR_SCHEMAS: Record<string, Schema> = {
  ID: id,
  String: string,
  Int: integer,
  Float: number,
  Boolean: boolean,
  DateTime: dateTime,
};

/** The name of a resource's fragment of fields, which the routes' documents spread. */
export const fragmentName = (resource: string) => `${resource}Fields`;

/** Whether a field is one of its resource's derived fields: a scalar or enum value (a list too) that needs no argument. */
const isResourceField = (field: GraphQLField<unknown, unknown>) =>
  isLeafType(getNamedType(field.type)) && !field.args.some(isRequiredArgument);

export interface RestResources {
  /** The resources' JSON schemas, in REST_RESOURCES' order. */
  schemas: Schema[];
  /** Each resource's fragment definition, by fragment name. */
  fragments: Map<string, string>;
  /** A route's fixed document with the definitions of the resource fragments it spreads appended. */
  completeDocument(query: string): string;
}

/**
 * The resources of REST_RESOURCES derived from `schema`'s types. Throws when the table names
 * a type, field or relation the schema does not have, so a stale entry fails at start.
 */
export function restResources(schema: GraphQLSchema): RestResources {
  const schemas: Schema[] = [];
  const fragments = new Map<string, string>();
  for (const [name, form] of Object.entries(REST_RESOURCES)) {
    const type = schema.getType(name);
    if (!isObjectType(type)) throw new Error(`REST resource ${name}: the schema has no object type ${name}`);
    const derived = resourceOf(type, form);
    schemas.push(derived.schema);
    fragments.set(fragmentName(name), derived.fragment);
  }
  // The documents are fixed (never built from a request): one entry per route's document.
  const completed = new Map<string, string>();
  return {
    schemas,
    fragments,
    completeDocument(query) {
      let document = completed.get(query);
      if (document === undefined) {
        document = withFragments(query, fragments);
        completed.set(query, document);
      }
      return document;
    },
  };
}

function resourceOf(type: GraphQLObjectType, form: ResourceForm): { schema: Schema; fragment: string } {
  const fields = Object.values(type.getFields()).filter(isResourceField);
  for (const name of Object.keys(form.fields ?? {})) {
    if (!fields.some((field) => field.name === name)) throw new Error(`REST resource ${type.name}: ${name} is not one of its fields`);
  }
  const amounts = READS_BY_TYPE[type.name]?.amounts ?? {};
  const required: Record<string, Schema> = {};
  const optional: Record<string, Schema> = {};
  const selected: string[] = [];
  for (const field of fields) {
    const fieldForm = form.fields?.[field.name];
    const description = fieldForm?.description ?? (Object.hasOwn(amounts, field.name) ? WHOLE_TOKENS : undefined);
    const property = valueSchema(field.type, `${type.name}.${field.name}`);
    (fieldForm?.ownRecordOnly ? optional : required)[snakeCaseName(field.name)] = description ? { ...property, description } : property;
    if (!fieldForm?.ownRecordOnly) selected.push(field.name);
  }
  // Relations a route may embed: optional properties, present when its document selects them (the pool routes' `includes`).
  for (const { field, description } of embedsOf(type.name)) {
    const shape = embeddedSchema(type, field);
    optional[snakeCaseName(field)] = description ? { ...shape, description } : shape;
  }
  return {
    schema: object(type.name, form.description ?? type.description ?? '', required, optional),
    fragment: `fragment ${fragmentName(type.name)} on ${type.name} { ${selected.join(' ')} }`,
  };
}

/** The JSON schema of a scalar, enum or list value of GraphQL type `type`. */
function valueSchema(type: GraphQLOutputType, coordinate: string): Schema {
  const value = getNullableType(type);
  let schema: Schema;
  if (isListType(value)) schema = { type: 'array', items: valueSchema(value.ofType, coordinate) };
  else if (isEnumType(value)) schema = { type: 'string', enum: value.getValues().map((enumValue) => enumValue.name) };
  else {
    const scalar = SCALAR_SCHEMAS[getNamedType(value).name];
    if (!scalar)
      throw new Error(`REST resource field ${coordinate}: no JSON schema for scalar ${getNamedType(value).name} (SCALAR_SCHEMAS)`);
    schema = scalar;
  }
  return isNonNullType(type) ? schema : nullable(schema);
}

/**
 * The JSON schema of relation `name` of `type` embedded: its resource, or an array of it (a
 * list, or a connection's nodes, as the answers are mapped: mapping.ts); nullable as the field is.
 */
function embeddedSchema(type: GraphQLObjectType, name: string): Schema {
  const field = type.getFields()[name];
  if (!field) throw new Error(`REST resource ${type.name}: it has no relation ${name}`);
  const target = getNullableType(field.type);
  // A connection is answered as the array of its nodes (mapping.ts, toSnakeCase).
  const nodes = isObjectType(target) ? target.getFields().nodes : undefined;
  const isArray = isListType(target) || nodes !== undefined;
  const resource = getNamedType(nodes?.type ?? target).name;
  if (!Object.hasOwn(REST_RESOURCES, resource))
    throw new Error(`REST resource ${type.name}: ${name} is a ${resource}, which is no REST resource`);
  const shape = isArray ? { type: 'array', items: ref(resource) } : ref(resource);
  if (isNonNullType(field.type)) return shape;
  return isArray ? nullable(shape) : nullableRef(resource);
}

/** `query` with the definitions of the `fragments` it spreads but does not define appended. */
function withFragments(query: string, fragments: Map<string, string>): string {
  const spread = new Set<string>();
  const defined = new Set<string>();
  visit(parse(query), {
    [Kind.FRAGMENT_SPREAD]: (node) => void spread.add(node.name.value),
    [Kind.FRAGMENT_DEFINITION]: (node) => void defined.add(node.name.value),
  });
  const missing = [...spread].filter((name) => !defined.has(name) && fragments.has(name));
  return [query, ...missing.map((name) => fragments.get(name)!)].join('\n');
}
