import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  getNamedType,
  getNullableType,
  GraphQLError,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  isCompositeType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type ParseOptions,
  SchemaMetaFieldDef,
  type SelectionSetNode,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  type ValidationContext,
  type ValidationRule,
  type ValueNode,
} from 'graphql';
import type { OperationLimits } from '../config.types.js';
import { AppError } from '../errors.js';
import { DEFAULT_PAGE_SIZE } from '../modules/common/pagination.js';

// Defined with the rest of the configuration, whose `limits` it is; its users import it from here.
export type { OperationLimits };

/** Which limit an operation exceeded; `extensions.limit` of a QUERY_TOO_COMPLEX error. */
export type LimitName = 'depth' | 'aliases' | 'directives' | 'tokens' | 'cost' | 'bytes';

/** Items assumed in a list that has no `first` (private lists, introspection lists). */
export const UNPAGED_LIST_SIZE = 10;

/**
 * Characters a leaf's JSON value is taken to have, by its type: typical values (an id, a
 * title, an amount), not the longest, as cost counts a list by its page size.
 */
const LEAF_CHARACTERS: Readonly<Record<string, number>> = { ID: 40, String: 40, Int: 6, Float: 12, Boolean: 5 };
/** Enums and the custom scalars (dates, amounts, addresses). */
const OTHER_LEAF_CHARACTERS = 24;

/** One operation's size, every fragment spread expanded. */
export interface OperationMeasure {
  depth: number;
  aliases: number;
  directives: number;
  /**
   * Objects the operation can return: each field of object type costs 1 (leaf fields cost
   * nothing, since they come with their object), times the number of items of every list
   * it is inside. A list counts by the `first` (or `last`) of its connection (or of itself),
   * from the literal, the variable or the argument's default; a list whose items a list
   * argument names (`nodes(ids)`, `_entities(representations)`) counts one per item given;
   * any other list counts {@link UNPAGED_LIST_SIZE}.
   */
  cost: number;
  /**
   * The answer's size in characters, estimated: each field its key and a typical value
   * (LEAF_CHARACTERS), each object its braces, lists counted like cost. What a request
   * costs the process beyond the database (its JSON written, sent and collected) follows
   * this, not the number of objects: a page of every field of every relation is larger than
   * the same objects' ids by a hundred times.
   */
  bytes: number;
  /** True when a `first`, `last` or a list argument came from a variable, so the cost holds for these variables only. */
  costDependsOnVariables: boolean;
}

const ZERO: OperationMeasure = { depth: 0, aliases: 0, directives: 0, cost: 0, bytes: 0, costDependsOnVariables: false };

/**
 * Measures one operation of a validated or unvalidated document. Fragments are expanded
 * by reference and measured once per (fragment, page size), so a document that nests
 * fragments to blow up exponentially is measured in linear time; a fragment that spreads
 * itself (directly or not) counts nothing here and is rejected by the standard rules.
 * Introspection fields (`__schema`, `__type`) count like any other field.
 */
