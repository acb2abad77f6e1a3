/**
 * The REST form's names: GraphQL answers (camelCase) become the interface's snake_case, and
 * the argument names of GraphQL errors become the REST parameters they came from.
 */

/** A GraphQL (camelCase) name in the interface's snake_case. */
export const snakeCaseName = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** The snake_case of each name met: a schema has a few hundred, and a large answer repeats them thousands of times. */
const snakeCaseNames = new Map<string, string>();
export const snakeCaseKey = (name: string) => {
  let snake = snakeCaseNames.get(name);
  if (snake === undefined) snakeCaseNames.set(name, (snake = snakeCaseName(name)));
  return snake;
};

/**
 * Deep copy of a GraphQL result with snake_case keys. A connection selected as `{ nodes }`
 * becomes the plain array the interface embeds. (Loops rather than entries: a pools page
 * with its predictions is thousands of objects.)
 */
export function toSnakeCase(value: unknown): any {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const copy = new Array(value.length);
    for (let i = 0; i < value.length; i++) copy[i] = toSnakeCase(value[i]);
    return copy;
  }
  // A serialized scalar (DateTime gives a Date) is a value, not an object to rename.
  if (value instanceof Date) return value.toISOString();
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  if (keys.length === 1 && keys[0] === 'nodes' && Array.isArray(object.nodes)) return toSnakeCase(object.nodes);
  const copy: Record<string, unknown> = {};
  for (const key of keys) copy[snakeCaseKey(key)] = toSnakeCase(object[key]);
  return copy;
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
