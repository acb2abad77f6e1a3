import { getNamedType, type GraphQLObjectType, type GraphQLSchema, isNonNullType } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { PAGE_ARGUMENTS } from '../../src/modules/common/page-arguments.js';
import { READ_GRAPH, typeNameOf } from '../../src/modules/common/read-specs.js';
import { MADE_READ_GRAPH_FIELDS } from '../../src/modules/common/read-graph-fields.js';
import { getSchema } from '../../src/server/schema.js';

/**
 * The GraphQL field of each relation of the read graph is made from its entry
 * (src/modules/common/read-graph-fields.ts), not written: its type, its description, its page
 * arguments. (schema-sdl.test.ts holds the SDL itself: the fields made are the ones written
 * before, to the byte.)
 */

/** Whether a one-to-one relation always finds a row, as the schema says it: written apart from the derivation. */
const NON_NULL_ONES = [
  'Image.user',
  'StreakReward.streak',
  'Resolution.pool',
  'Reward.prediction',
  'Pool.user',
  'Prediction.user',
  'Prediction.pool',
  'Notification.user',
];

describe('the relations’ GraphQL fields', () => {
  let schema: GraphQLSchema;
  beforeAll(async () => {
    schema = await getSchema();
  });

  const relations = Object.entries(READ_GRAPH).flatMap(([type, spec]) =>
    Object.entries(spec.relations).map(([field, relation]) => ({ type, field, relation, coordinate: `${type}.${field}` })),
  );

  it('are made for every public relation of the graph but those whose field takes arguments of its own', () => {
    expect(relations.length).toBeGreaterThan(15);
    for (const { coordinate, relation } of relations) {
      const written = relation.kind === 'page' && relation.plain !== undefined;
      expect(MADE_READ_GRAPH_FIELDS.has(coordinate), coordinate).toBe(!written);
    }
    // One is written by its module: a user's predictions, which its history service filters and sorts.
    expect(relations.filter(({ coordinate }) => !MADE_READ_GRAPH_FIELDS.has(coordinate)).map(({ coordinate }) => coordinate)).toEqual([
      'User.predictions',
    ]);
  });

  it('answer the target’s type (a page its connection, with the page arguments), described as the entry describes them', () => {
    for (const { type, field, relation, coordinate } of relations) {
      if (!MADE_READ_GRAPH_FIELDS.has(coordinate)) continue;
      const definition = (schema.getType(type) as GraphQLObjectType).getFields()[field]!;
      expect(definition, coordinate).toBeDefined();
      expect(definition.description, coordinate).toBe(relation.description);
      const target = typeNameOf(relation.target());
      if (relation.kind === 'one') {
        expect(getNamedType(definition.type).name, coordinate).toBe(target);
        expect(definition.args, coordinate).toEqual([]);
        expect(isNonNullType(definition.type), coordinate).toBe(NON_NULL_ONES.includes(coordinate));
      } else {
        expect(getNamedType(definition.type).name, coordinate).toBe(`${target}Connection`);
        expect(isNonNullType(definition.type), coordinate).toBe(true);
        expect(
          definition.args.map((arg) => arg.name),
          coordinate,
        ).toEqual(['first', 'after', 'last', 'before']);
        // Its page arguments are read, and refused, before execution starts.
        expect(typeof definition.extensions[PAGE_ARGUMENTS], coordinate).toBe('function');
      }
      expect(definition.resolve, coordinate).toBeTypeOf('function');
    }
  });

  it('are answered by the read graph, through the relation’s loader', async () => {
    // A relation field reads through relationOne/relationPage: with no row behind the key, its answer is null or empty.
    const made = (schema.getType('Prediction') as GraphQLObjectType).getFields().streak!;
    const lookups: Array<[unknown, string]> = [];
    const unique = (_table: unknown, column: { name: string }) => ({
      load: async (key: string) => {
        lookups.push([key, column.name]);
        return null;
      },
    });
    const context = { loaders: { graph: { unique } } };
    const prediction = { id: 'p', poolId: 'pool-1' };
    expect(await made.resolve!(prediction, {}, context, {} as never)).toBeNull();
    // Through its pool: the pool by id first, and no streak looked up for a pool not found.
    expect(lookups).toEqual([['pool-1', 'id']]);
  });
});

describe('the token amounts’ GraphQL fields', () => {
  let schema: GraphQLSchema;
  beforeAll(async () => {
    schema = await getSchema();
  });

  const amounts = Object.entries(READ_GRAPH).flatMap(([type, spec]) =>
    Object.entries(spec.amounts ?? {}).map(([field, description]) => ({ type, field, description, coordinate: `${type}.${field}` })),
  );

  it('are made for every amount of the graph, as whole tokens described as the entry says, but a streak reward’s', () => {
    expect(amounts.length).toBeGreaterThanOrEqual(10);
    for (const { type, field, description, coordinate } of amounts) {
      const definition = (schema.getType(type) as GraphQLObjectType).getFields()[field]!;
      expect(definition.description, coordinate).toBe(description);
      expect(String(definition.type), coordinate).toBe('Float!');
      expect(MADE_READ_GRAPH_FIELDS.has(coordinate), coordinate).toBe(coordinate !== 'StreakReward.amount');
    }
  });

  it('convert the base units with the row’s decimals', () => {
    const totalVolume = (schema.getType('Pool') as GraphQLObjectType).getFields().totalVolume!;
    expect(totalVolume.resolve!({ totalVolume: 123_456_789n, decimals: 6 }, {}, {}, {} as never)).toBe(123.456789);
    const stake = (schema.getType('Prediction') as GraphQLObjectType).getFields().stake!;
    expect(stake.resolve!({ stake: 5n, decimals: 0 }, {}, {}, {} as never)).toBe(5);
  });
});
