import {
  type ASTNode,
  type FieldNode,
  type FragmentDefinitionNode,
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getNullableType,
  GraphQLError,
  type GraphQLField,
  GraphQLIncludeDirective,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  GraphQLSkipDirective,
  isAbstractType,
  isCompositeType,
  isListType,
  isObjectType,
  Kind,
  type DocumentNode,
  type OperationDefinitionNode,
  SchemaMetaFieldDef,
  type SelectionSetNode,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  typeFromAST,
} from 'graphql';
import { DEFAULT_PAGE_SIZE } from '../modules/common/pagination.js';
import { PAGE_ARGUMENTS, type PageArgumentsReader } from '../modules/common/page-arguments.js';
import { argumentReader, hasVariables } from './arguments.js';
import type { AnswerForm } from './answer-form.js';

/**
 * THE walk of an operation: its fields by response key on every object type a selection may meet, collected as graphql-js's
 * executor collects them. Everything that reads a selection reads it here, so each sees the same fields: the cost and size (the
 * shape as written is validated before, in server/limits.ts), the page-argument checks, the root fields the rate limit counts, and
 * the rendered read's plan and the fields it tells Apollo's listeners.
 *
 * A walk is kept per operation for the values of the variables it read (a directive's condition, a page's size) and of what it
 * derived from them (read/operation-walks.ts): requests share it whatever their other variables, read at each request instead.
 */

/** Items assumed in a list that has no `first` (private lists, introspection lists). */
export const UNPAGED_LIST_SIZE = 10;

/** A leaf's JSON characters by type: typical values (an id, a title, an amount), not the longest, as cost counts a list by its page. */
const LEAF_CHARACTERS: Readonly<Record<string, number>> = { ID: 40, String: 40, Int: 6, Float: 12, Boolean: 5 };
/** Enums and custom scalars (dates, amounts, addresses). */
const OTHER_LEAF_CHARACTERS = 24;

/** What an operation will cost, as it will run with its variables. */
export interface OperationMeasure {
  /**
   * Objects the operation can return: 1 per field of object type (leaves come with their object), times the items of every list
   * it is inside. A list counts its connection's (or its own) `first`/`last` (literal, variable or default); one whose items a list
   * argument names (`nodes(ids)`, `_entities(representations)`) one per item given; any other {@link UNPAGED_LIST_SIZE}. A field of
   * an abstract type costs what its costliest possible type's selection costs.
   */
  cost: number;
  /**
   * The answer's estimated size in characters: each field its key and a typical value (LEAF_CHARACTERS), each object its braces,
   * lists counted like cost. What a request costs beyond the database (its JSON written, sent, collected) follows this, not cost.
   */
  bytes: number;
}

const ZERO: OperationMeasure = { cost: 0, bytes: 0 };

export interface SelectionWalk {
  schema: GraphQLSchema;
  fragments: Record<string, FragmentDefinitionNode>;
  /**
   * The coerced variables. Reading one while a kept walk is made keys the walk on its value (OperationWalks), so what a plan needs
   * only as a value it reads at each request instead (argumentReader).
   */
  variables: Record<string, unknown>;
  /** The fields of the merged selection of one response key's field nodes on `type`, by response key. */
  fieldsOf(type: GraphQLObjectType, nodes: readonly FieldNode[]): Map<string, FieldNode[]>;
  /**
   * What `derive` makes of the variables, where a plan depends on that rather than on them (a `node` id's remembered type, not the
   * id): a kept walk is reused for all variables `derive` gives the same for. `source` is the node it is read for.
   */
  dependOn<T>(source: ASTNode, derive: (variables: Record<string, unknown>) => T): T;
  refusal?: RenderRefusal;
  refusedAt?: string;
  /** The form a rendered read writes its answer in (GraphQL's where absent): see read/answer-form.ts. */
  form?: AnswerForm;
}

/** Why a rendered read's planner left a selection to the executor: a label of poolgraph_graphql_render_fallbacks_total, so a fixed set. */
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
  /** A nested page's arguments that do not parse, or ask for a list no SQL writes (a filter or order its relation does not list). */
  | 'page_arguments'
  /** A computed object (its keys written by its own SQL, in GraphQL's form) in a read answered in the REST form. */
  | 'answer_form';

