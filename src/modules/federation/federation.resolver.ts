import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Directive, Info, Query, Resolver } from 'type-graphql';
import { PUBLIC } from '../common/cache-hints.js';
import type { ResolverContext } from '../context.js';
import { findEntities, MAX_REPRESENTATIONS, representationsOf } from './federation.service.js';
import { subgraphSdl } from './federation.sdl.js';
import { AnyScalar, ENTITY_TYPE_NAMES, EntityUnion, SubgraphService } from './federation.type.js';

/**
 * The two root fields that make poolgraph an Apollo Federation subgraph (FEDERATION_SUBGRAPH):
 * a router reads the schema with `_service`, and resolves entities other subgraphs return or
 * extend with `_entities`. A rendered read answers `_entities` with one statement
 * (federation.rendered.ts); this resolver is the executed path.
 */
@Resolver()
export class FederationResolver {
  // Every entity type is public data: the answer is as cacheable as the fields selected.
  @Directive(PUBLIC)
  @Query(() => [EntityUnion], {
    nullable: 'items',
    description: `The entities of the representations, in order; null for one naming no object of its type. At most ${MAX_REPRESENTATIONS}.`,
  })
  _entities(
    @Arg('representations', () => [AnyScalar], { description: 'Entity representations: `__typename` and `id`.' })
    representations: unknown[],
    @Ctx() ctx: ResolverContext,
  ) {
    return findEntities(ctx, representationsOf(representations, ENTITY_TYPE_NAMES));
  }

  @Query(() => SubgraphService, { description: 'This subgraph as a router composing a supergraph reads it.' })
  _service(@Info() info: GraphQLResolveInfo): SubgraphService {
    return { sdl: subgraphSdl(info.schema) };
  }
}
