import type { GraphQLError, GraphQLSchema } from 'graphql';
import { AppError } from '../../errors.js';
import { pageArgumentErrors } from '../arguments.js';
import type { GraphQLContext } from '../context.js';
import { createCostCheck, type OperationLimits } from '../limits.js';
import type { OperationRecord } from '../logging.js';
import type { LimiterFactory } from '../../modules/common/limiter.js';
import { createRateLimitCheck, rateLimitHeaders } from '../rate-limit.js';
import type { RateLimitConfig } from '../../config.js';
import { TIMED_OUT, withinBudget } from '../time-budget.js';
import type { TrustedDocuments } from '../trusted-documents.js';
import { DocumentCache, type PreparedOperation } from './documents.js';
import { type FormattedError, formatError, retryAfterOf, statusOf } from './format-error.js';
import { type DocumentSource, PersistedDocuments } from './persisted.js';
import { ReadRenderer } from './rendered.js';

/** One GraphQL operation as a transport received it. */
export interface OperationInput extends DocumentSource {
  variables?: unknown;
  operationName?: unknown;
}

/** What the pipeline answers: the HTTP status and headers it chose (429 with Retry-After, say), and the GraphQL body. */
export interface OperationResult {
  status: number;
  headers: Record<string, string>;
  body: { data?: unknown; errors?: FormattedError[] };
  /** A rendered read's whole body, already JSON, in pieces (`body` is then empty); only for transports that ask (RunOptions.acceptsText). */
  text?: string[];
}

/** What the transport decides for one operation. */
export interface RunOptions {
  requestId: string;
  /** Filled in for the request's log line and metrics. */
  record: OperationRecord;
  /** The credentials step: authenticates and builds the context (throws to refuse). */
  context: () => Promise<GraphQLContext>;
  /** Mutations allowed (not over GET). */
  allowMutations: boolean;
  /** A fixed document of this server (REST routes): runs even where trusted documents are on. */
  serverOwned?: boolean;
  /** Time budget in ms (0 = none); past it, OPERATION_TIMEOUT. */
  budgetMs?: number;
  /** The transport sends OperationResult.text (JSON in pieces) as is: queries may then be answered by rendered reads (see ReadRenderer). */
  acceptsText?: boolean;
}

export interface PipelineOptions {
  schema: GraphQLSchema;
  limits: OperationLimits;
  rateLimit: RateLimitConfig;
  /** Where the operation budgets are kept (memory, or Redis shared by the replicas). */
  limiters?: LimiterFactory;
  introspection: boolean;
  /** Queries answered by rendered reads where they render (ReadRenderer); off, every operation is executed. */
  renderedReads: boolean;
  exposeInternals: boolean;
  trustedDocuments: TrustedDocuments | null;
  /** Where subscriptions are served, named in the refusal of one over HTTP. */
  webSocketPath: string;
  /** See DocumentCacheOptions.compileAtUse. */
  compileAtUse?: number;
}

/**
 * The one operation pipeline of HTTP, REST and WebSocket: document (trusted or persisted)
 * -> credentials and context -> parse and validate (cached per document text) -> limits
 * -> cost -> rate limit -> execute (compiled, or a rendered read where the transport takes
 * text and the query renders) -> format. Every error leaves it coded by the
 * one formatter.
 */
export class OperationPipeline {
  readonly documents: DocumentCache;
  private readonly persisted: PersistedDocuments;
  private readonly costCheck: ReturnType<typeof createCostCheck>;
  private readonly rateLimitCheck: ReturnType<typeof createRateLimitCheck>;
  private readonly renderer: ReadRenderer | null;

  constructor(private readonly options: PipelineOptions) {
    this.renderer = options.renderedReads ? new ReadRenderer(options.schema) : null;
    this.documents = new DocumentCache(options.schema, { limits: options.limits, introspection: options.introspection, compileAtUse: options.compileAtUse });
    this.persisted = new PersistedDocuments(options.trustedDocuments);
    this.costCheck = createCostCheck(options.limits);
    this.rateLimitCheck = createRateLimitCheck(options.rateLimit, options.limiters);
  }

  /** The document text `input` names (its query, or a persisted or trusted one by hash); throws the refusal. */
  documentText(input: OperationInput, serverOwned = false): string {
    return this.persisted.resolve(input, serverOwned);
  }