/** Notes why `walk`'s selection does not render, and at which field (`Type.field`); the first reason wins. Null, as a planner declines. */
export function refuse(walk: SelectionWalk, reason: RenderRefusal, field?: string): null {
  if (walk.refusal === undefined) {
    walk.refusal = reason;
    walk.refusedAt = field;
  }
  return null;
}

/** Root fields the rate limit does not count: `__typename`, and `rateLimit`, so a client may ask its budget without spending it. */
const FREE_ROOT_FIELDS = new Set(['__typename', 'rateLimit']);

/** A connection field's page arguments, checked before execution by its resolver's reader. */
interface ArgumentCheck {
  node: FieldNode;
  read: PageArgumentsReader;
  error: (variables: Record<string, unknown>) => GraphQLError | null;
}

/** The fields collected of one selection on one type, and what was measured of them, by the list size they inherit. */
interface Collected {
  fields: Map<string, FieldNode[]>;
  measured?: Map<number | null, OperationMeasure>;
}

/** One operation walked for one set of variables (see the file's comment): kept for the values of what it read, or for one request. */
export class OperationWalk implements SelectionWalk {
  readonly fragments: Record<string, FragmentDefinitionNode> = {};
  refusal?: RenderRefusal;
  refusedAt?: string;
  readonly root: Map<string, FieldNode[]>;
  readonly measure: OperationMeasure;
  /** Each response key once, FREE_ROOT_FIELDS not counted. */
  readonly rootFieldCount: number;
  /** The rendered read's plan, kept with the walk: it was made from the same variables, and reads no other. */
  plan: unknown = undefined;
  private readonly checks: ArgumentCheck[] = [];
  /** Collected selections by their first field node, then by type name: a resolver's info finds the walk's own. */
  private readonly collected = new Map<FieldNode, Array<{ nodes: readonly FieldNode[]; byType: Map<string, Collected> }>>();
  /** Set while the walk is being made: selections met later (a request's resolver) are collected for that request alone. */
  private open = true;

  constructor(
    readonly schema: GraphQLSchema,
    document: DocumentNode,
    readonly operation: OperationDefinitionNode,
    /** Through a recording view while the walk is kept for their values. */
    readonly variables: Record<string, unknown>,
    private readonly derive: <T>(source: ASTNode, derive: (variables: Record<string, unknown>) => T) => T = (_source, d) => d(variables),
    /** The REST form for a REST route's operation. */
    readonly form: AnswerForm = 'graphql',
  ) {
    for (const definition of document.definitions)
      if (definition.kind === Kind.FRAGMENT_DEFINITION) this.fragments[definition.name.value] = definition;
    const rootType = schema.getRootType(operation.operation);
    const root = rootType ? collectFields(schema, this.fragments, variables, rootType, [operation.selectionSet]) : { fields: new Map() };
    this.root = root.fields;
    let count = 0;
    for (const nodes of root.fields.values()) if (!FREE_ROOT_FIELDS.has(nodes[0]!.name.value)) count++;
    this.rootFieldCount = count;
    this.measure = rootType ? this.measureCollected(rootType, root, null) : ZERO;
  }

  close(): void {
    this.open = false;
  }

  dependOn<T>(source: ASTNode, derive: (variables: Record<string, unknown>) => T): T {
    return this.derive(source, derive);
  }

  fieldsOf(type: GraphQLObjectType, nodes: readonly FieldNode[]): Map<string, FieldNode[]> {
    return this.collectedOf(type, nodes).fields;
  }

  /**
   * The first page-argument error, for one request, of the connection fields the operation runs, each read as its resolver reads it
   * (modules/common/page-arguments.ts). Checked before execution, since a resolver that throws while earlier list items are pending
   * makes graphql-js abandon their promises. Null also for arguments the executor refuses itself.
   */
  argumentError(variables: Record<string, unknown>): GraphQLError | null {
    for (const check of this.checks) {
      const error = check.error(variables);
      if (error) return error;
    }
    return null;
  }

