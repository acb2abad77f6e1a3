import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  getVariableValues,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
} from 'graphql';
import { SharedStatement } from '../db/nested-read.js';
import { EXPONENT_MARK, writeNumbersAsJavaScript } from '../db/rendered-columns.js';
import type { RenderedColumn, RenderedRootField } from '../modules/common/rendered-read.js';
import {
  type ArgumentReader,
  argumentReader,
  collectFields,
  type RenderRefusal,
  type SelectionWalk,
} from '../modules/common/selections.js';
import { ROOT_RENDERERS } from '../modules/rendered-reads.js';
import type { SessionRow } from '../modules/auth/auth.service.js';
import { confirmViewer, type GraphQLContext } from './context.js';

/**
 * A query's root selection as rendered reads: per response key, a constant, a root field's
 * own read, or a column of the one statement the operation's column fields share. A root
 * field's part holds the reader of its arguments, which are read at each request.
 */
interface RenderedOperation {
  parts: Array<
    | { key: string; json: string }
    | { key: string; read: RenderedRootField; args: ArgumentReader }
    | { key: string; column: RenderedColumn; index: number; args: ArgumentReader }
  >;
  shared: { statement: SharedStatement; columns: RenderedColumn[] } | null;
  /** Whether a part is a root field's own read. */
  reads: boolean;
  /** What comes before each part's JSON in `data`: its key (after a comma past the first). */
  heads: string[];
  /** A column is provisional (RenderedColumn): the plan is made again at the next request. */
  provisional: boolean;
}

/** The values of the shared statement's slots: each column's, in the order of the parts. */
function columnValues(parts: RenderedOperation['parts'], context: GraphQLContext, args: Array<Record<string, unknown> | null>): unknown[] {
  const values: unknown[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if ('column' in part) values.push(...part.column.values(context, args[i]!));
  }
  return values;
}

/** What stands for a part that is not a root field's own read among the reads awaited together. */
const NOT_READ: Promise<null> = Promise.resolve(null);

/** A piece of JSON a statement wrote, with the numbers Postgres wrote in exponent form as JavaScript writes them. */
const asJavaScriptNumbers = (piece: string) => (piece.includes(EXPONENT_MARK) ? writeNumbersAsJavaScript(piece) : piece);

/**
 * Why a query went to the executor rather than a rendered read: the planner's reason, or
 * variables that do not coerce, planning that threw, a statement that failed, a column
 * whose JSON could not be written. Counted in poolgraph_graphql_render_fallbacks_total and
 * logged at debug with the operation (logging.ts).
 */
export type RenderFallbackReason = RenderRefusal | 'variables' | 'planning_error' | 'read_failed' | 'write_failed';

/** Notes on the operation's record why it was not rendered (and the error, if one made it so); answers null, as the renderer does then. */
function fellBack(context: GraphQLContext, reason: RenderFallbackReason, error?: unknown): null {
  const record = context.transport.record;
  if (record) {
    record.renderFallback = reason;
    if (error !== undefined) record.renderFallbackError = error;
  }
  return null;
}

/** Plans kept per operation: one per value of what shapes them (at most this many; past it, planned per request). */
const PLANS_PER_OPERATION = 16;

const NO_VARIABLES: Record<string, unknown> = Object.freeze({});

/**
 * The plans of one operation, each kept under the values of what it was made from: the
 * variables its planning read (a directive's condition, a nested page's size or cursor)
 * and what it derived from them (SelectionWalk.dependOn). A variable the planning never
 * read (a root field's id, which the plan reads at each request) is not in the key, so
 * the operation's requests share one plan whatever its value.
 */
class OperationPlans {
  /** The variables some planning read, by name. */
  private readonly read = new Set<string>();
  /** What some planning derived from the variables, by the field it depends for. */
  private readonly derived = new Map<FieldNode, (variables: Record<string, unknown>) => unknown>();
  private readonly plans = new Map<string, RenderedOperation | RenderRefusal>();

  /** The plan kept for these variables (or why there is none), or undefined; may throw, as a derivation may. */
  get(variables: Record<string, unknown>): RenderedOperation | RenderRefusal | undefined {
    return this.plans.get(this.keyOf(variables));
  }

