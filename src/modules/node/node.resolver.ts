import { Arg, Ctx, ID, Query, Resolver } from 'type-graphql';
import type { ResolverContext } from '../context.js';
import { findNodes, MAX_NODE_IDS } from './node.service.js';
import { Node } from './node.type.js';

@Resolver(() => Node)
export class NodeResolver {
  @Query(() => Node, {
    nullable: true,
    description: 'Any object with an id, whatever its type; null when there is none, or when it is private to someone else.',
  })
  async node(@Arg('id', () => ID, { description: 'The id of any Node.' }) id: string, @Ctx() ctx: ResolverContext) {
    const [found] = await findNodes(ctx, [id], 'id');
    return found ?? null;
  }

  @Query(() => [Node], {
    nullable: 'items',
    description:
      `The objects of several ids at once, in the order given, of any types; null for each id \`node\` would answer ` +
      `null for. At most ${MAX_NODE_IDS} ids.`,
  })
  nodes(@Arg('ids', () => [ID], { description: `Up to ${MAX_NODE_IDS} ids of any Nodes.` }) ids: string[], @Ctx() ctx: ResolverContext) {
    return findNodes(ctx, ids, 'ids');
  }
}