  /** The walk's own where it collected them (the same variables shape them), else collected now, kept only while the walk is made. */
  private collectedOf(type: GraphQLObjectType, nodes: readonly FieldNode[]): Collected {
    const first = nodes[0];
    if (!first) return { fields: new Map() };
    let entries = this.collected.get(first);
    let entry = entries?.find((e) => e.nodes.length === nodes.length && e.nodes.every((node, i) => node === nodes[i]));
    const known = entry?.byType.get(type.name);
    if (known) return known;
    const collected = collectFields(this.schema, this.fragments, this.variables, type, subSelections(nodes));
    if (!this.open) return collected;
    if (!entry) {
      if (!entries) this.collected.set(first, (entries = []));
      entries.push((entry = { nodes, byType: new Map() }));
    }
    entry.byType.set(type.name, collected);
    return collected;
  }

  /** The measure of a collected selection on `type`, its lists inheriting `inherited` items; each field's checks noted once. */
  private measureCollected(type: GraphQLObjectType, collected: Collected, inherited: number | null): OperationMeasure {
    const known = collected.measured?.get(inherited);
    if (known) return known;
    const total = { ...ZERO };
    for (const [key, nodes] of collected.fields) {
      const part = this.measureField(type, key, nodes, inherited);
      total.cost += part.cost;
      total.bytes += part.bytes;
    }
    (collected.measured ??= new Map()).set(inherited, total);
    return total;
  }

  private measureField(parent: GraphQLObjectType, key: string, nodes: FieldNode[], inherited: number | null): OperationMeasure {
    const node = nodes[0]!;
    const definition = fieldDefinition(parent, node.name.value);
    if (!definition) return ZERO; // validation refused it
    this.noteCheck(definition, node);
    const type = getNamedType(definition.type);
    const isList = isListType(getNullableType(definition.type));
    const page = this.pageSizeOf(node, definition);
    const factor = isList ? (page ?? this.itemsNamedBy(node, definition) ?? inherited ?? UNPAGED_LIST_SIZE) : 1;
    let children = ZERO;
    if (isCompositeType(type)) {
      for (const possible of isObjectType(type) ? [type] : this.schema.getPossibleTypes(type)) {
        const measured = this.measureCollected(possible, this.collectedOf(possible, nodes), isList ? null : page);
        children = { cost: Math.max(children.cost, measured.cost), bytes: Math.max(children.bytes, measured.bytes) };
      }
    }
    const own = isCompositeType(type) ? 1 : 0;
    // `"key":` and a comma; a leaf's value, or an object's braces and members; a list's items each with a comma.
    const value = own ? children.bytes + 2 : (LEAF_CHARACTERS[type.name] ?? OTHER_LEAF_CHARACTERS);
    return {
      cost: own + factor * children.cost,
      bytes: key.length + 4 + (isList ? 2 + factor * (value + 1) : value),
    };
  }

  /** Notes a connection field's page-argument check, once per field node and reader. */
  private noteCheck(definition: GraphQLField<unknown, unknown>, node: FieldNode): void {
    const read = definition.extensions[PAGE_ARGUMENTS] as PageArgumentsReader | undefined;
    if (!read || this.checks.some((check) => check.node === node && check.read === read)) return;
    let error: ArgumentCheck['error'];
    if ((node.arguments ?? []).some((argument) => hasVariables(argument.value))) {
      const args = argumentReader(definition, node);
      error = (variables) => checkArguments(node, read, () => args(variables));
    } else {
      const constant = checkArguments(node, read, () => getArgumentValues(definition, node, {}));
      error = () => constant;
    }
    this.checks.push({ node, read, error });
  }

  /**
   * The larger of `first` and `last` given (a literal Int, or its variable's coerced value), else `first`'s default, else
   * DEFAULT_PAGE_SIZE; null for a field without `first`. (A query giving both is refused when it runs.)
   */
  private pageSizeOf(node: FieldNode, definition: GraphQLField<unknown, unknown>): number | null {
    const argument = definition.args.find((a) => a.name === 'first');
    if (!argument) return null;
    let size: number | null = null;
    for (const name of ['first', 'last']) {
      if (!definition.args.some((a) => a.name === name)) continue;
      const given = node.arguments?.find((a) => a.name.value === name)?.value;
      const value =
        given?.kind === Kind.VARIABLE ? this.variables[given.name.value] : given?.kind === Kind.INT ? Number(given.value) : undefined;
      if (typeof value === 'number' && Number.isInteger(value) && value >= 0) size = Math.max(size ?? 0, value);
    }
    return size ?? (typeof argument.defaultValue === 'number' ? argument.defaultValue : DEFAULT_PAGE_SIZE);
  }

