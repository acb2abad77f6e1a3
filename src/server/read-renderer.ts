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
import { collectFields, type SelectionWalk } from '../modules/common/selections.js';
import { ROOT_RENDERERS } from '../modules/rendered-reads.js';
import type { SessionRow } from '../modules/auth/auth.service.js';
import { confirmViewer, type GraphQLContext } from './context.js';

/**
 * A query's root selection as rendered reads: per response key, a constant, a root field's
 * own read, or a column of the one statement the operation's column fields share.
 */
interface RenderedOperation {
  parts: Array<
    { key: string; json: string } | { key: string; read: RenderedRootField } | { key: string; column: RenderedColumn; index: number }
  >;
  shared: { statement: SharedStatement; columns: RenderedColumn[] } | null;
  /** Whether a part is a root field's own read. */
  reads: boolean;
  /** What comes before each part's JSON in `data`: its key (after a comma past the first). */
  heads: string[];
  /** A column is provisional (RenderedColumn): the plan is made again at the next request. */
  provisional: boolean;
}

/** What stands for a part that is not a root field's own read among the reads awaited together. */
const NOT_READ: Promise<null> = Promise.resolve(null);

/** A piece of JSON a statement wrote, with the numbers Postgres wrote in exponent form as JavaScript writes them. */
const asJavaScriptNumbers = (piece: string) => (piece.includes(EXPONENT_MARK) ? writeNumbersAsJavaScript(piece) : piece);

/** Plans kept per operation: one per variables text (at most this many; past it, planned per request). */
const PLANS_PER_OPERATION = 16;

/**
 * Answers a query without the executor when its whole root selection renders
 * (modules/common/rendered-read.ts): the statements write each root field's JSON (the
 * fields that are columns, such as an object by its key or a count, all in ONE statement;
 * a connection's page in its own), and the `data` text is joined from them in the
 * selection's order. Planned once per operation and variables (which decide directives
 * and arguments), never for mutations. Off with RENDERED_READS=false; each answer is
 * counted in poolgraph_graphql_rendered_reads_total.
 */
export class ReadRenderer {
  /** By operation node: Apollo Server's document store keeps one parsed document per text, so plans live as long as it does. */
  private readonly plans = new WeakMap<OperationDefinitionNode, Map<string, RenderedOperation | null>>();

  constructor(private readonly schema: GraphQLSchema) {}

  /**
   * The `data` of `operation` (of `document`) as JSON text in pieces, or null when it does not
   * render or its read failed: the caller then executes it, so any error comes out as execution reports it.
   */
  async answer(
    document: DocumentNode,
    operation: OperationDefinitionNode,
    context: GraphQLContext,
    variables: Record<string, unknown> | undefined,
  ): Promise<string[] | null> {
    if (operation.operation !== 'query') return null;
    let plan: RenderedOperation | null;
    try {
      plan = this.planOf(document, operation, variables);
    } catch {
      // Variables the planner cannot read (nested past the stack's depth, say) are the
      // executor's to judge: it answers them as graphql-js does, never as a failure here.
      return null;
    }
    if (!plan) return null;
    const { parts, shared } = plan;
    // A session not yet read is read by the one statement, as its guard, when that statement is all the read runs; else first, alone.
    const session = context.unconfirmedSession;
    const guard = session && shared && !plan.reads ? session.guardOn(context.database) : undefined;
    if (session && !guard) await confirmViewer(context);
    let written: { columns: Array<string | null>; guardRow?: SessionRow } | null;
    let read: Array<string[] | null> | null = null;
    try {
      const statement =
        shared &&
        shared.statement.run(
          context.database.query,
          shared.columns.flatMap((column) => column.values(context)),
          guard,
        );
      // Root fields' own reads run beside the shared statement; most operations have none,
      // and then nothing but the statement is awaited.
      if (plan.reads)
        [written, read] = await Promise.all([
          statement,
          Promise.all(parts.map((part) => ('read' in part ? part.read(context) : NOT_READ))),
        ]);
      else written = statement && (await statement);
    } catch {
      return null;
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
        else out.push(asJavaScriptNumbers(part.column.write(written!.columns[part.index]!)));
      }
      out.push('}');
      return out;
    } catch {
      return null;
    }
  }

  private planOf(
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Record<string, unknown> | undefined,
  ): RenderedOperation | null {
    let plans = this.plans.get(operation);
    if (!plans) this.plans.set(operation, (plans = new Map()));
    const key = variables === undefined ? '' : JSON.stringify(variables);
    let plan = plans.get(key);
    if (plan === undefined) {
      plan = this.plan(document, operation, variables);
      if (plans.size < PLANS_PER_OPERATION && !plan?.provisional) plans.set(key, plan);
    }
    return plan;
  }

  private plan(
    document: DocumentNode,
    operation: OperationDefinitionNode,
    inputs: Record<string, unknown> | undefined,
  ): RenderedOperation | null {
    const coerced = getVariableValues(this.schema, operation.variableDefinitions ?? [], inputs ?? {});
    if (coerced.errors) return null;
    const fragments: Record<string, FragmentDefinitionNode> = {};
    for (const definition of document.definitions)
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
    const walk: SelectionWalk = { schema: this.schema, fragments, variables: coerced.coerced };
    const queryType = this.schema.getQueryType()!;
    const parts: RenderedOperation['parts'] = [];
    const columns: RenderedColumn[] = [];
    for (const [key, nodes] of collectFields(queryType, [operation.selectionSet], walk)) {
      const name = (nodes[0] as FieldNode).name.value;
      if (name === '__typename') {
        parts.push({ key, json: JSON.stringify(queryType.name) });
        continue;
      }
      const field = queryType.getFields()[name];
      const read = field && ROOT_RENDERERS[name]?.(field, nodes, walk);
      if (!read) return null;
      if (typeof read === 'function') parts.push({ key, read });
      else parts.push({ key, column: read, index: columns.push(read) - 1 });
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
