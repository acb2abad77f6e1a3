import {
  type FieldNode,
  type FragmentDefinitionNode,
  getNamedType,
  getVariableValues,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  isCompositeType,
  isLeafType,
  isNonNullType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  parse,
  print,
} from 'graphql';
import { collectFields, collectSubfields } from 'graphql/execution/collectFields.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { OperationWalk } from '../../src/read/operation-walk.js';
import { ReadRenderer } from '../../src/server/read-renderer.js';
import { getSchema } from '../../src/server/schema.js';
import { seededRandom } from '../support/seeded-random.js';

/**
 * One walk: the cost, the page-argument checks, the root count and the render decision all
 * read the operation's one walk (src/read/operation-walk.ts). Over generated documents with
 * @skip/@include, inline and named fragments, aliases and variables:
 * - the walk's fields are graphql-js's own collection (what the executor runs), at every position;
 * - each consumer answers the same for the document as for its plain twin, a document of
 *   exactly the fields that run, written out with no directive and no fragment: the
 *   consumers see those fields and nothing else.
 */

const UUID = '"00000000-0000-4000-8000-000000000000"';
const CASES = 200;

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await getSchema();
});

interface Generated {
  text: string;
  variables: Record<string, unknown>;
}

/** A random query over the schema's public roots: aliases, directives on variables, fragments, page sizes (some bad). */
function generate(random: () => number): Generated {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number) => random() < p;
  const definitions: string[] = [];
  const fragments: string[] = [];
  const variables: Record<string, unknown> = {};
  let counter = 0;

  const variable = (type: string, value: unknown) => {
    const name = `v${counter++}`;
    definitions.push(`$${name}: ${type}`);
    variables[name] = value;
    return `$${name}`;
  };
  const directive = () => {
    if (!chance(0.3)) return '';
    return ` @${pick(['skip', 'include'])}(if: ${chance(0.7) ? variable('Boolean!', chance(0.5)) : String(chance(0.5))})`;
  };
  /** The field's arguments: required ids as a placeholder, a page size sometimes (sometimes a bad one), nothing else. */
  const argumentsOf = (field: GraphQLField<unknown, unknown>): string | null => {
    const given: string[] = [];
    for (const argument of field.args) {
      const named = getNamedType(argument.type).name;
      if (argument.name === 'first' && chance(0.6)) {
        const size = chance(0.1) ? -1 : 1 + Math.floor(random() * 4);
        given.push(`first: ${chance(0.5) ? variable('Int', size) : size}`);
      } else if (isNonNullType(argument.type)) {
        if (named !== 'ID') return null;
        given.push(`${argument.name}: ${UUID}`);
      }
    }
    return given.length ? `(${given.join(', ')})` : '';
  };
  const selection = (type: GraphQLObjectType, depth: number, only?: readonly string[]): string => {
    const fields = only ? only.flatMap((name) => type.getFields()[name] ?? []) : Object.values(type.getFields());
    const parts: string[] = [];
    const count = 1 + Math.floor(random() * 4);
    for (let i = 0; i < count; i++) {
      const field = pick(fields);
      const args = argumentsOf(field);
      if (args === null) continue;
      const target = getNamedType(field.type);
      if (!isLeafType(target) && (depth >= 3 || !isObjectType(target))) continue;
      const alias = chance(0.25) ? `a${counter++}: ` : '';
      const sub = isObjectType(target) ? ` { ${selection(target, depth + 1)} }` : '';
      parts.push(`${alias}${field.name}${args}${directive()}${sub}`);
    }
    parts.push('__typename');
    // Part of the selection in a fragment: inline (maybe under a directive) or named.
    if (chance(0.4)) {
      const moved = parts.splice(0, Math.ceil(parts.length / 2)).join(' ');
      if (chance(0.5)) parts.push(`... on ${type.name}${directive()} { ${moved} }`);
      else {
        const name = `F${counter++}`;
        fragments.push(`fragment ${name} on ${type.name} { ${moved} }`);
        parts.push(`...${name}${directive()}`);
      }
    }
    return parts.join(' ');
  };
  // Roots anyone may read; fragments on the root type may name any of its fields, as the walk sees them.
  const root = selection(schema.getQueryType()!, 0, ['pools', 'pool', 'streaks', 'leaderboard', 'user', 'viewer', 'node']);
  const heading = definitions.length ? `(${definitions.join(', ')})` : '';
  return { text: `query${heading} { ${root} } ${fragments.join(' ')}`, variables };
}

/** An empty selection runs nothing; GraphQL cannot write one, so the twin writes a fragment that never applies. */
const NOTHING = '... @skip(if: true) { __typename }';

