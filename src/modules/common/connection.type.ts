import { type ClassType, Field, Int, ObjectType } from 'type-graphql';

// Every object type here sets `simpleResolvers: true`: plain fields then use graphql's
// default resolver instead of a type-graphql wrapper allocating per field and row. No
// object type has field middlewares or field-level auth, which that wrapper would run.

@ObjectType({ simpleResolvers: true, description: 'Relay page information of a connection.' })
export class PageInfo {
  @Field(() => Boolean)
  hasNextPage!: boolean;

  @Field(() => Boolean, { description: 'Always false: lists page forward only.' })
  hasPreviousPage!: boolean;

  @Field(() => String, { nullable: true })
  startCursor!: string | null;

  @Field(() => String, { nullable: true })
  endCursor!: string | null;
}

/**
 * A Relay connection type over `Node`: `edges { cursor node }`, `nodes`, `pageInfo`,
 * `totalCount`. The runtime value is a `Page` (modules/common/pagination.ts).
 */
export function Connection<Node extends object>(name: string, node: ClassType<Node>) {
  @ObjectType(`${name}Edge`, { simpleResolvers: true })
  class Edge {
    @Field(() => String, { description: 'Opaque cursor; pass it as `after` to continue after this node.' })
    cursor!: string;

    @Field(() => node)
    node!: Node;
  }

  @ObjectType({ simpleResolvers: true })
  abstract class ConnectionType {
    @Field(() => [Edge])
    edges!: Edge[];

    @Field(() => [node], { description: 'The nodes of `edges`, without cursors.' })
    nodes!: Node[];

    @Field(() => PageInfo)
    pageInfo!: PageInfo;

    @Field(() => Int, { description: 'Number of nodes in the whole list, regardless of paging.' })
    totalCount!: number;
  }
  return ConnectionType;
}
