import type { RelationSpec } from '../../read/nested-read.js';
import { READ_GRAPH, typeNameOf } from '../../modules/common/read-specs.js';
import { snakeCaseKey, snakeCaseName } from '../../read/answer-form.js';

/**
 * The REST form's names: GraphQL answers (camelCase) become the interface's snake_case, the
 * argument names of GraphQL errors become the REST parameters they came from, and the read
 * graph's relations become the `includes` paths of the pool routes.
 */

/**
 * Deep copy of a GraphQL result with snake_case keys. A connection selected as `{ nodes }`
 * becomes the plain array the interface embeds. (Loops rather than entries: a pools page
 * with its predictions is thousands of objects.)
 */
export function toSnakeCase(value: unknown): any {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const copy = new Array(value.length);
    for (let i = 0; i < value.length; i++) copy[i] = toSnakeCase(value[i]);
    return copy;
  }
  // A serialized scalar (DateTime gives a Date) is a value, not an object to rename.
  if (value instanceof Date) return value.toISOString();
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  if (keys.length === 1 && keys[0] === 'nodes' && Array.isArray(object.nodes)) return toSnakeCase(object.nodes);
  const copy: Record<string, unknown> = {};
  for (const key of keys) copy[snakeCaseKey(key)] = toSnakeCase(object[key]);
  return copy;
}

/** GraphQL argument names whose REST parameter is not simply their snake_case. */
const PARAMETER_OF_ARGUMENT: Record<string, string> = {
  first: 'limit',
  after: 'cursor',
  search: 'query',
  sort: 'sort_by',
  'filter.status': 'filter_by',
};

/** The REST parameter an error's `argumentName` (such as `input.poolId`) refers to. */
export function restParameterName(argumentName: string): string {
  const name = argumentName.replace(/^input\./, '');
  return PARAMETER_OF_ARGUMENT[name] ?? snakeCaseName(name.replace(/^filter\./, ''));
}

/**
 * Which relations of the read graph (common/read-specs.ts) the REST form embeds, by type: a
 * relation embedded is an optional property of its resource (resources.ts) and, on the pool
 * routes, an `includes` path with its `@include` variable in the routes' one document
 * (documents.ts). Only public relations: the owned ones are never embedded.
 */
interface EmbedForm {
  /** Every relation of the type's read, so a relation added to the graph is embedded with nothing written here; or those named. */
  relations: 'every' | readonly string[];
  /** The order of the embedded relations' keys in an answer: the interface's. Relations it does not name follow, in the graph's order. */
  order?: readonly string[];
  /** What REST says of an embedded relation, by relation. */
  descriptions?: Readonly<Record<string, string>>;
}

export const REST_EMBEDS: Readonly<Record<string, EmbedForm>> = {
  Pool: {
    relations: 'every',
    order: ['user', 'resolution', 'image', 'streak', 'predictions'],
    descriptions: { predictions: 'Newest first, at most `predictions_limit`.' },
  },
  Prediction: {
    relations: 'every',
    order: ['user', 'reward', 'streak', 'pool'],
    descriptions: { pool: 'Its pool, without relations.' },
  },
  // Always embedded, by GET /streak/user-details (documents.ts): no include.
  StreakReward: { relations: ['streak'] },
};

/** An embedded relation of a type: its GraphQL field, the relation, and REST's description of it. */
export interface Embed {
  field: string;
  relation: RelationSpec;
  description?: string;
}

/** The relations `type` embeds, in the order of their keys in an answer. Throws for a name the read graph does not have. */
export function embedsOf(type: string): Embed[] {
  const form = REST_EMBEDS[type];
  if (!form) return [];
  const relations = READ_GRAPH[type]?.relations ?? {};
  const named = form.relations === 'every' ? Object.keys(relations) : form.relations;
  const order = form.order ?? [];
  for (const field of [...order, ...named, ...Object.keys(form.descriptions ?? {})]) {
    if (!Object.hasOwn(relations, field)) throw new Error(`REST_EMBEDS: ${type} has no relation ${field} in the read graph`);
  }
  const fields = [...order.filter((field) => named.includes(field)), ...named.filter((field) => !order.includes(field))];
  return fields.map((field) => ({ field, relation: relations[field]!, description: form.descriptions?.[field] }));
}

