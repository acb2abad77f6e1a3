import { mapSchema } from '@graphql-tools/utils';
import type { GatewayExecutor, GatewayGraphQLRequestContext, GatewayInterface } from '@apollo/server-gateway-interface';
import {
  execute,
  type ExecutionResult,
  type FieldNode,
  getNamedType,
  getNullableType,
  GraphQLError,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  isCompositeType,
  isListType,
  isObjectType,
  Kind,
} from 'graphql';
import { AppError } from '../../errors.js';
import type { AnswerForm } from '../../read/answer-form.js';
import type { OperationWalk } from '../../read/operation-walk.js';
import type { PieceRange } from '../../read/rendered-read.js';
import type { OperationWalks } from '../../read/operation-walks.js';
import { type CheckedOperation, confirmViewer, type GraphQLContext, runOnItsDatabase } from '../context.js';
import type { ReadRenderer } from '../read-renderer.js';
import { withEnumErrorsListingValues } from '../schema.js';
import { TIMED_OUT, TimeBudget } from '../time-budget.js';

/**
 * A rendered read's whole `data`, already JSON, standing in the result's `data` so every transport writes it as it is,
 * never parsed and serialized again: HTTP's serializer (stringifyResult in apollo.ts), a REST route the part it answers
 * (rest/answer.ts), a socket its `next` frame (websocket/transport.ts).
 */
export class RenderedData {
  private joined: string | undefined;
  private located: ReadonlyMap<string, PieceRange> | undefined;

  constructor(
    private readonly pieces: string[],
    /** The form SQL wrote it in: a REST route's operation is written in the REST form (read/answer-form.ts). */
    readonly form: AnswerForm,
    /** Called once, on the first use of `parts`. */
    private readonly locate: () => ReadonlyMap<string, PieceRange>,
  ) {}

  /** Where the text of each root field, and of each member of a root connection, lies among the pieces, by dotted path. */
  get parts(): ReadonlyMap<string, PieceRange> {
    return (this.located ??= this.locate());
  }

  /** The data's JSON text (REST reads the part it answers from it). */
  json(): string {
    return (this.joined ??= this.pieces.join(''));
  }

  /** The pieces of the value at a dotted path, where the read knows where it lies (see `parts`); else undefined. */
  piecesAt(path: string): string[] | undefined {
    const range = this.parts.get(path);
    return range && this.pieces.slice(range[0], range[1]);
  }

  /**
   * The response body, `{"data":…}` (with `extensions` when a plugin added some), encoded
   * once from the pieces into one Buffer.
   */
  body(extensions?: unknown): Buffer {
    const tail = extensions === undefined ? '}' : `,"extensions":${JSON.stringify(extensions)}}`;
    return encodePieces(this.pieces, DATA_OPEN, tail);
  }

  /** The data as a value, for a plugin that reads it (a response cache storing it, say). */
  toJSON(): unknown {
    return JSON.parse(this.json());
  }
}

/** Encodes the pieces straight into one Buffer: joining them first would copy the whole text into a new string, then encode it. */
export function encodePieces(pieces: readonly string[], head = '', tail = ''): Buffer {
  let length = Buffer.byteLength(head) + Buffer.byteLength(tail);
  for (const piece of pieces) length += Buffer.byteLength(piece);
  const encoded = Buffer.allocUnsafe(length);
  let offset = encoded.write(head, 0);
  for (const piece of pieces) offset += encoded.write(piece, offset);
  encoded.write(tail, offset);
  return encoded;
}

const DATA_OPEN = '{"data":';

export interface PlannedReadOptions {
  schema: GraphQLSchema;
  /** The checks make the operation's walk, the executor reads it (read/operation-walks.ts). */
  walks: OperationWalks;
  /** Null: every operation is executed. */
  renderer: ReadRenderer | null;
  /** In ms (0 = none); past it, OPERATION_TIMEOUT and the operation's statements are cancelled. */
  budgetMs: number;
  /**
   * Apollo's cache-control plugin is the only one following fields (no deployment plugin, no subgraph inline traces, no usage
   * reporting), so a rendered read may restrict its cache policy by the walk's kept verdict (see tellRenderedFields).
   */
  cacheControlAloneFollowsFields?: boolean;
}

/**
 * Apollo Server's executor, through its gateway seam (`gateway.load()` returns it; Apollo calls it after every plugin's
 * executionDidStart, in place of graphql-js `execute`). A query whose whole root selection renders is answered by the
 * rendered read on every transport; anything else is executed by graphql-js with the schema Apollo instruments
 * (willResolveField). Either way within the time budget, on the database its routing chooses, session confirmed first.
 *
 * A rendered read resolves no field, so the plugins that follow fields (cache control, inline traces, usage reporting) are
 * told of each selected field as the executor would: once per field and shape (list items are not told apart), an
 * abstract type's fields for each type its fragments apply to (see tellRenderedFields).
 */
