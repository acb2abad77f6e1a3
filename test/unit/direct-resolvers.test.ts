import { type GraphQLObjectType, type GraphQLResolveInfo } from 'graphql';
import { describe, expect, it } from 'vitest';
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
    // A context with an empty loader graph: an amount never reaches it.
    const context = { loaders: { graph: {} } };
    return (root: unknown, args: Record<string, unknown>) => resolve(root, args, context, {} as GraphQLResolveInfo);
  };

  it('converts amounts synchronously, as the resolver does', async () => {
    const stake = await resolverOf('Prediction', 'stake');
    expect(stake(row('a', 1), {})).toBe(1.234567);
  });
});
