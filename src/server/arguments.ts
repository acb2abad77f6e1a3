import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  getArgumentValues,
  getDirectiveValues,
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
} from 'graphql';
import { PAGE_ARGUMENTS, type PageArgumentsReader } from '../modules/common/page-arguments.js';

/** Errors of operations without variables, whose arguments cannot change between runs. */
const known = new WeakMap<OperationDefinitionNode, readonly GraphQLError[]>();

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
 */
export function pageArgumentErrors(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Readonly<Record<string, unknown>> | null | undefined,
  operationName?: string | null,
): readonly GraphQLError[] {
  const operations = document.definitions.filter((node) => node.kind === Kind.OPERATION_DEFINITION);
  const named = operationName ? operations.find((node) => node.name?.value === operationName) : null;
  const operation = (operationName ? named : operations.length === 1 ? operations[0] : null) as OperationDefinitionNode | null | undefined;
  if (!operation) return [];
  const constant = !operation.variableDefinitions?.length;
  const cached = constant ? known.get(operation) : undefined;
  if (cached) return cached;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {}, { maxErrors: 1 });
  if (coerced.errors) return [];
  const root = schema.getRootType(operation.operation);
  const errors = root ? new ArgumentWalk(schema, document, coerced.coerced).errorsOf(operation.selectionSet, root) : [];
  if (constant) known.set(operation, errors);
  return errors;
}

class ArgumentWalk {
  private readonly fragments = new Map<string, FragmentDefinitionNode>();
  /** Fragments walked: a fragment's arguments are the same wherever it is spread. */
  private readonly walked = new Set<string>();
  private readonly errors: GraphQLError[] = [];

  constructor(
    private readonly schema: GraphQLSchema,
    document: DocumentNode,
    private readonly variables: Record<string, unknown>,
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
    if (getDirectiveValues(GraphQLSkipDirective, selection, this.variables)?.if === true) return false;
    return getDirectiveValues(GraphQLIncludeDirective, selection, this.variables)?.if !== false;
  }
}