export function plannedReadGateway(options: PlannedReadOptions): GatewayInterface {
  // Apollo's copy: with a plugin that follows fields, Apollo wraps every field it is given in its own resolver, while the
  // renderer plans from the schema as built, where a field without a resolver is a column. The executor runs Apollo's, so
  // plugins see its fields. mapSchema rebuilds each enum from its config, so the enums' error wording is applied again.
  const schema = withEnumErrorsListingValues(mapSchema(options.schema, {}));
  const { budgetMs, walks, renderer, cacheControlAloneFollowsFields: cacheControlAlone = false } = options;
  const budget = new TimeBudget(budgetMs);

  /** The checks' walk of this operation, or one made now (an operation past no checks); null for variables that do not coerce. */
  const checkedOf = (rc: GatewayGraphQLRequestContext, context: GraphQLContext): CheckedOperation | null => {
    if (context.checked?.walk.operation === rc.operation) return context.checked;
    const variables = walks.coerce(rc.operation, rc.request.variables);
    return variables && { walk: walks.of(rc.document, rc.operation, variables, context.answerForm), variables };
  };

  const answer = (rc: GatewayGraphQLRequestContext): Promise<ExecutionResult> => {
    const context = rc.context as GraphQLContext;
    const { document, operation } = rc;
    return runOnItsDatabase(context, operation.operation, async () => {
      const checked = checkedOf(rc, context);
      if (renderer && checked) {
        const rendered = await renderer.answer(checked.walk, context, checked.variables);
        if (rendered !== null) {
          context.transport.record!.rendered = true;
          const willResolveField = willResolveFieldOf(context);
          if (willResolveField) tellRenderedFields(schema, rc, checked, willResolveField, cacheControlAlone);
          keepPrivateIfSelected(schema, rc, checked.walk);
          return { data: new RenderedData(rendered.pieces, checked.walk.form, rendered.locate) as unknown as Record<string, unknown> };
        }
      }
      await confirmViewer(context);
      if (checked) keepPrivateIfSelected(schema, rc, checked.walk);
      return execute({
        schema,
        document,
        operationName: rc.request.operationName,
        contextValue: context,
        variableValues: rc.request.variables,
      });
    });
  };

  const executor: GatewayExecutor = async (rc) => {
    // No operation of that name: graphql-js says so, and Apollo answers OPERATION_RESOLUTION_FAILURE.
    if (!rc.operation) return execute({ schema, document: rc.document, operationName: rc.request.operationName });
    try {
      // Past the budget, the statements of the operation's scope are cancelled.
      const outcome = await budget.run(answer(rc), (rc.context as GraphQLContext).statements);
      if (outcome === TIMED_OUT)
        throw new AppError('OPERATION_TIMEOUT', `The request did not complete within its time budget of ${budgetMs} ms`, { budgetMs });
      return outcome;
    } catch (error) {
      // Nothing answered (an ended session, the budget, the database): one error and no `data`, formatted by Apollo's formatError.
      const cause = error instanceof Error ? error : new Error(String(error));
      return { errors: [cause instanceof GraphQLError ? cause : new GraphQLError(cause.message, { originalError: cause })] };
    }
  };
  return {
    load: () => Promise.resolve({ executor }),
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => {};
    },
    stop: () => Promise.resolve(),
  };
}

/** Apollo's key on the context for the execution listeners' willResolveField (set only when a plugin has one). */
let willResolveFieldKey: symbol | undefined;

type WillResolveField = (args: {
  source: unknown;
  args: Record<string, unknown>;
  contextValue: unknown;
  info: GraphQLResolveInfo;
}) => unknown;

function willResolveFieldOf(context: GraphQLContext): WillResolveField | undefined {
  if (!willResolveFieldKey) {
    willResolveFieldKey = Object.getOwnPropertySymbols(context).find(
      (key) => key.description === 'apolloServerExecutionDispatcherWillResolveField',
    );
    if (!willResolveFieldKey) return undefined;
  }
  return (context as unknown as Record<symbol, WillResolveField | undefined>)[willResolveFieldKey];
}

/** A cache policy as Apollo's cache-control plugin keeps one (@apollo/cache-control-types' CachePolicy). */
interface CachePolicy {
  maxAge?: number;
  scope?: string;
  restrict(hint: { maxAge?: number; scope?: string }): void;
}

/** What a walk's selection tells the listeners, for one document and set of variables. */
interface RenderedFields {
  fields: readonly GraphQLResolveInfo[];
  /** Cache control's verdict on them, once seen: the policy telling them made of an unrestricted one. */
  verdict: { maxAge?: number; scope?: string } | null;
  /** Whether one of them is private to its viewer (keepPrivateIfSelected). */
  selectsPrivate: boolean;
}

/** What each walk's rendered read tells the listeners, made once and kept as long as the walk is. */
const renderedFields = new WeakMap<OperationWalk, RenderedFields>();

