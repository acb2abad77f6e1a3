import {
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type OperationDefinitionNode,
  type ParseOptions,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { OperationLimits } from '../config.types.js';
import type { OperationMeasure } from '../read/operation-walk.js';

// Defined with the rest of the configuration, whose `limits` it is; its users import it from here.
export type { OperationLimits };

/** Which limit an operation exceeded; `extensions.limit` of a QUERY_TOO_COMPLEX error. */
export type LimitName = 'depth' | 'aliases' | 'directives' | 'tokens' | 'cost' | 'bytes';

/**
 * An operation's shape as written, each fragment spread expanded at each use. Checked at validation, before variables are known,
 * against the document itself (an alias or a directive repeated a thousand times); the cost and the answer's size are of the
 * operation as it will run (read/operation-walk.ts, checked per request).
 */
export interface OperationShape {
  depth: number;
  aliases: number;
  directives: number;
}

const FLAT: OperationShape = { depth: 0, aliases: 0, directives: 0 };

/**
 * Fragments are measured once each and counted at every use, so fragments nested to blow up exponentially measure in linear time;
 * a fragment that spreads itself (directly or not) counts nothing here and is rejected by the standard rules.
 */
export function measureShape(operation: OperationDefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>): OperationShape {
  const memo = new Map<string, OperationShape>();
  const expanding = new Set<string>();

  function measureSelections(selectionSet: SelectionSetNode | undefined): OperationShape {
    if (!selectionSet) return FLAT;
    const total = { ...FLAT };
    for (const selection of selectionSet.selections) {
      total.directives += selection.directives?.length ?? 0;
      let part: OperationShape;
      if (selection.kind === Kind.FIELD) {
        const inner = measureSelections(selection.selectionSet);
        part = { depth: inner.depth + 1, aliases: inner.aliases + (selection.alias ? 1 : 0), directives: inner.directives };
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) part = measureFragment(selection.name.value);
      else part = measureSelections(selection.selectionSet);
      total.depth = Math.max(total.depth, part.depth);
      total.aliases += part.aliases;
      total.directives += part.directives;
    }
    return total;
  }

  function measureFragment(name: string): OperationShape {
    const fragment = fragments.get(name);
    if (!fragment || expanding.has(name)) return FLAT;
    const known = memo.get(name);
    if (known) return known;
    expanding.add(name);
    const inner = measureSelections(fragment.selectionSet);
    expanding.delete(name);
    const measured = { ...inner, directives: inner.directives + (fragment.directives?.length ?? 0) };
    memo.set(name, measured);
    return measured;
  }

  const measured = measureSelections(operation.selectionSet);
  return { ...measured, directives: measured.directives + (operation.directives?.length ?? 0) };
}

export const fragmentsOf = (document: DocumentNode) =>
  new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));

/** The error of an exceeded limit; its message names the limit and the numbers only, nothing of the schema. */
export function limitError(limit: LimitName, actual: number | null, max: number): GraphQLError {
  const messages: Record<LimitName, string> = {
    depth: `Query depth ${actual} exceeds the limit of ${max}`,
    aliases: `Query has ${actual} aliases, more than the limit of ${max}`,
    directives: `Query has ${actual} directives, more than the limit of ${max}`,
    tokens: `Query has more than ${max} tokens, the limit`,
    cost: `Query cost ${actual} exceeds the limit of ${max}`,
    bytes: `Query could answer about ${actual} bytes, more than the limit of ${max}: ask for fewer items, or fewer fields of each`,
  };
  return new GraphQLError(messages[limit], {
    extensions: {
      code: 'QUERY_TOO_COMPLEX',
      limit,
      max,
      ...(actual === null ? {} : { actual }),
    },
  });
}

export function shapeError(shape: OperationShape, limits: OperationLimits): GraphQLError | null {
  const over = (actual: number, max: number) => max > 0 && actual > max;
  if (over(shape.depth, limits.maxDepth)) return limitError('depth', shape.depth, limits.maxDepth);
  if (over(shape.aliases, limits.maxAliases)) return limitError('aliases', shape.aliases, limits.maxAliases);
  if (over(shape.directives, limits.maxDirectives)) return limitError('directives', shape.directives, limits.maxDirectives);
  return null;
}

/** Cost is checked before size. */
export function budgetError(measure: OperationMeasure, limits: OperationLimits): GraphQLError | null {
  if (limits.maxCost > 0 && measure.cost > limits.maxCost) return limitError('cost', Math.round(measure.cost), limits.maxCost);
  if (limits.maxBytes > 0 && measure.bytes > limits.maxBytes) return limitError('bytes', Math.round(measure.bytes), limits.maxBytes);
  return null;
}

/** The shape limits as a validation rule: they do not depend on variables, so the pipeline validates a document once and caches it. */
export function shapeLimitRules(limits: OperationLimits): ValidationRule[] {
  const rule: ValidationRule = (context: ValidationContext) => ({
    Document(document) {
      const fragments = fragmentsOf(document);
      for (const definition of document.definitions) {
        if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
        const error = shapeError(measureShape(definition, fragments), limits);
        if (error) context.reportError(error);
      }
      return false;
    },
  });
  return [rule];
}

export function limitParseOptions(limits: OperationLimits): ParseOptions {
  return limits.maxTokens > 0 ? { maxTokens: limits.maxTokens } : {};
}

// Anchored: a syntax error quotes the unexpected token, so a document holding this text in
// a string must not pass for the limit. (graphql 16 spells it "more that".)
const TOKEN_LIMIT_MESSAGE = /^(?:Syntax Error: )?Document contains more th(?:an|at) (\d+) tokens\. Parsing aborted\.$/;

/** graphql reports the token limit as a syntax error. */
export function isTokenLimitError(message: string): boolean {
  return TOKEN_LIMIT_MESSAGE.test(message);
}