export function measureOperation(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  variables?: Readonly<Record<string, unknown>> | null,
): OperationMeasure {
  const memo = new Map<string, OperationMeasure>();
  const expanding = new Set<string>();
  const variableDefaults = new Map<string, ValueNode>();
  for (const definition of operation.variableDefinitions ?? []) {
    if (definition.defaultValue) variableDefaults.set(definition.variable.name.value, definition.defaultValue);
  }

  /**
   * The page size of a field with a `first` argument (and `last`, paging backward): the
   * larger of the two given, else the argument's default, else DEFAULT_PAGE_SIZE; null for a
   * field without one. (A query giving both is refused when it runs, after this measure.)
   */
  function pageSizeOf(field: FieldNode, definition: GraphQLField<unknown, unknown>): { size: number; fromVariable: boolean } | null {
    const argument = definition.args.find((a) => a.name === 'first');
    if (!argument) return null;
    let fromVariable = false;
    let size: number | null = null;
    for (const name of ['first', 'last']) {
      if (!definition.args.some((a) => a.name === name)) continue;
      const given = field.arguments?.find((a) => a.name.value === name)?.value;
      let value: unknown;
      if (given?.kind === Kind.VARIABLE) {
        fromVariable = true;
        const variable = given.name.value;
        value = variables && variable in variables ? variables[variable] : literal(variableDefaults.get(variable));
      } else {
        value = literal(given);
      }
      if (typeof value === 'number' && Number.isInteger(value) && value >= 0) size = Math.max(size ?? 0, value);
    }
    if (size === null) size = typeof argument.defaultValue === 'number' ? argument.defaultValue : DEFAULT_PAGE_SIZE;
    return { size, fromVariable };
  }

  /**
   * The items a list field's list argument names (`nodes(ids)`: one object per id), from the
   * literal or the variable; null for a field without a list argument, or none given.
   */
  function itemsNamedBy(field: FieldNode, definition: GraphQLField<unknown, unknown>): { size: number; fromVariable: boolean } | null {
    const argument = definition.args.find((a) => isListType(getNullableType(a.type)));
    const given = argument && field.arguments?.find((a) => a.name.value === argument.name)?.value;
    if (!given) return null;
    if (given.kind === Kind.LIST) return { size: given.values.length, fromVariable: false };
    if (given.kind !== Kind.VARIABLE) return { size: 1, fromVariable: false };
    const value = variables?.[given.name.value];
    // A variable's one value is coerced to a list of it; absent, the refusal comes when it runs.
    return { size: Array.isArray(value) ? value.length : 1, fromVariable: true };
  }

  function fieldDefinition(parent: GraphQLNamedType | undefined, name: string): GraphQLField<unknown, unknown> | undefined {
    if (name === '__typename') return TypeNameMetaFieldDef;
    if (name === '__schema') return SchemaMetaFieldDef;
    if (name === '__type') return TypeMetaFieldDef;
    if (parent && (isObjectType(parent) || isInterfaceType(parent))) return parent.getFields()[name];
    return undefined;
  }

  function measureSelections(
    selectionSet: SelectionSetNode | undefined,
    parent: GraphQLNamedType | undefined,
    inheritedPageSize: number | null,
  ): OperationMeasure {
    if (!selectionSet) return ZERO;
    const total = { ...ZERO };
    const add = (part: OperationMeasure) => {
      total.depth = Math.max(total.depth, part.depth);
      total.aliases += part.aliases;
      total.directives += part.directives;
      total.cost += part.cost;
      total.bytes += part.bytes;
      total.costDependsOnVariables ||= part.costDependsOnVariables;
    };
    for (const selection of selectionSet.selections) {
      total.directives += selection.directives?.length ?? 0;
      if (selection.kind === Kind.FIELD) add(measureField(selection, parent, inheritedPageSize));
      else if (selection.kind === Kind.FRAGMENT_SPREAD) add(measureFragment(selection.name.value, inheritedPageSize));
      else {
        const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        add(measureSelections(selection.selectionSet, type, inheritedPageSize));
      }
    }
    return total;
  }

  function measureFragment(name: string, inheritedPageSize: number | null): OperationMeasure {
    const fragment = fragments.get(name);
    if (!fragment || expanding.has(name)) return ZERO;
    const key = `${name}\u0000${inheritedPageSize ?? ''}`;
    const known = memo.get(key);
    if (known) return known;
    expanding.add(name);
    const inner = measureSelections(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value), inheritedPageSize);
    expanding.delete(name);
    const measured = { ...inner, directives: inner.directives + (fragment.directives?.length ?? 0) };
    memo.set(key, measured);
    return measured;
  }

  function measureField(field: FieldNode, parent: GraphQLNamedType | undefined, inheritedPageSize: number | null): OperationMeasure {
    const definition = fieldDefinition(parent, field.name.value);
    const type = definition ? getNamedType(definition.type) : undefined;
    const isList = definition ? isListType(getNullableType(definition.type)) : false;
    const page = definition ? pageSizeOf(field, definition) : null;
    const named = isList && !page && definition ? itemsNamedBy(field, definition) : null;
    let factor = 1;
    let childPageSize: number | null = null;
    if (isList) factor = page?.size ?? named?.size ?? inheritedPageSize ?? UNPAGED_LIST_SIZE;
    else childPageSize = page?.size ?? null;
    const children = measureSelections(field.selectionSet, type, childPageSize);
    const own = (type && isCompositeType(type)) || (!type && field.selectionSet) ? 1 : 0;
    // `"key":` and a comma; a leaf's value, or an object's braces and members; a list's items each with a comma.
    const value = own ? children.bytes + 2 : type ? (LEAF_CHARACTERS[type.name] ?? OTHER_LEAF_CHARACTERS) : 0;
    const key = (field.alias ?? field.name).value.length + 4;
    return {
      depth: children.depth + 1,
      aliases: children.aliases + (field.alias ? 1 : 0),
      directives: children.directives,
      cost: own + factor * children.cost,
      bytes: key + (isList ? 2 + factor * (value + 1) : value),
      costDependsOnVariables: children.costDependsOnVariables || (page?.fromVariable ?? false) || (named?.fromVariable ?? false),
    };
  }

  const root = schema.getRootType(operation.operation) ?? undefined;
  const measured = measureSelections(operation.selectionSet, root, null);
  return { ...measured, directives: measured.directives + (operation.directives?.length ?? 0) };
}

/** The fragments of a document by name. */
export function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return fragments;
}

function literal(value: ValueNode | undefined): unknown {
  if (value?.kind === Kind.INT) return Number(value.value);
  return undefined;
}

