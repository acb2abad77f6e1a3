import type { FastifyReply } from 'fastify';

/** What {@link withinBudget} resolves to when the budget ran out first. */
export const TIMED_OUT: unique symbol = Symbol('timed out');

/**
 * `work`'s result, or {@link TIMED_OUT} once `budgetMs` have passed without one. The work
 * is not stopped (graphql-js cannot abandon an execution), only no longer waited for; its
 * late result or failure is dropped.
 */
export async function withinBudget<T>(budgetMs: number, work: Promise<T>): Promise<T | typeof TIMED_OUT> {
  if (budgetMs <= 0) return work;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(resolve, budgetMs, TIMED_OUT);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Answers a request whose budget ran out: 504 with an OPERATION_TIMEOUT error. A mutation
 * cut off this way may still complete; clients read the state before they retry one.
 */
export function sendTimeout(reply: FastifyReply, budgetMs: number): FastifyReply {
  return reply
    .code(504)
    .type('application/json; charset=utf-8')
    .send({
      errors: [
        {
          message: `The request did not complete within its time budget of ${budgetMs} ms`,
          extensions: { code: 'OPERATION_TIMEOUT', budgetMs },
        },
      ],
    });
}
