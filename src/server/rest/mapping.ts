/**
 * The REST form's names: GraphQL answers (camelCase) become the interface's snake_case, and
 * the argument names of GraphQL errors become the REST parameters they came from.
 */

/** A GraphQL (camelCase) name in the interface's snake_case. */
export const snakeCaseName = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * Deep copy of a GraphQL result with snake_case keys. A connection selected as `{ nodes }`
 * becomes the plain array the interface embeds.
 */
export function toSnakeCase(value: unknown): any {
  if (Array.isArray(value)) return value.map(toSnakeCase);
  if (value === null || typeof value !== 'object') return value;
  // A serialized scalar (DateTime gives a Date) is a value, not an object to rename.
  if (value instanceof Date) return value.toISOString();
  const entries = Object.entries(value);
  if (entries.length === 1 && entries[0]![0] === 'nodes' && Array.isArray(entries[0]![1])) return toSnakeCase(entries[0]![1]);
  return Object.fromEntries(entries.map(([key, inner]) => [snakeCaseName(key), toSnakeCase(inner)]));
}

/** GraphQL argument names whose REST parameter is not simply their snake_case. */
const PARAMETER_OF_ARGUMENT: Record<string, string> = {
  first: 'limit',
  after: 'cursor',
  search: 'query',
  sort: 'sort_by',
  'filter.status': 'filter_by',
};

/** The REST parameter an error's `argumentName` (such as `input.poolId`) refers to. */
export function restParameterName(argumentName: string): string {
  const name = argumentName.replace(/^input\./, '');
  return PARAMETER_OF_ARGUMENT[name] ?? snakeCaseName(name.replace(/^filter\./, ''));
}

/** The relations `includes` may name; a dotted path includes its parent too. */
export const INCLUDABLE = [
  'user',
  'resolution',
  'image',
  'streak',
  'predictions',
  'predictions.user',
  'predictions.reward',
  'predictions.streak',
  'predictions.pool',
] as const;
export type Includable = (typeof INCLUDABLE)[number];

/** The `@include` variables of the pool documents (see documents.ts) for `includes`. */
export function includeVariables(includes: readonly Includable[] = [], predictionsLimit: number): Record<string, unknown> {
  const wanted = new Set<string>(includes);
  const predictions = includes.some((path) => path === 'predictions' || path.startsWith('predictions.'));
  return {
    user: wanted.has('user'),
    resolution: wanted.has('resolution'),
    image: wanted.has('image'),
    streak: wanted.has('streak'),
    predictions,
    // The cost limit counts a skipped list too: keep it at one row when not included.
    predictionsFirst: predictions ? predictionsLimit : 1,
    predictionsUser: wanted.has('predictions.user'),
    predictionsReward: wanted.has('predictions.reward'),
    predictionsStreak: wanted.has('predictions.streak'),
    predictionsPool: wanted.has('predictions.pool'),
  };
}