/** The plain twin of a walked operation: exactly the fields that run, by response key, no directive, no fragment. */
function plainTwin(walk: OperationWalk, operation: OperationDefinitionNode): string {
  const write = (type: GraphQLObjectType, fields: Map<string, FieldNode[]>): string =>
    [...fields]
      .map(([key, nodes]) => {
        const node = nodes[0]!;
        const args = node.arguments?.length ? `(${node.arguments.map((a) => print(a)).join(', ')})` : '';
        const head = `${key === node.name.value ? '' : `${key}: `}${node.name.value}${args}`;
        const definition = node.name.value === '__typename' ? null : type.getFields()[node.name.value];
        const target = definition && getNamedType(definition.type);
        if (!target || !isCompositeType(target)) return head;
        const possible = isObjectType(target) ? [target] : schema.getPossibleTypes(target);
        const inner = possible
          .map((t) => write(t, walk.fieldsOf(t, nodes)) || NOTHING)
          .map((fields, i) => `... on ${possible[i]!.name} { ${fields} }`)
          .join(' ');
        return `${head} { ${inner} }`;
      })
      .join(' ');
  const definitions = operation.variableDefinitions?.length ? `(${operation.variableDefinitions.map((d) => print(d)).join(', ')})` : '';
  return `query${definitions} { ${write(schema.getQueryType()!, walk.root) || NOTHING} }`;
}

function walked(text: string, inputs: Record<string, unknown>) {
  const document = parse(text);
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
  const variables = getVariableValues(schema, operation.variableDefinitions ?? [], inputs).coerced!;
  const walk = new OperationWalk(schema, document, operation, variables);
  const fragments = Object.fromEntries(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  return { document, operation, variables, walk, fragments };
}

/** Every position of the walk checked against graphql-js's collection; returns how many positions. */
function compareWithGraphQL(schema: GraphQLSchema, w: ReturnType<typeof walked>): number {
  const keysOf = (fields: Map<string, readonly FieldNode[]>) => [...fields].map(([key, nodes]) => [key, nodes.length]);
  const expected = collectFields(schema, w.fragments, w.variables, schema.getQueryType()!, w.operation.selectionSet);
  expect(keysOf(w.walk.root)).toEqual(keysOf(expected));
  let positions = 1;
  const visit = (type: GraphQLObjectType, fields: Map<string, readonly FieldNode[]>) => {
    for (const nodes of fields.values()) {
      const definition = nodes[0]!.name.value === '__typename' ? null : type.getFields()[nodes[0]!.name.value];
      const target = definition && getNamedType(definition.type);
      if (!target || !isCompositeType(target)) continue;
      for (const possible of isObjectType(target) ? [target] : schema.getPossibleTypes(target)) {
        const theirs = collectSubfields(schema, w.fragments, w.variables, possible, nodes as FieldNode[]);
        const ours = w.walk.fieldsOf(possible, nodes);
        expect(keysOf(ours)).toEqual(keysOf(theirs));
        positions++;
        visit(possible, ours);
      }
    }
  };
  visit(schema.getQueryType()!, w.walk.root);
  return positions;
}

/** What each consumer reads of a walk: the cost and size, the root count, the argument check, the render decision. */
function consumers(w: ReturnType<typeof walked>) {
  const renderer = new ReadRenderer(schema);
  renderer.planner(w.walk);
  const plan = w.walk.plan as { refusal?: string; parts?: Array<{ key: string }> };
  return {
    measure: w.walk.measure,
    rootFieldCount: w.walk.rootFieldCount,
    argumentError: w.walk.argumentError(w.variables)?.message ?? null,
    rendered: plan.parts ? plan.parts.map((part) => part.key) : `refused: ${plan.refusal}`,
  };
}

describe('the one walk', () => {
  it(`collects what graphql-js collects, and every consumer reads exactly the fields that run (${CASES} generated queries)`, () => {
    const random = seededRandom(35);
    let positions = 0;
    let skipped = 0;
    let badArguments = 0;
    let rendered = 0;
    for (let i = 0; i < CASES; i++) {
      const { text, variables } = generate(random);
      const original = walked(text, variables);
      positions += compareWithGraphQL(schema, original);
      const twinText = plainTwin(original.walk, original.operation);
      const twin = walked(twinText, variables);
      const seen = consumers(original);
      expect(seen, `${text}\n${JSON.stringify(variables)}\ntwin: ${twinText}`).toEqual(consumers(twin));
      if (/@(skip|include)/.test(text)) skipped++;
      if (seen.argumentError) badArguments++;
      if (Array.isArray(seen.rendered)) rendered++;
    }
    // The class was met: directives, bad arguments, rendered and refused reads, nested positions.
    expect(skipped).toBeGreaterThan(CASES / 4);
    expect(badArguments).toBeGreaterThan(5);
    expect(rendered).toBeGreaterThan(CASES / 10);
    expect(rendered).toBeLessThan(CASES);
    expect(positions).toBeGreaterThan(CASES * 2);
  });

  it('leaves a skipped field out of every consumer: its cost, its bad arguments, its root', () => {
    const text = 'query($no: Boolean!) { pools(first: 5) { nodes { id } } a: pools(first: -1) @skip(if: $no) { totalCount } }';
    const skipped = walked(text, { no: true });
    const kept = walked(text, { no: false });
    expect(skipped.walk.rootFieldCount).toBe(1);
    expect(kept.walk.rootFieldCount).toBe(2);
    expect(skipped.walk.argumentError(skipped.variables)).toBeNull();
    expect(kept.walk.argumentError(kept.variables)?.message).toMatch(/first/);
    expect(kept.walk.measure.cost).toBeGreaterThan(skipped.walk.measure.cost);
  });
});
