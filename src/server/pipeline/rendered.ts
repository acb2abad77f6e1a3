import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  getVariableValues,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
} from 'graphql';
import { EXPONENT_MARK, writeNumbersAsJavaScript } from '../../db/rendered-columns.js';
import type { RenderedRootField } from '../../modules/common/rendered-read.js';
import { collectFields, type SelectionWalk } from '../../modules/common/selections.js';
import { ROOT_RENDERERS } from '../../modules/rendered-reads.js';
import type { GraphQLContext } from '../context.js';

/** A query's root selection as rendered reads: per response key, a constant or a root field's read. */
type RenderedOperation = Array<{ key: string; json: string } | { key: string; read: RenderedRootField }>;

/** Plans kept per operation: one per variables text (at most this many; past it, planned per request). */
const PLANS_PER_OPERATION = 16;

/**
 * Answers a query without the executor when its whole root selection renders
 * (modules/common/rendered-read.ts): each root field's statement writes its JSON, and the
 * `data` text is joined from them in the selection's order. Planned once per operation
 * and variables (which decide directives and arguments), never for mutations. Off with
 * RENDERED_READS=false; each answer is counted in poolgraph_graphql_rendered_reads_total.
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
    try {
      const values = await Promise.all(plan.map((part) => ('json' in part ? Promise.resolve([part.json]) : part.read(context))));
      for (const pieces of values)
        for (let i = 0; i < pieces.length; i++) if (pieces[i]!.includes(EXPONENT_MARK)) pieces[i] = writeNumbersAsJavaScript(pieces[i]!);
      const out = ['{'];
      plan.forEach((part, i) => out.push(`${i ? ',' : ''}${JSON.stringify(part.key)}:`, ...values[i]!));
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
      if (plans.size < PLANS_PER_OPERATION) plans.set(key, plan);
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
    const plan: RenderedOperation = [];
    for (const [key, nodes] of collectFields(queryType, [operation.selectionSet], walk)) {
      const name = (nodes[0] as FieldNode).name.value;
      if (name === '__typename') {
        plan.push({ key, json: JSON.stringify(queryType.name) });
        continue;
      }
      const field = queryType.getFields()[name];
      const read = field && ROOT_RENDERERS[name]?.(field, nodes, walk);
      if (!read) return null;
      plan.push({ key, read });
    }
    return plan;
  }
}