  /**
   * Keeps `plan`, made from `dependencies`, for `variables`. A planning that read what no
   * earlier one did makes the key longer: the plans kept under the shorter key are dropped.
   */
  keep(variables: Record<string, unknown>, plan: RenderedOperation | RenderRefusal, dependencies: PlanningDependencies): void {
    const grown =
      [...dependencies.read].some((name) => !this.read.has(name)) ||
      [...dependencies.derived.keys()].some((source) => !this.derived.has(source));
    if (grown) {
      for (const name of dependencies.read) this.read.add(name);
      for (const [source, derive] of dependencies.derived) if (!this.derived.has(source)) this.derived.set(source, derive);
      this.plans.clear();
    }
    if (this.plans.size < PLANS_PER_OPERATION) this.plans.set(this.keyOf(variables), plan);
  }

  private keyOf(variables: Record<string, unknown>): string {
    let key = '';
    // JSON writes a control character escaped, so \u0000 separates the parts unambiguously; `-` is an absent variable.
    for (const name of this.read) key += `${Object.hasOwn(variables, name) ? JSON.stringify(variables[name]) : '-'}\u0000`;
    for (const derive of this.derived.values()) key += `${JSON.stringify(derive(variables)) ?? '-'}\u0000`;
    return key;
  }
}

/**
 * What one planning depends on: the variables it read, through a view of them that
 * records each name asked (present or not: an absent variable shapes a plan as much as a
 * present one), and what it derived. Closed once the plan is made: a plan that read the
 * variables later (at a request, through the walk it kept) would be kept for values it
 * did not record, so that read throws.
 */
class PlanningDependencies {
  readonly read = new Set<string>();
  readonly derived = new Map<FieldNode, (variables: Record<string, unknown>) => unknown>();
  private closed = false;
  readonly variables: Record<string, unknown>;

  constructor(variables: Record<string, unknown>) {
    const record = (name: string | symbol) => {
      if (this.closed) throw new Error('a rendered plan read the variables after its planning');
      if (typeof name === 'string') this.read.add(name);
    };
    this.variables = new Proxy(variables, {
      get: (target, name) => (record(name), Reflect.get(target, name)),
      has: (target, name) => (record(name), Reflect.has(target, name)),
      getOwnPropertyDescriptor: (target, name) => (record(name), Reflect.getOwnPropertyDescriptor(target, name)),
      ownKeys: (target) => {
        for (const name of Reflect.ownKeys(target)) record(name);
        return Reflect.ownKeys(target);
      },
    });
  }

  dependOn<T>(source: FieldNode, derive: (variables: Record<string, unknown>) => T, variables: Record<string, unknown>): T {
    if (this.closed) throw new Error('a rendered plan derived from the variables after its planning');
    this.derived.set(source, derive);
    return derive(variables);
  }

  close(): void {
    this.closed = true;
  }
}

/**
 * Answers a query without the executor when its whole root selection renders
 * (modules/common/rendered-read.ts): the statements write each root field's JSON (the
 * fields that are columns, such as an object by its key or a count, all in ONE statement;
 * a connection's page in its own), and the `data` text is joined from them in the
 * selection's order. Planned once per operation and shape (the variables that decide
 * directives, nested pages and the like; a root field's arguments are read at each
 * request), never for mutations. Off with RENDERED_READS=false; each answer is counted in
 * poolgraph_graphql_rendered_reads_total.
 */
export class ReadRenderer {
  /** By operation node: Apollo Server's document store keeps one parsed document per text, so plans live as long as it does. */
  private readonly plans = new WeakMap<OperationDefinitionNode, OperationPlans>();

  constructor(private readonly schema: GraphQLSchema) {}

