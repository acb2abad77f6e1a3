import type { GraphQLSchema } from 'graphql';
import { SharedStatement } from '../read/nested-read.js';
import { EXPONENT_MARK, writeNumbersAsJavaScript } from '../read/columns.js';
import { nestMembers, type PieceRange, type RenderedColumn, type RenderedPieces, type RenderedRootField } from '../read/rendered-read.js';
import { type ArgumentReader, argumentReader } from '../read/arguments.js';
import { type OperationWalk, refuse, type RenderRefusal } from '../read/operation-walk.js';
import type { WalkPlanner } from '../read/operation-walks.js';
import { ROOT_RENDERERS } from '../modules/rendered-reads.js';
import { AppError } from '../errors.js';
import { confirmViewer, type GraphQLContext } from './context.js';

/** A query's root selection as rendered reads: per response key, a constant, a root field's own read, or a shared-statement column. */
interface RenderedOperation {
  parts: Array<
    | { key: string; json: string }
    | { key: string; read: RenderedRootField; args: ArgumentReader }
    | { key: string; column: RenderedColumn; index: number; args: ArgumentReader }
  >;
  statement: SharedStatement | null;
  /** How many parts are root fields' own reads. */
  reads: number;
  /** What comes before each part's JSON in `data`: its key (after a comma past the first). */
  heads: string[];
  /** A column is provisional (RenderedColumn): the plan is made again at the next request. */
  provisional: boolean;
}

/** Each column's slot values, in the order of the parts. */
function columnValues(parts: RenderedOperation['parts'], context: GraphQLContext, args: Array<Record<string, unknown> | null>): unknown[] {
  const values: unknown[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if ('column' in part) values.push(...part.column.values(context, args[i]!));
  }
  return values;
}

/** Stands for a part that is not a root field's own read among the reads awaited together. */
const NOT_READ: Promise<null> = Promise.resolve(null);

/** Rewrites numbers Postgres wrote in exponent form as JavaScript writes them. */
const asJavaScriptNumbers = (piece: string) => (piece.includes(EXPONENT_MARK) ? writeNumbersAsJavaScript(piece) : piece);

/**
 * Why a query went to the executor: the planner's reason, variables that do not coerce, planning that threw, the request's
 * own error (`request_error`: signed out, not found; the executor words it), a statement that failed otherwise, a column
 * whose JSON could not be written. Counted in poolgraph_graphql_render_fallbacks_total, logged at debug (logging.ts).
 */
export type RenderFallbackReason = RenderRefusal | 'variables' | 'planning_error' | 'request_error' | 'read_failed' | 'write_failed';

/** Records why the operation was not rendered (with the field to blame and the error, if any); null, as the renderer answers then. */
function fellBack(context: GraphQLContext, reason: RenderFallbackReason, error?: unknown, field?: string): null {
  const record = context.transport.record;
  if (record) {
    record.renderFallback = reason;
    if (field !== undefined) record.renderFallbackField = field;
    if (error !== undefined) record.renderFallbackError = error;
  }
  return null;
}

/** `locate` (ranges of root fields and root connections' members, by dotted path) is lazy: only a REST route asks. */
export interface RenderedAnswer {
  pieces: string[];
  locate: () => Map<string, PieceRange>;
}

/** The plan kept on a walk, or why it does not render (at which field; the error where planning threw). */
type RenderedPlan = RenderedOperation | { refusal: RenderFallbackReason; field?: string; error?: unknown };

/**
 * Answers a query without the executor when its whole root selection renders (read/rendered-read.ts): column fields (an
 * object by its key, a count) share ONE statement, a connection's page has its own. Planned with the operation's walk
 * (read/operation-walks.ts), so once per operation and shape (the variables deciding directives, nested pages and the like;
 * root fields' arguments are read at each request), never for mutations. Off with RENDERED_READS=false; answers are
 * counted in poolgraph_graphql_rendered_reads_total.
 */
export class ReadRenderer {
  constructor(private readonly schema: GraphQLSchema) {}

  /** Plans a query's rendered read while its walk is made, keeping the plan on the walk; true when the plan is provisional. */
  readonly planner: WalkPlanner = (walk) => {
    let plan: RenderedPlan;
    try {
      plan = this.plan(walk) ?? { refusal: walk.refusal!, field: walk.refusedAt };
    } catch (error) {
      // Variables the planner cannot read (nested past the stack's depth) or arguments that do not coerce are the
      // executor's to judge: it answers them as graphql-js does.
      plan = { refusal: 'planning_error', error };
    }
    walk.plan = plan;
    return 'parts' in plan && plan.provisional;
  };

