import {
  astFromValue,
  type FieldNode,
  getArgumentValues,
  getNamedType,
  getNullableType,
  type GraphQLField,
  type GraphQLInputType,
  isEnumType,
  isInputObjectType,
  isListType,
  isObjectType,
  isScalarType,
  Kind,
  type OperationDefinitionNode,
  parse,
  print,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { argumentReader } from '../../src/read/arguments.js';
import { getSchema } from '../../src/server/schema.js';
import { seededRandom } from '../support/seeded-random.js';

/**
 * argumentReader is graphql-js's getArgumentValues prepared once per field node: for every
 * field of the schema that takes arguments, generated argument forms (not given, a literal,
 * a variable given, null or missing) must read the same arguments, or fail with the same
 * error, as graphql-js reads them.
 */

/** A value of `type` as resolvers receive it (coerced), or undefined where none is made up. */
function sampleValue(type: GraphQLInputType, random: () => number): unknown {
  const nullable = getNullableType(type);
  if (isListType(nullable)) return [sampleValue(nullable.ofType, random)];
  if (isEnumType(nullable)) {
    const values = nullable.getValues();
    return values[Math.floor(random() * values.length)]!.value;
  }
  if (isInputObjectType(nullable)) return {};
  if (isScalarType(nullable)) {
    switch (nullable.name) {
      case 'Int':
        return Math.floor(random() * 50);
      case 'Float':
        return random() * 10;
      case 'Boolean':
        return random() < 0.5;
      case 'ID':
        return '0b8f5a4e-8a34-4c1e-9f6e-2f1c7b9d3a10';
      case 'String':
        return 'text';
      default:
        return undefined;
    }
  }
  return undefined;
}

interface Case {
  field: GraphQLField<unknown, unknown>;
  node: FieldNode;
  variables: Record<string, unknown>;
  text: string;
}

function* generatedCases(fields: GraphQLField<unknown, unknown>[], random: () => number, perField: number): Generator<Case> {
  for (const field of fields) {
    for (let n = 0; n < perField; n++) {
      const written: string[] = [];
      const variables: Record<string, unknown> = {};
      for (const argument of field.args) {
        const form = random();
        const value = sampleValue(argument.type, random);
        if (form < 0.2) continue; // not given
        if (form < 0.45 && value !== undefined) {
          const literal = astFromValue(value, argument.type);
          if (literal) written.push(`${argument.name}: ${print(literal)}`);
          continue;
        }
        if (form < 0.5) {
          written.push(`${argument.name}: null`);
          continue;
        }
        const name = `v_${argument.name}`;
        written.push(`${argument.name}: $${name}`);
        const given = random();
        if (given < 0.15) continue; // the variable not given
        variables[name] = given < 0.3 ? null : value;
      }
      const text = `{ ${field.name}${written.length ? `(${written.join(', ')})` : ''} }`;
      const operation = parse(text, { noLocation: true }).definitions[0] as OperationDefinitionNode;
      const node = operation.selectionSet.selections[0] as FieldNode;
      yield { field, node, variables, text };
    }
  }
}

/** What a read gives: the arguments, or the error's message. */
function outcome(read: () => Record<string, unknown>): { args: Record<string, unknown> } | { error: string } {
  try {
    return { args: read() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe('argumentReader', () => {
  it('reads what getArgumentValues reads, for every field with arguments and generated argument forms', async () => {
    const schema = await getSchema();
    const fields = Object.values(schema.getTypeMap())
      .filter(isObjectType)
      .filter((type) => !type.name.startsWith('__'))
      .flatMap((type) => Object.values(type.getFields()))
      .filter((field) => field.args.length > 0);
    expect(fields.length).toBeGreaterThan(20);
    const random = seededRandom(22);
    let compared = 0;
    let refused = 0;
    for (const { field, node, variables, text } of generatedCases(fields, random, 40)) {
      const reader = argumentReader(field, node);
      const expected = outcome(() => getArgumentValues(field, node, variables));
      // Twice: a kept reader answers every request, so a first read must change nothing for the next.
      for (let time = 0; time < 2; time++) {
        expect(
          outcome(() => reader(variables)),
          `${text} with ${JSON.stringify(variables)}`,
        ).toEqual(expected);
      }
      compared++;
      if ('error' in expected) refused++;
    }
    // The class, not one case: many reads, the refusals among them.
    expect(compared).toBeGreaterThan(1000);
    expect(refused).toBeGreaterThan(20);
  });

  it('gives a literal object or list a fresh copy at each read, as graphql-js does', async () => {
    const schema = await getSchema();
    const pools = schema.getQueryType()!.getFields().pools!;
    const withObject = pools.args.find((argument) => isInputObjectType(getNamedType(argument.type)));
    expect(withObject, 'pools takes an input object (its filter)').toBeDefined();
    const operation = parse(`{ pools(${withObject!.name}: {}) { totalCount } }`).definitions[0] as OperationDefinitionNode;
    const node = operation.selectionSet.selections[0] as FieldNode;
    expect(node.kind).toBe(Kind.FIELD);
    const reader = argumentReader(pools, node);
    const first = reader({})[withObject!.name];
    expect(first).toEqual({});
    expect(reader({})[withObject!.name]).not.toBe(first);
  });
});
