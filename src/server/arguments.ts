import {
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  getArgumentValues,
  getDirectiveValues,
  getOperationAST,
  getNamedType,
  getVariableValues,
  GraphQLError,
  GraphQLIncludeDirective,
  type GraphQLNamedType,
  type GraphQLSchema,
  GraphQLSkipDirective,
  isAbstractType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type VariableDefinitionNode,
  visit,
} from 'graphql';
import { PAGE_ARGUMENTS, type PageArgumentsReader } from '../modules/common/page-arguments.js';

/**
 * What the check of one operation needs of its variables, found once per operation (Apollo
 * Server keeps one parsed document per text, so this lives as long as it does): the
 * definitions of the variables the check reads (page arguments of connection fields, and
 * @skip/@include, which decide the fields walked), and when it reads none, its errors,
 * the same at every run.
 */
interface ArgumentNeeds {
  read: readonly VariableDefinitionNode[];
  constant: readonly GraphQLError[] | null;
}

const needsByOperation = new WeakMap<OperationDefinitionNode, ArgumentNeeds>();

/**
 * The errors of every connection field's page arguments (size, cursors, offset, order) in
 * the operation `operationName` names (or the only one), each read by the function its
 * resolver reads them with (modules/common/page-arguments.ts), nested fields and fragments
 * included, fields skipped by @skip/@include left out. Checked before execution starts: a
 * resolver that throws while earlier items of a list are still pending makes graphql-js
 * abandon their promises, so a bad nested argument must never reach a resolver.
 *
 * A standalone check over (schema, validated document, raw variables), so any executor can
 * run it first. Empty when the arguments are fine, and when the operation cannot be chosen
 * or its variables cannot be coerced: execution reports those itself, before any resolver.
 *
 * Per request only the variables the check reads are coerced (none for most operations,
 * whose page arguments are written in the document), and all of them only when there are
 * errors to report, to leave the request to execution if any is not valid.
 */
export function pageArgumentErrors(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Readonly<Record<string, unknown>> | null | undefined,
  operationName?: string | null,
): readonly GraphQLError[] {
  // The operation to run, as graphql-js chooses it: the one named, else the only one.
  const operation = getOperationAST(document, operationName);
  if (!operation) return NONE;
  let needs = needsByOperation.get(operation);
  if (!needs) needsByOperation.set(operation, (needs = needsOf(schema, document, operation)));
  let errors = needs.constant;
  if (!errors) {
    const coerced = getVariableValues(schema, needs.read, variables ?? {}, { maxErrors: 1 });
    if (coerced.errors) return NONE;
    errors = walkOperation(schema, document, operation, coerced.coerced);
  }
  if (!errors.length) return NONE;
  const definitions = operation.variableDefinitions ?? [];
  if (needs.read.length < definitions.length && getVariableValues(schema, definitions, variables ?? {}, { maxErrors: 1 }).errors)
    return NONE;
  return errors;
}

const NONE: readonly GraphQLError[] = Object.freeze([]);

function needsOf(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): ArgumentNeeds {
  const names = new Set<string>();
  walkOperation(schema, document, operation, null, names);
  const read = (operation.variableDefinitions ?? []).filter((definition) => names.has(definition.variable.name.value));
  return { read, constant: names.size ? null : walkOperation(schema, document, operation, {}) };
}

/**
 * The walk of `operation`: with `variables`, its errors; with null, every selection walked
 * whatever its directives, and the names of the variables the check would read added to `read`.
 */
function walkOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | null,
  read?: Set<string>,
): GraphQLError[] {
  const root = schema.getRootType(operation.operation);
  return root ? new ArgumentWalk(schema, document, variables, read).errorsOf(operation.selectionSet, root) : [];
}

class ArgumentWalk {
  private readonly fragments = new Map<string, FragmentDefinitionNode>();
  /** Fragments walked: a fragment's arguments are the same wherever it is spread. */
  private readonly walked = new Set<string>();
  private readonly errors: GraphQLError[] = [];

  /**
   * With `variables` null, the walk of the analysis ({@link needsOf}): nothing is read,
   * every selection is walked, and the variables that would be read are added to `read`.
   */
  constructor(
    private readonly schema: GraphQLSchema,
    document: DocumentNode,
    private readonly variables: Record<string, unknown> | null,
    private readonly read?: Set<string>,
  ) {
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) this.fragments.set(definition.name.value, definition);
    }
  }

  errorsOf(selections: SelectionSetNode, type: GraphQLNamedType): GraphQLError[] {
    this.walk(selections, type);
    return this.errors;
  }

  private walk(selections: SelectionSetNode, type: GraphQLNamedType): void {
    for (const selection of selections.selections) {
      if (!this.included(selection)) continue;
      if (selection.kind === Kind.FIELD) this.field(selection, type);
      else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition ? this.schema.getType(selection.typeCondition.name.value) : type;
        if (condition) this.walk(selection.selectionSet, condition);
      } else if (!this.walked.has(selection.name.value)) {
        this.walked.add(selection.name.value);
        const fragment = this.fragments.get(selection.name.value);
        const condition = fragment && this.schema.getType(fragment.typeCondition.name.value);
        if (fragment && condition) this.walk(fragment.selectionSet, condition);
      }
    }
  }

  private field(node: FieldNode, parent: GraphQLNamedType): void {
    // An abstract parent's field is the field of each type that may stand in its place.
    const owners = isAbstractType(parent) ? this.schema.getPossibleTypes(parent) : isObjectType(parent) ? [parent] : [];
    let next: GraphQLNamedType | null = null;
    const readers = new Set<PageArgumentsReader>();
    for (const owner of owners) {
      const definition = owner.getFields()[node.name.value];
      if (!definition) continue;
      next ??= getNamedType(definition.type);
      const read = definition.extensions[PAGE_ARGUMENTS] as PageArgumentsReader | undefined;
      if (!read || readers.has(read)) continue;
      readers.add(read);
      if (!this.variables) {
        this.readsVariablesOf(node.arguments);
        continue;
      }
      let args: Record<string, unknown>;
      try {
        args = getArgumentValues(definition, node, this.variables);
      } catch {
        continue; // an argument the executor refuses itself, before any resolver runs
      }
      try {
        read(args);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        this.errors.push(new GraphQLError(message, { nodes: [node], originalError: error instanceof Error ? error : undefined }));
      }
    }
    if (next && node.selectionSet) this.walk(node.selectionSet, next);
  }

  private included(selection: SelectionSetNode['selections'][number]): boolean {
    if (!selection.directives?.length) return true;
    if (!this.variables) {
      for (const directive of selection.directives) {
        const name = directive.name.value;
        if (name === GraphQLSkipDirective.name || name === GraphQLIncludeDirective.name) this.readsVariablesOf(directive.arguments);
      }
      return true;
    }
    if (getDirectiveValues(GraphQLSkipDirective, selection, this.variables)?.if === true) return false;
    return getDirectiveValues(GraphQLIncludeDirective, selection, this.variables)?.if !== false;
  }

  private readsVariablesOf(nodes: readonly ArgumentNode[] | undefined): void {
    for (const node of nodes ?? []) visit(node, { Variable: (variable) => void this.read!.add(variable.name.value) });
  }
}
