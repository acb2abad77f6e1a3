import {
  getNamedType,
  getNullableType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  isListType,
  isEnumType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import { encodeCursor } from '../../src/modules/common/pagination.js';

/** One hostile operation: its document, its variables, and the connection field whose arguments are bad. */
export interface HostileOperation {
  query: string;
  variables?: Record<string, unknown>;
  field: string;
  /** Reached through a list: the field is read once per item. */
  nested: boolean;
}

const SOME_ID = '00000000-0000-4000-8000-000000000000';
const SOME_DATE = '2024-01-01T00:00:00.000Z';
const base64url = (text: string) => Buffer.from(text).toString('base64url');

/** Forged cursors: not base64 JSON, the wrong shape, an id that is no uuid, a key no order writes, an order no list has. */
const FORGED_CURSORS = [
  'garbage',
  '',
  base64url('{}'),
  base64url('[1,2,3]'),
  base64url(JSON.stringify(['NEWEST_FIRST', SOME_DATE, 'not-a-uuid'])),
  encodeCursor('NEWEST_FIRST', 'yesterday', SOME_ID),
  encodeCursor('NEWEST_FIRST', '2024-02-30T00:00:00.000Z', SOME_ID),
  encodeCursor('NO_SUCH_ORDER', SOME_DATE, SOME_ID),
  encodeCursor('NO_SUCH_ORDER', '12', SOME_ID),
  'x'.repeat(2000),
];

/** Page arguments no list takes, built from the arguments `field` has. */
function badArgumentSets(field: GraphQLField<unknown, unknown>): Array<Record<string, unknown>> {
  const has = (name: string) => field.args.some((arg) => arg.name === name);
  const sets: Array<Record<string, unknown>> = [];
  for (const first of [0, -1, 101, 1_000_000]) sets.push({ first });
  if (has('last')) {
    for (const last of [0, 101]) sets.push({ last });
    sets.push({ first: 1, last: 1 });
  }
  for (const after of FORGED_CURSORS) sets.push({ first: 2, after });
  if (has('before')) {
    for (const before of FORGED_CURSORS.slice(0, 5)) sets.push({ last: 2, before });
    sets.push({ after: FORGED_CURSORS[5], before: FORGED_CURSORS[5] }, { first: 1, before: FORGED_CURSORS[5] });
  }
  if (has('offset')) {
    for (const offset of [-1, 10_001]) sets.push({ offset });
    sets.push({ offset: 1, after: FORGED_CURSORS[5] }, { offset: 1, last: 1 });
  }
  return sets;
}

/** A route from the query root to objects of a type: the selection that reaches them, and whether they are items of a list. */
interface Route {
  open: string;
  close: string;
  inList: boolean;
}

const requiresArguments = (field: GraphQLField<unknown, unknown>) =>
  field.args.some((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined);

/**
 * The ways to list a field on the way to a type: a page of 9, in each order its enum
 * arguments offer and from a few offsets where it takes one, since which items come first
 * decides which of them still have work in flight when a later one fails.
 */
function listings(field: GraphQLField<unknown, unknown>): string[] {
  if (!field.args.some((arg) => arg.name === 'first')) return [''];
  const variants = ['first: 9'];
  for (const arg of field.args) {
    const type = getNullableType(arg.type);
    if (isEnumType(type)) for (const value of type.getValues()) variants.push(`first: 9, ${arg.name}: ${value.name}`);
  }
  const offsets = field.args.some((arg) => arg.name === 'offset') ? variants.map((variant) => `${variant}, offset: 2`) : [];
  return [...variants, ...offsets].map((variant) => `(${variant})`);
}

/**
 * Routes from the query root to each object type (up to four levels): the shortest that
 * reach it as an item of a list (a connection's nodes) where there are such, since there a
 * resolver failing on one item finds the earlier items' work in flight.
 */
function routes(schema: GraphQLSchema): Map<string, Route[]> {
  const found = new Map<string, Route[]>();
  const depths = new Map<Route, number>();
  const queue: Array<{ type: GraphQLNamedType; route: Route; depth: number }> = [
    { type: schema.getQueryType()!, route: { open: '', close: '', inList: false }, depth: 0 },
  ];
  while (queue.length) {
    const { type, route, depth } = queue.shift()!;
    if (!isObjectType(type)) continue;
    const known = found.get(type.name) ?? [];
    if (known.length >= 24) continue;
    found.set(type.name, [...known, route]);
    depths.set(route, depth);
    if (depth >= 4) continue;
    for (const field of Object.values(type.getFields())) {
      if (requiresArguments(field) || field.name.startsWith('__')) continue;
      const target = getNamedType(field.type);
      if (!isObjectType(target)) continue;
      const list = route.inList || isListType(getNullableType(field.type));
      for (const listing of depth === 0 ? listings(field) : [field.args.some((arg) => arg.name === 'first') ? '(first: 3)' : '']) {
        queue.push({
          type: target,
          route: { open: `${route.open}${field.name}${listing} { `, close: ` }${route.close}`, inList: list },
          depth: depth + 1,
        });
      }
    }
  }
  // The shortest routes through a list: the listings of the nearest list, in turn.
  for (const [name, all] of found) {
    const listed = all.filter((route) => route.inList);
    const nearest = Math.min(...listed.map((route) => depths.get(route)!));
    found.set(name, listed.length ? listed.filter((route) => depths.get(route) === nearest) : all);
  }
  return found;
}

/**
 * Hostile operations generated from the schema's connection fields (every field taking
 * `first`): for each, every bad argument set, as literals and as variables, reached through
 * a list where one is on the way, in turn through each of its orders and offsets. Each
 * first selects the object's relations two levels deep: where an item has them (a pool
 * with a picture), their reads are in flight when the bad field fails, and that item's
 * failure settles later, as a rejected promise; where the next has none, its failure is
 * immediate. That pair is what abandoned the earlier item's rejection.
 */
export function hostileOperations(schema: GraphQLSchema): HostileOperation[] {
  const reach = routes(schema);
  const operations: HostileOperation[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    const ways = reach.get(type.name);
    if (!ways) continue;
    const reads = ['', ...readsBeside(type)];
    for (const field of Object.values(type.getFields())) {
      if (!field.args.some((arg) => arg.name === 'first')) continue;
      const fixed = field.args
        .filter((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined)
        .map((arg) => `${arg.name}: "${SOME_ID}"`);
      const leaf = selectionOf(getNamedType(field.type));
      const add = (route: Route, beside: string, args: Record<string, unknown>, asVariables: boolean) => {
        const given = Object.entries(args).map(([key, value]) => `${key}: ${asVariables ? `$${key}` : JSON.stringify(value)}`);
        const definitions = Object.keys(args).map((key) => `$${key}: ${key === 'after' || key === 'before' ? 'String' : 'Int'}`);
        const selection = `{ ${route.open}${beside}${field.name}(${[...fixed, ...given].join(', ')}) ${leaf}${route.close} }`;
        operations.push({
          field: `${type.name}.${field.name}`,
          nested: route.inList,
          query: asVariables ? `query(${definitions.join(', ')}) ${selection}` : selection,
          ...(asVariables ? { variables: args } : {}),
        });
      };
      // One bad size through every route with every read beside it: which items have work in flight depends on the data.
      for (const route of ways) for (const beside of reads) add(route, beside, { first: 0 }, false);
      // Every bad argument set, as literals and as variables, through the routes and reads in turn.
      for (const [index, args] of badArgumentSets(field).entries()) {
        const route = ways[index % ways.length]!;
        const beside = reads[Math.floor(index / ways.length) % reads.length]!;
        add(route, beside, args, false);
        add(route, beside, args, true);
      }
    }
  }
  // Nested ones first: they are the ones whose failure mid-list used to end the process.
  return operations.sort((a, b) => Number(b.nested) - Number(a.nested));
}

/** Relations of `type` two levels deep (`image { user { __typename } }`), each read by resolvers of its own. */
function readsBeside(type: GraphQLNamedType): string[] {
  if (!isObjectType(type)) return [];
  const reads: string[] = [];
  for (const field of Object.values(type.getFields())) {
    const target = getNamedType(field.type);
    if (field.args.length || !isObjectType(target)) continue;
    const inner = Object.values(target.getFields()).find((child) => !child.args.length && isObjectType(getNamedType(child.type)));
    if (inner) reads.push(`${field.name} { ${inner.name} { __typename } } `);
  }
  return reads.slice(0, 4);
}

/** What to select of a field's value: a connection's totalCount, else its __typename. */
function selectionOf(type: GraphQLNamedType): string {
  if (isObjectType(type) && type.getFields().totalCount) return '{ totalCount }';
  if (isObjectType(type) && type.getFields().pools) return '{ pools { totalCount } }';
  return '{ __typename }';
}