  /**
   * The `data` of the walked operation for this request's coerced `variables` as JSON text in
   * pieces (with where its parts lie), or null when it does not render or its read failed: the
   * caller then executes it, so any error comes out as execution reports it.
   */
  async answer(walk: OperationWalk, context: GraphQLContext, variables: Record<string, unknown>): Promise<RenderedAnswer | null> {
    if (walk.operation.operation !== 'query') return null;
    const plan = walk.plan as RenderedPlan | undefined;
    if (!plan) return fellBack(context, 'root_field');
    if (!('parts' in plan)) return fellBack(context, plan.refusal, plan.error, plan.field);
    let args: Array<Record<string, unknown> | null>;
    try {
      args = plan.parts.map((part) => ('args' in part ? part.args(variables) : null));
    } catch (error) {
      return fellBack(context, 'planning_error', error);
    }
    const { parts, statement } = plan;
    // A session not yet read is checked by the first statement of a read made of one part (the shared statement, or one root
    // field's own read: a list's page); else it is read first, alone, as parts run together would wait for one's judgment.
    const session = context.unconfirmedSession;
    const check = session && (statement ? 1 : 0) + plan.reads === 1 ? session.firstStatementCheck(context.database, context) : undefined;
    if (check) context.statements.checkWithFirstStatement(check);
    else if (session) await confirmViewer(context);
    let columns: Array<string | null> | null;
    let read: Array<RenderedPieces | null> | null = null;
    try {
      const run = statement && statement.run(context.database.query, columnValues(parts, context, args));
      // Most operations have no root field read of its own: then only the statement is awaited.
      if (plan.reads)
        [columns, read] = await Promise.all([
          run,
          Promise.all(parts.map((part, i) => ('read' in part ? part.read(context, args[i]!) : NOT_READ))),
        ]);
      else columns = run && (await run);
      // A read that ran no statement carried no check: the session is read now, alone, before anything is answered.
      if (check && context.unconfirmedSession === session) {
        context.statements.checkWithFirstStatement(null);
        await confirmViewer(context);
      }
    } catch (error) {
      // The session the read's statement carried refused the request: that is the answer (a fallback would refuse it twice).
      if (check && error === session!.refusal) throw error;
      if (check) context.statements.checkWithFirstStatement(null);
      // The request's own error (a 4xx) is not the read failing: a signed-out viewer's page would count as failures.
      return fellBack(context, error instanceof AppError && error.status < 500 ? 'request_error' : 'read_failed', error);
    }
    try {
      const out = ['{'];
      // Where each part's pieces start; it ends where the next part's head begins.
      const starts: number[] = [];
      for (let i = 0; i < parts.length; i++) {
        const part = parts[i]!;
        out.push(plan.heads[i]!);
        starts.push(out.length);
        if ('json' in part) out.push(part.json);
        else if ('read' in part) for (const piece of read![i]!) out.push(asJavaScriptNumbers(piece));
        else out.push(asJavaScriptNumbers(part.column.write(columns![part.index]!, args[i]!)));
      }
      out.push('}');
      const locate = () => {
        const where = new Map<string, PieceRange>();
        for (let i = 0; i < parts.length; i++) {
          const { key } = parts[i]!;
          const from = starts[i]!;
          where.set(key, [from, i + 1 < parts.length ? starts[i + 1]! - 1 : out.length - 1]);
          nestMembers(where, key, from, read?.[i]?.members);
        }
        return where;
      };
      return { pieces: out, locate };
    } catch (error) {
      return fellBack(context, 'write_failed', error);
    }
  }

  private plan(walk: OperationWalk): RenderedOperation | null {
    const queryType = this.schema.getQueryType()!;
    const parts: RenderedOperation['parts'] = [];
    const columns: RenderedColumn[] = [];
    for (const [key, nodes] of walk.root) {
      const node = nodes[0]!;
      const name = node.name.value;
      if (name === '__typename') {
        parts.push({ key, json: JSON.stringify(queryType.name) });
        continue;
      }
      const field = queryType.getFields()[name];
      const read = field && ROOT_RENDERERS[name]?.(field, nodes, walk);
      // Unless a field below said why, the root field itself: no module renders it, or its module declined.
      if (!read) return refuse(walk, 'root_field', `${queryType.name}.${name}`);
      const args = argumentReader(field, node);
      if (typeof read === 'function') parts.push({ key, read, args });
      else parts.push({ key, column: read, index: columns.push(read) - 1, args });
    }
    const statement = columns.length ? new SharedStatement() : null;
    for (const column of columns) statement!.add(column.sql);
    const reads = parts.filter((part) => 'read' in part).length;
    const heads = parts.map((part, i) => `${i ? ',' : ''}${JSON.stringify(part.key)}:`);
    return { parts, statement, reads, heads, provisional: columns.some((column) => column.provisional) };
  }
}
