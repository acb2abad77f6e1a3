/**
 * GraphQL's form, as the executor answers, or the REST form (docs/rest.md): every read-graph object's keys in snake_case, a nested
 * page selected as `{ nodes }` the array of its nodes. A rendered read writes either in SQL (read/rendered-read.ts), so a REST route
 * sends the statement's text as it is, as /graphql does. Root field keys and a root connection's own members (nodes, totalCount,
 * pageInfo) keep GraphQL's names in both: a REST route finds what it answers there.
 */
export type AnswerForm = 'graphql' | 'rest';

/** A GraphQL (camelCase) name in the REST form's snake_case. */
export const snakeCaseName = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** The snake_case of each name met: a schema has a few hundred, and a large answer repeats them thousands of times. */
const snakeCaseNames = new Map<string, string>();
export const snakeCaseKey = (name: string) => {
  let snake = snakeCaseNames.get(name);
  if (snake === undefined) snakeCaseNames.set(name, (snake = snakeCaseName(name)));
  return snake;
};
