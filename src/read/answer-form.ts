/**
 * The forms a read's answer is written in: GraphQL's, as the executor answers; or the REST
 * form of the interface (docs/rest.md), where every object of the read graph has its keys in
 * snake_case and a nested page selected as `{ nodes }` is the array of its nodes. A rendered
 * read writes either in SQL (read/rendered-read.ts), so a REST route sends the statement's
 * text as it is, as /graphql does. A root field's key and a root connection's own members
 * (nodes, totalCount, pageInfo) keep GraphQL's names in both: they are where a REST route
 * finds what it answers.
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
