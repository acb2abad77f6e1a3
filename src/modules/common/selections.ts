import {
  type FieldNode,
  type FragmentDefinitionNode,
  getArgumentValues,
  getDirectiveValues,
  type GraphQLField,
  GraphQLIncludeDirective,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  GraphQLSkipDirective,
  isNonNullType,
  isObjectType,
  Kind,
  type SelectionSetNode,
  typeFromAST,
  type ValueNode,
  valueFromAST,
  visit,
} from 'graphql';

/**
 * Reading a GraphQL selection outside the executor, as the executor reads it (read plans,
 * rendered reads): fields by response key, fragments expanded where their type condition
 * applies, fields skipped by @skip/@include left out.
 */

/** What a selection is read against: the schema, the operation's fragments and its coerced variables. */
export interface SelectionWalk {
  schema: GraphQLSchema;
  fragments: Record<string, FragmentDefinitionNode>;
  /**
   * The operation's variables. A rendered read's plan is kept for the values of those it
   * read (server/read-renderer.ts): what a plan takes from a variable at planning makes it
   * that value's plan; what it needs only as a value, it reads at each request instead.
   */
  variables: Record<string, unknown>;
  /**
   * What `derive` makes of the variables, where the plan depends on that rather than on
   * them (a `node` id's remembered type, not the id): a kept plan is reused for the
   * variables `derive` gives the same for. `source` names the dependency (its field).
   */
  dependOn<T>(source: FieldNode, derive: (variables: Record<string, unknown>) => T): T;
  /** Why the selection does not render, where a planner said (the first reason it gave): see {@link refuse}. */
  refusal?: RenderRefusal;
}

/**
 * Why a rendered read's planner left a selection to the executor: a label of the fallback
 * counter (poolgraph_graphql_render_fallbacks_total), so a fixed set.
 */
export type RenderRefusal =
  /** A root field no module renders, or whose module declined its selection. */
  | 'root_field'
  /** More keys in one object than one concat() writes. */
  | 'too_many_keys'
  /** A field the type does not have (the executor reports it). */
  | 'unknown_field'
  /** A field with logic of its own: a resolver, arguments, a list, or a value no column holds as the serializer writes it. */
  | 'resolver_field'
  /** A computed or module field whose selection does not render (statistics' buckets, a leaderboard entry's parts). */
  | 'computed_field'
  /** A nested page's arguments that do not parse, or ask for more than the newest-first page (a filter, another order). */
  | 'page_arguments'
  /** A part of a nested page's connection other than nodes, totalCount and __typename (pageInfo, edges and their cursors). */
  | 'page_field';

/** Notes why `walk`'s selection does not render (the first reason given wins) and answers null, as a planner that declines does. */
export function refuse(walk: SelectionWalk, reason: RenderRefusal): null {
  walk.refusal ??= reason;
  return null;
}

/** The walk of a resolver's selection. */
export function walkOf(info: GraphQLResolveInfo): SelectionWalk {
  const variables = info.variableValues;
  return { schema: info.schema, fragments: info.fragments, variables, dependOn: (_source, derive) => derive(variables) };
}

/** The fields of `selectionSets` on `type` by response key, in order, fragments expanded and skipped ones left out (graphql's CollectFields). */
export function collectFields(
  type: GraphQLObjectType,
  selectionSets: readonly SelectionSetNode[],
  walk: SelectionWalk,
): Map<string, FieldNode[]> {
  const fields = new Map<string, FieldNode[]>();
  const visited = new Set<string>();
  const collect = (selections: SelectionSetNode) => {
    for (const selection of selections.selections) {
      if (!included(selection, walk)) continue;
      if (selection.kind === 'Field') {
        const key = selection.alias?.value ?? selection.name.value;
        const list = fields.get(key);
        if (list) list.push(selection);
        else fields.set(key, [selection]);
      } else if (selection.kind === 'InlineFragment') {
        if (!selection.typeCondition || applies(selection.typeCondition, type, walk)) collect(selection.selectionSet);
      } else {
        const name = selection.name.value;
        const fragment = walk.fragments[name];
        if (visited.has(name) || !fragment || !applies(fragment.typeCondition, type, walk)) continue;
        visited.add(name);
        collect(fragment.selectionSet);
      }
    }
  };
  for (const set of selectionSets) collect(set);
  return fields;
}

function applies(condition: Parameters<typeof typeFromAST>[1], type: GraphQLObjectType, walk: SelectionWalk): boolean {
  const conditional = typeFromAST(walk.schema, condition);
  if (!conditional) return false;
  if (conditional === type) return true;
  return !isObjectType(conditional) && walk.schema.isSubType(conditional as never, type);
}

function included(node: Parameters<typeof getDirectiveValues>[1], walk: SelectionWalk): boolean {
  if (getDirectiveValues(GraphQLSkipDirective, node, walk.variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, walk.variables)?.if !== false;
}

/** A field's arguments as its resolver receives them, from the coerced variables. */
export type ArgumentReader = (variables: Record<string, unknown>) => Record<string, unknown>;

/**
 * graphql-js's `getArgumentValues(field, node, variables)`, prepared once for a field node
 * that a kept plan reads at every request: an argument given as a literal is coerced once,
 * one given as a variable is that variable's coerced value, one not given is its default.
 * graphql-js's own call keys the node's arguments in a dictionary-mode object and coerces
 * every literal again, per request (about 1 µs and 800 bytes a call). Whatever this does not
 * answer the same way by construction goes to graphql-js: a literal with a variable inside,
 * a literal object or list (resolvers get a fresh one), and every case graphql-js refuses (a
 * required argument missing or null), so its error is the one thrown.
 */
export function argumentReader(field: GraphQLField<unknown, unknown>, node: FieldNode): ArgumentReader {
  const general: ArgumentReader = (variables) => getArgumentValues(field, node, variables);
  const given = new Map((node.arguments ?? []).map((argument) => [argument.name.value, argument.value]));
  const steps: Array<{ name: string; variable: string | null; value: unknown; required: boolean; fallback: unknown }> = [];
  for (const argument of field.args) {
    const { name, type, defaultValue } = argument;
    const value = given.get(name);
    const required = isNonNullType(type);
    if (value === undefined) {
      if (defaultValue === undefined) {
        if (required) return general;
        continue;
      }
      if (defaultValue !== null && typeof defaultValue === 'object') return general;
      steps.push({ name, variable: null, value: defaultValue, required, fallback: undefined });
    } else if (value.kind === Kind.VARIABLE) {
      if (defaultValue !== null && typeof defaultValue === 'object') return general;
      steps.push({ name, variable: value.name.value, value: undefined, required, fallback: defaultValue });
    } else {
      const constant = hasVariables(value) ? undefined : valueFromAST(value, type);
      if (constant === undefined || (constant !== null && typeof constant === 'object')) return general;
      steps.push({ name, variable: null, value: constant, required, fallback: undefined });
    }
  }
  return (variables) => {
    const args: Record<string, unknown> = {};
    for (const step of steps) {
      if (step.variable === null) {
        args[step.name] = step.value;
        continue;
      }
      if (!Object.hasOwn(variables, step.variable)) {
        if (step.fallback !== undefined) args[step.name] = step.fallback;
        else if (step.required) return general(variables);
        continue;
      }
      const value = variables[step.variable];
      if (value == null && step.required) return general(variables);
      args[step.name] = value;
    }
    return args;
  };
}

function hasVariables(value: ValueNode): boolean {
  let found = false;
  visit(value, {
    Variable() {
      found = true;
    },
  });
  return found;
}
