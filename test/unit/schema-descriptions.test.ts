import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { getSchema } from '../../src/server/schema.js';

/** Words that add nothing to a name: "The title." still only restates `title`. */
const FILLER = new Set(['a', 'an', 'the', 'of', 'this', 'its']);

/** Lower-case words of a camelCase, PascalCase or SCREAMING_CASE name, or of a sentence. */
function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '' && !FILLER.has(word));
}

/** Why `description` does not describe `name`, or undefined when it does. */
function flaw(name: string, description: string | null | undefined): string | undefined {
  if (description == null || description.trim() === '') return 'no description';
  if (words(description).join(' ') === words(name).join(' ')) return `description only restates the name: "${description}"`;
  return undefined;
}

/**
 * Every schema element a frontend developer can meet in an explorer, with its coordinate
 * (`Type`, `Type.field`, `Type.field(arg:)`, `Enum.VALUE`) and its description.
 */
function describedElements(
  types: readonly GraphQLNamedType[],
): Array<{ coordinate: string; name: string; description: string | null | undefined }> {
  const elements: Array<{ coordinate: string; name: string; description: string | null | undefined }> = [];
  const withArgs = (typeName: string, field: GraphQLField<unknown, unknown>) => {
    elements.push({ coordinate: `${typeName}.${field.name}`, name: field.name, description: field.description });
    for (const arg of field.args as readonly GraphQLArgument[]) {
      elements.push({ coordinate: `${typeName}.${field.name}(${arg.name}:)`, name: arg.name, description: arg.description });
    }
  };
  for (const type of types) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    elements.push({ coordinate: type.name, name: type.name, description: type.description });
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) withArgs(type.name, field);
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields()) as GraphQLInputField[]) {
        elements.push({ coordinate: `${type.name}.${field.name}`, name: field.name, description: field.description });
      }
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) {
        elements.push({ coordinate: `${type.name}.${value.name}`, name: value.name, description: value.description });
      }
    }
  }
  return elements;
}

describe('schema descriptions', () => {
  it('describe every type, field, argument, input field and enum value', async () => {
    // The devchain's schema is the larger one: it adds requestDevTokens.
    const schema = await getSchema({ devTokens: true });
    const elements = describedElements(Object.values(schema.getTypeMap()));
    const missing = elements.flatMap(({ coordinate, name, description }) => {
      const problem = flaw(name, description);
      return problem ? [`${coordinate}: ${problem}`] : [];
    });
    // Guard the walk itself: a schema this size has hundreds of elements.
    expect(elements.length).toBeGreaterThan(300);
    expect(missing, `${missing.length} of ${elements.length} schema elements lack a real description:\n${missing.join('\n')}`).toEqual([]);
  });

  it('rejects a missing description and one that restates the name', () => {
    expect(flaw('totalVolume', undefined)).toBe('no description');
    expect(flaw('totalVolume', '  ')).toBe('no description');
    expect(flaw('totalVolume', 'Total volume.')).toMatch(/restates/);
    expect(flaw('ACTIVE', 'Active')).toMatch(/restates/);
    expect(flaw('PoolStatus', 'The pool status.')).toMatch(/restates/);
    expect(flaw('totalVolume', 'Sum of all stakes in the pool, in whole tokens.')).toBeUndefined();
  });
});
