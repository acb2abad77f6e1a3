import {
  getOperationAST,
  GraphQLError,
  type GraphQLSchema,
  parse,
  specifiedRules,
  validate,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { limitParseOptions, type OperationLimits, structuralLimitRules } from '../limits.js';
import { type PreparedOperation, preparedOperationOf } from '../pipeline/rendered.js';

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

/** Errors that refuse a subscription as a whole (its document does not validate). */
export class RequestErrors extends Error {
  constructor(readonly errors: readonly GraphQLError[]) {
    super(errors[0]?.message ?? 'request refused');
  }
}

/**
 * The documents graphql-ws receives. Apollo Server answers queries and mutations over a
 * socket as over HTTP (parse and validation cache, limits, poolgraph's plugin), but does not
 * run subscriptions: a subscription's document is parsed and validated here with Apollo's
 * rules (graphql-js's, the structural limits, introspection refused unless on, no
 * suggestions). Subscriptions open on the same text share its one parsed form, so each holds
 * no document of its own and subscribers of one document share each event's execution.
 */
export class SocketDocuments {
  private readonly rules: ValidationRule[];
  /** The open subscriptions' operations, by operation name and text, while any holds one. */
  private readonly open = new Map<string, WeakRef<PreparedOperation>>();
  private readonly forgotten = new FinalizationRegistry<string>((key) => {
    if (this.open.get(key)?.deref() === undefined) this.open.delete(key);
  });

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly limits: OperationLimits,
    private readonly introspection: boolean,
  ) {
    this.rules = [...specifiedRules, ...structuralLimitRules(limits), ...(introspection ? [] : [introspectionRule])];
  }

  /**
   * The operation `operationName` names in `text` (or its only one), validated when it is a
   * subscription (else throws RequestErrors); null when the text does not parse or name one
   * operation. A query or mutation is Apollo Server's to validate and run.
   */
  operationOf(text: string, operationName: string | undefined): PreparedOperation | null {
    const key = `${operationName ?? ''}\u0000${text}`;
    const open = this.open.get(key)?.deref();
    if (open) return open;
    let document;
    try {
      document = parse(text, limitParseOptions(this.limits));
    } catch {
      return null;
    }
    const operation = getOperationAST(document, operationName);
    if (!operation) return null;
    const prepared = preparedOperationOf(this.schema, document, operation);
    if (operation.operation !== 'subscription') return prepared;
    const errors = validate(this.schema, document, this.rules, { hideSuggestions: !this.introspection });
    if (errors.length) throw new RequestErrors(errors.map(validationError));
    this.open.set(key, new WeakRef(prepared));
    this.forgotten.register(prepared, key);
    return prepared;
  }
}

/** A validation error as Apollo Server wraps one (the formatter then names a wrong argument literal); a limit's keeps its code. */
function validationError(error: GraphQLError): GraphQLError {
  if (typeof error.extensions.code === 'string') return error;
  return new GraphQLError(error.message, { nodes: error.nodes, originalError: error, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
}
