import {
  type DocumentNode,
  execute,
  type ExecutionResult,
  GraphQLError,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  parse,
  specifiedRules,
  validate,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { limitParseOptions, type OperationLimits, structuralLimitRules } from '../limits.js';
import { LruCache } from './lru.js';

/** One operation of a prepared document, ready to run. */
export interface PreparedOperation {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  name: string | null;
  type: OperationDefinitionNode['operation'];
  /** Runs the operation with graphql-js. */
  run(root: unknown, context: unknown, variables: Record<string, unknown> | undefined): Promise<ExecutionResult> | ExecutionResult;
}

/** A document parsed and validated once: its operations, or the errors that refuse it. */
export type PreparedDocument =
  | { errors: readonly GraphQLError[]; document?: undefined }
  | { errors?: undefined; document: DocumentNode; operations: Map<string, PreparedOperation>; only: PreparedOperation | null };

export interface DocumentCacheOptions {
  limits: OperationLimits;
  introspection: boolean;
  /** Documents kept (least recently used dropped first); default 1,000. */
  maxDocuments?: number;
}

/** Apollo's wording, which clients and our tests know. */
const introspectionRule: ValidationRule = (context: ValidationContext) => ({
  Field(node) {
    if (node.name.value === '__schema' || node.name.value === '__type') {
      context.reportError(
        new GraphQLError(
          'GraphQL introspection is not allowed on this server, but the query contained __schema or __type (INTROSPECTION=true allows it)',
          { nodes: [node] },
        ),
      );
    }
  },
});

/**
 * Parses, validates and limit-checks each document text once (then by cache), and runs its
 * operations. Errors come out coded: GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED,
 * QUERY_TOO_COMPLEX, or BAD_USER_INPUT naming the argument whose literal is wrong.
 */
export class DocumentCache {
  private readonly documents: LruCache<string, PreparedDocument>;
  private readonly rules: ValidationRule[];

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly options: DocumentCacheOptions,
  ) {
    this.documents = new LruCache(options.maxDocuments ?? 1000);
    this.rules = [...specifiedRules, ...structuralLimitRules(options.limits), ...(options.introspection ? [] : [introspectionRule])];
  }

  prepare(text: string): PreparedDocument {
    let prepared = this.documents.get(text);
    if (!prepared) this.documents.set(text, (prepared = this.prepareUncached(text)));
    return prepared;
  }

  /** The operation `operationName` names (or the only one); a GraphQL error coded OPERATION_RESOLUTION_FAILURE when none fits. */
  operationOf(
    prepared: Extract<PreparedDocument, { document: DocumentNode }>,
    operationName: string | null | undefined,
  ): PreparedOperation | GraphQLError {
    const found = operationName ? prepared.operations.get(operationName) : prepared.only;
    if (found) return found;
    const message = operationName
      ? `Unknown operation named "${operationName}".`
      : 'Must provide operation name if query contains multiple operations.';
    return new GraphQLError(message, { extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } });
  }

  private prepareUncached(text: string): PreparedDocument {
    let document: DocumentNode;
    try {
      document = parse(text, limitParseOptions(this.options.limits));
    } catch (error) {
      return { errors: [parseError(error)] };
    }
    const hideSuggestions = !this.options.introspection;
    const errors = validate(this.schema, document, this.rules, { hideSuggestions });
    if (errors.length) return { errors: errors.map(validationError) };
    const operations = new Map<string, PreparedOperation>();
    const all: PreparedOperation[] = [];
    for (const definition of document.definitions) {
      if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
      const operation = this.prepareOperation(document, definition);
      all.push(operation);
      if (operation.name) operations.set(operation.name, operation);
    }
    return { document, operations, only: all.length === 1 ? all[0]! : null };
  }

  private prepareOperation(document: DocumentNode, operation: OperationDefinitionNode): PreparedOperation {
    return preparedOperationOf(this.schema, document, operation);
  }
}

const preparedOperations = new WeakMap<OperationDefinitionNode, PreparedOperation>();

/**
 * The prepared form of `operation` of `document`, one per operation node: documents are
 * parsed once and kept (by Apollo Server's document store over HTTP, by DocumentCache over
 * graphql-ws), so what is planned for it (rendered reads' plans) is kept with it.
 */
export function preparedOperationOf(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): PreparedOperation {
  let prepared = preparedOperations.get(operation);
  if (prepared) return prepared;
  const name = operation.name?.value ?? null;
  prepared = {
    document,
    operation,
    name,
    type: operation.operation,
    run: (root, context, variables) =>
      execute({ schema, document, operationName: name, rootValue: root, contextValue: context, variableValues: variables }),
  };
  preparedOperations.set(operation, prepared);
  return prepared;
}

/** A parse error as Apollo Server wraps one (the formatter then names the token limit). */
function parseError(error: unknown): GraphQLError {
  const raw = error instanceof GraphQLError ? error : new GraphQLError(String(error));
  return new GraphQLError(raw.message, {
    source: raw.source,
    positions: raw.positions,
    originalError: raw,
    extensions: { code: 'GRAPHQL_PARSE_FAILED' },
  });
}

/** A validation error as Apollo Server wraps one (the formatter then names a wrong argument literal); a limit's keeps its code. */
function validationError(error: GraphQLError): GraphQLError {
  if (typeof error.extensions.code === 'string') return error;
  return new GraphQLError(error.message, { nodes: error.nodes, originalError: error, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
}