  /**
   * The `data` of `operation` (of `document`) as JSON text in pieces, or null when it does not
   * render or its read failed: the caller then executes it, so any error comes out as execution reports it.
   */
  async answer(
    document: DocumentNode,
    operation: OperationDefinitionNode,
    context: GraphQLContext,
    inputs: Record<string, unknown> | undefined,
  ): Promise<string[] | null> {
    if (operation.operation !== 'query') return null;
    let plan: RenderedOperation | RenderRefusal;
    let args: Array<Record<string, unknown> | null>;
    try {
      // Variables that do not coerce are the executor's to report (BAD_USER_INPUT).
      const coerced = operation.variableDefinitions?.length
        ? getVariableValues(this.schema, operation.variableDefinitions, inputs ?? {})
        : { coerced: NO_VARIABLES };
      if (coerced.errors) return fellBack(context, 'variables');
      const variables = coerced.coerced;
      plan = this.planOf(document, operation, variables);
      if (typeof plan === 'string') return fellBack(context, plan);
      // Each root field's arguments, as its resolver would receive them.
      args = plan.parts.map((part) => ('args' in part ? part.args(variables) : null));
    } catch (error) {
      // Variables the planner cannot read (nested past the stack's depth, say) or arguments
      // that do not coerce are the executor's to judge: it answers them as graphql-js does.
      return fellBack(context, 'planning_error', error);
    }
    const { parts, shared } = plan;
    // A session not yet read is read by the one statement, as its guard, when that statement is all the read runs; else first, alone.
    const session = context.unconfirmedSession;
    const guard = session && shared && !plan.reads ? session.guardOn(context.database) : undefined;
    if (session && !guard) await confirmViewer(context);
    let written: { columns: Array<string | null>; guardRow?: SessionRow } | null;
    let read: Array<string[] | null> | null = null;
    try {
      const statement = shared && shared.statement.run(context.database.query, columnValues(parts, context, args), guard);
      // Root fields' own reads run beside the shared statement; most operations have none,
      // and then nothing but the statement is awaited.
      if (plan.reads)
        [written, read] = await Promise.all([
          statement,
          Promise.all(parts.map((part, i) => ('read' in part ? part.read(context, args[i]!) : NOT_READ))),
        ]);
      else written = statement && (await statement);
    } catch (error) {
      return fellBack(context, 'read_failed', error);
    }
    // Outside the catches: an ended session refuses the request before anything is read from the statement.
    if (guard) await session!.judge(context, written!.guardRow!);
    try {
      const out = ['{'];
      for (let i = 0; i < parts.length; i++) {
        const part = parts[i]!;
        out.push(plan.heads[i]!);
        if ('json' in part) out.push(part.json);
        else if ('read' in part) for (const piece of read![i]!) out.push(asJavaScriptNumbers(piece));
        else out.push(asJavaScriptNumbers(part.column.write(written!.columns[part.index]!, args[i]!)));
      }
      out.push('}');
      return out;
    } catch (error) {
      return fellBack(context, 'write_failed', error);
    }
  }

  private planOf(
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Record<string, unknown>,
  ): RenderedOperation | RenderRefusal {
    let plans = this.plans.get(operation);
    if (!plans) this.plans.set(operation, (plans = new OperationPlans()));
    let plan = plans.get(variables);
    if (plan === undefined) {
      const dependencies = new PlanningDependencies(variables);
      try {
        plan = this.plan(document, operation, dependencies, variables);
      } finally {
        dependencies.close();
      }
      if (typeof plan === 'string' || !plan.provisional) plans.keep(variables, plan, dependencies);
    }
    return plan;
  }

  private plan(
    document: DocumentNode,
    operation: OperationDefinitionNode,
    dependencies: PlanningDependencies,
    variables: Record<string, unknown>,
  ): RenderedOperation | RenderRefusal {
    const fragments: Record<string, FragmentDefinitionNode> = {};
    for (const definition of document.definitions)
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
    const walk: SelectionWalk = {
      schema: this.schema,
      fragments,
      variables: dependencies.variables,
      dependOn: (source, derive) => dependencies.dependOn(source, derive, variables),
    };
    const queryType = this.schema.getQueryType()!;
    const parts: RenderedOperation['parts'] = [];
    const columns: RenderedColumn[] = [];
    for (const [key, nodes] of collectFields(queryType, [operation.selectionSet], walk)) {
      const node = nodes[0] as FieldNode;
      const name = node.name.value;
      if (name === '__typename') {
        parts.push({ key, json: JSON.stringify(queryType.name) });
        continue;
      }
      const field = queryType.getFields()[name];
      const read = field && ROOT_RENDERERS[name]?.(field, nodes, walk);
      if (!read) return walk.refusal ?? 'root_field';
      const args = argumentReader(field, node);
      if (typeof read === 'function') parts.push({ key, read, args });
      else parts.push({ key, column: read, index: columns.push(read) - 1, args });
    }
    const reads = parts.some((part) => 'read' in part);
    const heads = parts.map((part, i) => `${i ? ',' : ''}${JSON.stringify(part.key)}:`);
    if (!columns.length) return { parts, shared: null, reads, heads, provisional: false };
    const statement = new SharedStatement();
    for (const column of columns) statement.add((params, slot) => column.sql(params, slot));
    const provisional = columns.some((column) => column.provisional);
    return { parts, shared: { statement, columns }, reads, heads, provisional };
  }
}