/** How deep `includes` reaches: a relation, or a relation's relation (each embedded without its own relations). */
const INCLUDE_DEPTH = 2;

/** One `includes` path of a route's resource: the relation it embeds and how the route's document asks for it. */
export interface Include {
  /** As `includes` names it: dotted, in snake_case (`predictions.user`). */
  path: string;
  /** The GraphQL field. */
  field: string;
  /** The embedded resource's type. */
  type: string;
  /** The document's `@include` variable (`predictionsUser`). */
  variable: string;
  /** Of a page: the variable of its size (`predictionsFirst`) and the REST parameter giving it (`predictions_limit`). */
  page: { variable: string; parameter: string } | null;
  /** The includes below it: the embedded relations of its type. */
  children: Include[];
}

/** The includes of a resource of `type`, as a tree. */
export function includesOf(type: string, depth = INCLUDE_DEPTH, parent: readonly string[] = []): Include[] {
  if (depth === 0) return [];
  return embedsOf(type).map(({ field, relation }) => {
    const names = [...parent, field];
    const target = typeNameOf(relation.target());
    const variable = names.map((name, i) => (i === 0 ? name : name[0]!.toUpperCase() + name.slice(1))).join('');
    return {
      path: names.map(snakeCaseName).join('.'),
      field,
      type: target,
      variable,
      page: relation.kind === 'page' ? { variable: `${variable}First`, parameter: `${names.map(snakeCaseName).join('_')}_limit` } : null,
      children: includesOf(target, depth - 1, names),
    };
  });
}

/** Every include of a tree, each level before the next (the order the OpenAPI document lists them). */
export function flatIncludes(tree: readonly Include[]): Include[] {
  const all: Include[] = [];
  for (let level = [...tree]; level.length; level = level.flatMap((include) => include.children)) all.push(...level);
  return all;
}

/** The includes of the pool routes (GET /pools, /pools/{id}, /streak/pools). */
export const POOL_INCLUDES = includesOf('Pool');

/** The relations `includes` may name; a dotted path includes its parent too. */
export const INCLUDABLE: readonly string[] = flatIncludes(POOL_INCLUDES).map((include) => include.path);
export type Includable = string;

/**
 * The `@include` variables of the pool documents (see documents.ts) for `includes`: each
 * include's, true when it or a path below it is asked for, and each embedded page's size,
 * from its parameter (`predictions_limit`) in `pageSizes` (a route's query), or `pageSizes`
 * itself when a number. Added to `variables` (the route's others, an object literal), which
 * is returned. Not spread after other keys (`{ id, ...includeVariables(…) }`): an object
 * literal with a spread followed by other keys is made in V8's slow form, and a REST route's
 * variables cost 20-30 µs a request that way; a spread as the literal's last part does not.
 */
export function includeVariables(
  includes: readonly Includable[] = [],
  pageSizes: number | object,
  variables: Record<string, unknown> = {},
): Record<string, unknown> {
  const sizeOf = (parameter: string) => (typeof pageSizes === 'number' ? pageSizes : (pageSizes as Record<string, unknown>)[parameter]);
  // A path asks for each relation on its way too (`predictions.user` for `predictions`).
  const asked = new Set<string>();
  for (const path of includes) {
    for (let dot = path.indexOf('.'); dot !== -1; dot = path.indexOf('.', dot + 1)) asked.add(path.slice(0, dot));
    asked.add(path);
  }
  const visit = (tree: readonly Include[]) => {
    for (const include of tree) {
      const included = asked.has(include.path);
      variables[include.variable] = included;
      // Not included: one row, the least the argument takes (the walk counts no skipped field).
      if (include.page) variables[include.page.variable] = included ? sizeOf(include.page.parameter) : 1;
      visit(include.children);
    }
  };
  visit(POOL_INCLUDES);
  return variables;
}