/** The error of an exceeded limit; its message names the limit and the numbers only, nothing of the schema. */
export function limitError(limit: LimitName, actual: number | null, max: number): GraphQLError {
  const messages: Record<LimitName, string> = {
    depth: `Query depth ${actual} exceeds the limit of ${max}`,
    aliases: `Query has ${actual} aliases, more than the limit of ${max}`,
    directives: `Query has ${actual} directives, more than the limit of ${max}`,
    tokens: `Query has more than ${max} tokens, the limit`,
    cost: `Query cost ${actual} exceeds the limit of ${max}`,
    bytes: `Query could answer about ${actual} bytes, more than the limit of ${max}: ask for fewer items, or fewer fields of each`,
  };
  return new GraphQLError(messages[limit], {
    extensions: {
      code: 'QUERY_TOO_COMPLEX',
      limit,
      max,
      ...(actual === null ? {} : { actual }),
    },
  });
}

/** The first limit `measure` exceeds, as an error; null when it fits. */
export function checkLimits(measure: OperationMeasure, limits: OperationLimits, include: { cost: boolean }): GraphQLError | null {
  const over = (actual: number, max: number) => max > 0 && actual > max;
  if (over(measure.depth, limits.maxDepth)) return limitError('depth', measure.depth, limits.maxDepth);
  if (over(measure.aliases, limits.maxAliases)) return limitError('aliases', measure.aliases, limits.maxAliases);
  if (over(measure.directives, limits.maxDirectives)) return limitError('directives', measure.directives, limits.maxDirectives);
  return include.cost ? checkBudget(measure, limits) : null;
}

/** The first budget (cost, then size) `measure` exceeds, as an error; null when it fits. */
function checkBudget(measure: OperationMeasure, limits: OperationLimits): GraphQLError | null {
  if (limits.maxCost > 0 && measure.cost > limits.maxCost) return limitError('cost', Math.round(measure.cost), limits.maxCost);
  if (limits.maxBytes > 0 && measure.bytes > limits.maxBytes) return limitError('bytes', Math.round(measure.bytes), limits.maxBytes);
  return null;
}

function limitsRule(limits: OperationLimits, cost: { variables: Readonly<Record<string, unknown>> | null } | null): ValidationRule {
  return (context: ValidationContext) => ({
    Document(document) {
      const fragments = fragmentsOf(document);
      for (const definition of document.definitions) {
        if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
        const measure = measureOperation(context.getSchema(), definition, fragments, cost?.variables);
        const error = checkLimits(measure, limits, { cost: cost !== null });
        if (error) context.reportError(error);
      }
      return false;
    },
  });
}

/**
 * The validation rules enforcing `limits` (depth, aliases, directives and cost) on every
 * operation of a document, cost included for the given variables (the pipeline checks
 * cost separately, per request: {@link createCostCheck}).
 */
export function operationLimitRules(limits: OperationLimits, variables?: Readonly<Record<string, unknown>> | null): ValidationRule[] {
  return [limitsRule(limits, { variables: variables ?? null })];
}

/**
 * The rules that do not depend on variables (all but cost), for the pipeline, which
 * validates a document once and caches it; cost is checked per request by {@link createCostCheck}.
 */
export function structuralLimitRules(limits: OperationLimits): ValidationRule[] {
  return [limitsRule(limits, null)];
}

/** graphql `parse` options enforcing the token limit. */
export function limitParseOptions(limits: OperationLimits): ParseOptions {
  return limits.maxTokens > 0 ? { maxTokens: limits.maxTokens } : {};
}

// Anchored: a syntax error quotes the unexpected token, so a document holding this text in
// a string must not pass for the limit. (graphql 16 spells it "more that".)
const TOKEN_LIMIT_MESSAGE = /^(?:Syntax Error: )?Document contains more th(?:an|at) (\d+) tokens\. Parsing aborted\.$/;

/** True when a parse error's message is the token limit's (graphql reports it as a syntax error). */
export function isTokenLimitError(message: string): boolean {
  return TOKEN_LIMIT_MESSAGE.test(message);
}

/**
 * A check of the cost and size of the operation about to run, with its variables, before
 * execution: returns its measure (null when nothing is measured: every budget off), throws
 * QUERY_TOO_COMPLEX (HTTP 400) when over budget. A measure that does not depend on variables
 * is remembered per document, since the pipeline hands the same parsed document to every
 * request of the same query.
 */
export function createCostCheck(limits: OperationLimits) {
  const known = new WeakMap<DocumentNode, Map<string, OperationMeasure>>();
  const measuring = limits.maxCost > 0 || limits.maxBytes > 0 || limits.largeAnswerBytes > 0;
  return (
    schema: GraphQLSchema,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Readonly<Record<string, unknown>> | undefined,
  ): OperationMeasure | null => {
    if (!measuring) return null;
    const key = operation.name?.value ?? '';
    let measure = known.get(document)?.get(key);
    if (measure === undefined) {
      measure = measureOperation(schema, operation, fragmentsOf(document), variables);
      if (!measure.costDependsOnVariables) {
        let byOperation = known.get(document);
        if (!byOperation) known.set(document, (byOperation = new Map()));
        byOperation.set(key, measure);
      }
    }
    const error = checkBudget(measure, limits);
    if (!error) return measure;
    const { code: _code, ...details } = error.extensions;
    throw new AppError('QUERY_TOO_COMPLEX', error.message, details);
  };
}