function renderedFieldsOfWalk(schema: GraphQLSchema, walk: OperationWalk): RenderedFields {
  let told = renderedFields.get(walk);
  if (!told) {
    const fields = renderedFieldsOf(schema, walk);
    renderedFields.set(walk, (told = { fields, verdict: null, selectsPrivate: fields.some(isPrivateField) }));
  }
  return told;
}

/**
 * Tells the listeners of each field a rendered read answered as the executor would (willResolveField, then its end at
 * once); not __typename, which graphql-js does not resolve through the schema. Each gets a copy of the kept info with the
 * request's variables, as graphql-js gives each resolver its own.
 *
 * Where cache control is the only listener, its verdict on the same fields never changes (the hints are the schema's; a
 * rendered read runs no resolver to set one): the first telling's is kept, and later requests restrict their policy by it,
 * instead of about a microsecond a field. It is kept only from a policy nothing had restricted, so it is the fields' alone.
 */
function tellRenderedFields(
  schema: GraphQLSchema,
  rc: GatewayGraphQLRequestContext,
  checked: CheckedOperation,
  willResolveField: WillResolveField,
  cacheControlAlone: boolean,
): void {
  const { walk, variables } = checked;
  const told = renderedFieldsOfWalk(schema, walk);
  const policy = rc.overallCachePolicy as CachePolicy;
  if (cacheControlAlone && told.verdict) return policy.restrict(told.verdict);
  const unrestricted = policy.maxAge === undefined && policy.scope === undefined;
  const context = rc.context as GraphQLContext;
  for (const info of told.fields) {
    // A copy per request: listeners write on the info (cache control its `cacheControl`, with functions of the request); a
    // write on the kept one would hold that request until the walk's next, promoting its objects out of the young generation.
    const done = willResolveField({ source: undefined, args: {}, contextValue: context, info: { ...info, variableValues: variables } });
    if (typeof done === 'function') (done as (error: Error | null, result?: unknown) => void)(null, undefined);
  }
  if (cacheControlAlone && unrestricted) told.verdict = { maxAge: policy.maxAge, scope: policy.scope };
}

/**
 * An answer selecting a field private to its viewer (scope PRIVATE on the field or its type: a pool's viewerPrediction, say)
 * is kept by no shared cache, whatever rows it found. Decided by the selection, since the executor tells cache control only
 * of fields it resolved (not under a null parent or in an empty page), a rendered read of all: both answer the same policy.
 */
function keepPrivateIfSelected(schema: GraphQLSchema, rc: GatewayGraphQLRequestContext, walk: OperationWalk): void {
  if (renderedFieldsOfWalk(schema, walk).selectsPrivate) (rc.overallCachePolicy as CachePolicy).restrict({ maxAge: 0, scope: 'PRIVATE' });
}

/** Whether a field, or the type it returns, carries a cache hint of scope PRIVATE (modules/common/cache-hints.ts). */
function isPrivateField(info: GraphQLResolveInfo): boolean {
  const field = info.parentType.getFields()[info.fieldName];
  const hints = [...(field?.astNode?.directives ?? []), ...(getNamedType(info.returnType).astNode?.directives ?? [])];
  return hints.some(
    (hint) =>
      hint.name.value === 'cacheControl' &&
      hint.arguments?.some((arg) => arg.name.value === 'scope' && arg.value.kind === Kind.ENUM && arg.value.value === 'PRIVATE'),
  );
}

/** The fields of a walked query as the executor would resolve them: every field of its selections, on each type that may stand there. */
function renderedFieldsOf(schema: GraphQLSchema, walk: OperationWalk): GraphQLResolveInfo[] {
  const base = { schema, fragments: walk.fragments, rootValue: undefined, operation: walk.operation, variableValues: {} };
  const fields: GraphQLResolveInfo[] = [];
  const visit = (type: GraphQLObjectType, collected: Map<string, FieldNode[]>, path: GraphQLResolveInfo['path'] | undefined) => {
    for (const [key, nodes] of collected) {
      const name = nodes[0]!.name.value;
      const field = type.getFields()[name];
      if (!field) continue;
      const fieldPath = { prev: path, key, typename: type.name };
      fields.push({
        ...base,
        fieldName: name,
        fieldNodes: nodes,
        returnType: field.type,
        parentType: type,
        path: fieldPath,
      } as GraphQLResolveInfo);
      const named = getNamedType(field.type);
      if (isCompositeType(named)) {
        const itemPath = isListType(getNullableType(field.type)) ? { prev: fieldPath, key: 0, typename: undefined } : fieldPath;
        for (const possible of isObjectType(named) ? [named] : schema.getPossibleTypes(named))
          visit(possible, walk.fieldsOf(possible, nodes), itemPath);
      }
    }
  };
  visit(schema.getQueryType()!, walk.root, undefined);
  return fields;
}
