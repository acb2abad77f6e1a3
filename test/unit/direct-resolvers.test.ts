import { type GraphQLObjectType, type GraphQLResolveInfo } from 'graphql';
import { describe, expect, it } from 'vitest';
import { PREFETCHED } from '../../src/read/nested-read.js';
import { pageKey, parseNewestFirstPage } from '../../src/modules/common/loaders.js';
import { getSchema } from '../../src/server/schema.js';

/**
 * The read path's hot field resolvers are called directly (src/server/schema.ts), not
 * through type-graphql's wrapper, whose async argument step answered every resolver with
 * arguments as a promise (extra ticks per pool). The same resolver code runs.
 */
describe('field resolvers called directly', () => {
  const at = (minute: number) => new Date(Date.UTC(2026, 10, 23, 20, minute));
  const row = (id: string, minute: number) => ({ id, createdAt: at(minute), decimals: 6, stake: 1_234_567n });
  const resolverOf = async (type: string, field: string) => {
    const schema = await getSchema();
    const resolve = (schema.getType(type) as GraphQLObjectType).getFields()[field]!.resolve!;
    // A context with an empty loader graph: a prefetched relation never reaches it.
    const context = { loaders: { graph: {} } };
    return (root: unknown, args: Record<string, unknown>) => resolve(root, args, context, {} as GraphQLResolveInfo);
  };

  it('answers a prefetched page synchronously, from the arguments given', async () => {
    const predictions = await resolverOf('Pool', 'predictions');
    const page = parseNewestFirstPage({ first: 2 });
    const rows = [row('c', 3), row('b', 2), row('a', 1)];
    const pool = { id: 'p', [PREFETCHED]: { [pageKey('predictions', page)]: { rows, total: 3, beyondCursor: null } } };
    const answer = predictions(pool, { first: 2 }) as {
      nodes: Array<{ id: string }>;
      pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean };
      totalCount: number;
    };
    expect(answer).not.toBeInstanceOf(Promise);
    expect(answer.nodes.map((node) => node.id)).toEqual(['c', 'b']);
    expect(answer.pageInfo.hasNextPage).toBe(true);
    expect(answer.pageInfo.hasPreviousPage).toBe(false);
    expect(answer.totalCount).toBe(3);
  });

  it('converts amounts synchronously, as the resolver does', async () => {
    const stake = await resolverOf('Prediction', 'stake');
    expect(stake(row('a', 1), {})).toBe(1.234567);
  });
});
