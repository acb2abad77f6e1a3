import type { GraphQLError, GraphQLSchema } from 'graphql';
import { AppError } from '../../errors.js';
import type { GraphQLContext } from '../context.js';
import type { OperationLimits } from '../limits.js';
import type { OperationRecord } from '../logging.js';
import type { TrustedDocuments } from '../trusted-documents.js';
import type { OperationToCheck } from './checks.js';
import { DocumentCache, type PreparedOperation } from './documents.js';
import { type FormattedError, formatError } from './format-error.js';
import { type DocumentSource, PersistedDocuments } from './persisted.js';

/** One GraphQL operation as a transport received it. */
export interface OperationInput extends DocumentSource {
  variables?: unknown;
  operationName?: unknown;
}

export interface PipelineOptions {
  schema: GraphQLSchema;
  limits: OperationLimits;
  introspection: boolean;
  exposeInternals: boolean;
  trustedDocuments: TrustedDocuments | null;
  /** The checks before execution (see createOperationChecks). */
  checkOperation: (operation: OperationToCheck) => Promise<void>;
}

/**
 * The operation steps of graphql-ws, which runs beside Apollo Server: document (trusted or
 * persisted) -> parse and validate (cached per document text) -> limits -> the checks
 * before execution (cost, rate: the same as HTTP's) -> execution -> format,
 * every error coded by the one formatter, as over HTTP.
 */
export class OperationPipeline {
  readonly documents: DocumentCache;
  private readonly persisted: PersistedDocuments;

  constructor(private readonly options: PipelineOptions) {
    this.documents = new DocumentCache(options.schema, { limits: options.limits, introspection: options.introspection });
    this.persisted = new PersistedDocuments(options.trustedDocuments);
  }

  /** The document text `input` names (its query, or a persisted or trusted one by hash); throws the refusal. */
  documentText(input: OperationInput): string {
    return this.persisted.resolve(input);
  }

  /** Prepares and admits one operation for `context` (limits, then the checks): returns it ready to run, or throws the errors that refuse it. */
  async admit(
    text: string,
    input: OperationInput,
    context: GraphQLContext,
    record: OperationRecord,
  ): Promise<{ operation: PreparedOperation; variables: Record<string, unknown> | undefined }> {
    if (input.operationName !== undefined && input.operationName !== null && typeof input.operationName !== 'string') {
      throw new AppError('BAD_REQUEST', 'The `operationName` must be a string');
    }
    const variables = variablesOf(input.variables);
    const prepared = this.documents.prepare(text);
    if (prepared.errors) throw new RequestErrors(prepared.errors);
    const operation = this.documents.operationOf(prepared, input.operationName as string | undefined);
    if (!('run' in operation)) throw new RequestErrors([operation]);
    record.name = operation.name;
    record.type = operation.type;
    await this.options.checkOperation({
      document: operation.document,
      operation: operation.operation,
      variables,
      context,
      overHttp: false,
    });
    return { operation, variables };
  }

  /** Formats `errors` (recording their codes) for a response. */
  formatAll(errors: readonly unknown[], requestId: string, record?: OperationRecord): FormattedError[] {
    return errors.map((error) => {
      const { error: formatted, internal } = formatError(error, requestId, { exposeInternals: this.options.exposeInternals });
      record?.codes.push(formatted.extensions.code);
      if (internal !== null) record?.internalErrors.push(internal);
      return formatted;
    });
  }
}

/** Errors that refuse a request as a whole (a document that does not parse or validate). */
export class RequestErrors extends Error {
  constructor(readonly errors: readonly GraphQLError[]) {
    super(errors[0]?.message ?? 'request refused');
  }
}

function variablesOf(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new AppError('BAD_REQUEST', 'The `variables` must be an object');
  return value as Record<string, unknown>;
}