  /**
   * Prepares and admits one operation for `context` (limits, cost, rate):
   * returns it ready to run, or the errors that refuse it. Shared by {@link run} and the
   * WebSocket transport's subscribe.
   */
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
    const badArguments = pageArgumentErrors(this.options.schema, operation.document, variables, operation.name);
    if (badArguments.length) throw new RequestErrors(badArguments);
    this.costCheck(this.options.schema, operation.document, operation.operation, variables);
    await this.rateLimitCheck(operation.document, operation.operation, context);
    return { operation, variables };
  }

  /** Runs one operation over HTTP (GraphQL or REST) and answers status, headers and body. */
  async run(input: OperationInput, options: RunOptions): Promise<OperationResult> {
    const budgetMs = options.budgetMs ?? 0;
    const made: { context?: GraphQLContext } = {};
    // As a function, so the work runs in its own statement scope: past the budget its statements are cancelled.
    let result = await withinBudget(budgetMs, () => this.runUnbounded(input, options, made));
    if (result === TIMED_OUT) {
      const message = `The request did not complete within its time budget of ${budgetMs} ms`;
      result = this.refusal(new AppError('OPERATION_TIMEOUT', message, { budgetMs }), options);
    }
    // Every answer of a counted operation says what is left of its budget, the 429 included.
    const budget = rateLimitHeaders(made.context?.rateLimit);
    return budget['ratelimit'] ? { ...result, headers: { ...result.headers, ...budget } } : result;
  }

  private async runUnbounded(input: OperationInput, options: RunOptions, made: { context?: GraphQLContext }): Promise<OperationResult> {
    let admitted: Awaited<ReturnType<OperationPipeline['admit']>>;
    let context: GraphQLContext;
    try {
      // The document first: refusing an unknown hash or untrusted document costs no lookup.
      const text = this.documentText(input, options.serverOwned);
      context = made.context = await options.context();
      admitted = await this.admit(text, input, context, options.record);
      if (admitted.operation.type === 'subscription') {
        throw new AppError('SUBSCRIPTION_REQUIRES_WEBSOCKET', `Subscriptions run over graphql-ws (WebSocket) at ${this.options.webSocketPath}, not over HTTP`, {
          endpoint: this.options.webSocketPath,
        });
      }
      if (admitted.operation.type === 'mutation' && !options.allowMutations) {
        const refused = this.refusal(new AppError('METHOD_NOT_ALLOWED', 'Mutations run over POST only'), options);
        return { ...refused, headers: { ...refused.headers, allow: 'POST' } };
      }
    } catch (error) {
      return this.refusal(error, options);
    }
    let result;
    try {
      if (options.acceptsText && this.renderer) {
        const data = await this.renderer.answer(admitted.operation, context, admitted.variables);
        if (data !== null) return this.respondRendered(data, options);
      }
      result = await admitted.operation.run(undefined, context, admitted.variables);
    } catch (error) {
      return this.refusal(error, options);
    }
    // No `data`: the variables could not be coerced, so nothing ran (a request error).
    if (!('data' in result)) return this.respond((result.errors ?? []).map(asBadInput), false, undefined, options);
    return this.respond(result.errors ?? [], true, result.data, options);
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

  /** A rendered read's answer: its data text, no errors (a read that fails is executed instead). */
  private respondRendered(data: string[], options: RunOptions): OperationResult {
    options.record.codes = [];
    options.record.rendered = true;
    data.unshift('{"data":');
    data.push('}');
    return { status: 200, headers: {}, body: {}, text: data };
  }

  private refusal(error: unknown, options: RunOptions): OperationResult {
    return this.respond(error instanceof RequestErrors ? error.errors : [error], false, undefined, options);
  }

  private respond(errors: readonly unknown[], executed: boolean, data: unknown, options: RunOptions): OperationResult {
    options.record.codes = [];
    const formatted = this.formatAll(errors, options.requestId, options.record);
    const status = statusOf(formatted, executed, data);
    const retryAfter = retryAfterOf(formatted);
    const headers: Record<string, string> = status !== 200 && retryAfter !== null ? { 'retry-after': String(retryAfter) } : {};
    const body = executed ? (formatted.length ? { data, errors: formatted } : { data }) : { errors: formatted };
    return { status, headers, body };
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

/** A variable that cannot be coerced is the caller's input at fault. */
function asBadInput(error: GraphQLError): GraphQLError | AppError {
  if (typeof error.extensions?.code === 'string') return error;
  return new AppError('BAD_USER_INPUT', error.message);
}