  /** The items a list field's list argument names (`nodes(ids)`: one object per id); null for a field without one given. */
  private itemsNamedBy(node: FieldNode, definition: GraphQLField<unknown, unknown>): number | null {
    const argument = definition.args.find((a) => isListType(getNullableType(a.type)));
    const given = argument && node.arguments?.find((a) => a.name.value === argument.name)?.value;
    if (!given) return null;
    if (given.kind === Kind.LIST) return given.values.length;
    if (given.kind !== Kind.VARIABLE) return 1;
    // The walk depends on the list's length alone, not its items: a variable's one value is coerced to a list of it.
    const name = given.name.value;
    return this.dependOn(given, (variables) => {
      const value = variables[name];
      return Array.isArray(value) ? value.length : 1;
    });
  }
}

/** The reader's error for the arguments `args` gives (null when they are fine, or do not coerce: the executor says so). */
function checkArguments(node: FieldNode, read: PageArgumentsReader, args: () => Record<string, unknown>): GraphQLError | null {
  let values: Record<string, unknown>;
  try {
    values = args();
  } catch {
    return null; // an argument the executor refuses itself, before any resolver runs
  }
  try {
    read(values);
    return null;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return new GraphQLError(message, { nodes: [node], originalError: error instanceof Error ? error : undefined });
  }
}

function fieldDefinition(parent: GraphQLObjectType, name: string): GraphQLField<unknown, unknown> | undefined {
  if (name === '__typename') return TypeNameMetaFieldDef;
  if (name === '__schema') return SchemaMetaFieldDef;
  if (name === '__type') return TypeMetaFieldDef;
  return parent.getFields()[name];
}

/** graphql-js's CollectFields: the fields of `sets` on `type` by response key, in order, each fragment expanded once. */
function collectFields(
  schema: GraphQLSchema,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  type: GraphQLObjectType,
  sets: readonly SelectionSetNode[],
): Collected {
  const fields = new Map<string, FieldNode[]>();
  const visited = new Set<string>();
  const collect = (selections: SelectionSetNode) => {
    for (const selection of selections.selections) {
      if (!included(selection, variables)) continue;
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        const list = fields.get(key);
        if (list) list.push(selection);
        else fields.set(key, [selection]);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (!selection.typeCondition || applies(schema, selection.typeCondition, type)) collect(selection.selectionSet);
      } else {
        const name = selection.name.value;
        const fragment = fragments[name];
        if (visited.has(name) || !fragment || !applies(schema, fragment.typeCondition, type)) continue;
        visited.add(name);
        collect(fragment.selectionSet);
      }
    }
  };
  for (const set of sets) collect(set);
  return { fields };
}

/**
 * Whether a resolver's field selects a field `name` of its type, as the walk collects them: for a resolver the executor runs, whose
 * service reads a part only when asked.
 */
export function resolverSelects(info: GraphQLResolveInfo, name: string): boolean {
  const type = getNamedType(info.returnType);
  if (!isObjectType(type)) return false;
  const { fields } = collectFields(info.schema, info.fragments, info.variableValues, type, subSelections(info.fieldNodes));
  return [...fields.values()].some((nodes) => nodes[0]!.name.value === name);
}

export const subSelections = (nodes: readonly FieldNode[]) => nodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));

/** Whether a fragment's type condition applies to `type` (by name: a walk serves the schema Apollo instruments too). */
function applies(schema: GraphQLSchema, condition: Parameters<typeof typeFromAST>[1], type: GraphQLObjectType): boolean {
  const conditional = typeFromAST(schema, condition) as GraphQLNamedType | undefined;
  if (!conditional) return false;
  if (conditional.name === type.name) return true;
  const own = schema.getType(type.name);
  return isAbstractType(conditional) && isObjectType(own) && schema.isSubType(conditional, own);
}

function included(node: Parameters<typeof getDirectiveValues>[1], variables: Record<string, unknown>): boolean {
  if (!node.directives?.length) return true;
  if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;
}
