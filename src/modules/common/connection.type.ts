import { Directive, Field, Int, ObjectType, type ClassType } from 'type-graphql';
import { INHERITED } from './cache-hints.js';

// Every object type here sets `simpleResolvers: true`: plain fields then use graphql's
// default resolver instead of a type-graphql wrapper allocating per field and row. No
// object type has field middlewares or field-level auth, which that wrapper would run.

@Directive(INHERITED)
@ObjectType({ simpleResolvers: true, description: 'Relay page information of a connection.' })
export class PageInfo {
  // The two flags are `simple: false`: on the far side of a cursor a flag is looked up only
  // when selected (a promise, see PageInfoValue in pagination.ts), and compiled execution
  // awaits a field's value only when the field has a resolver.
  @Field(() => Boolean, {
    simple: false,
    description: 'Whether nodes follow this page in the list’s order: after endCursor, whichever direction the page was read in.',
  })
  hasNextPage!: boolean;

  @Field(() => Boolean, {
    simple: false,
    description: 'Whether nodes precede this page in the list’s order: before startCursor, whichever direction the page was read in.',
  })
  hasPreviousPage!: boolean;

  @Field(() => String, {
    nullable: true,
    description: 'Cursor of the first node of the page (pass it as `before` to page back); null when the page is empty.',
  })
  startCursor!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Cursor of the last node of the page (pass it as `after` to page on); null when the page is empty.',
  })
  endCursor!: string | null;
}

/**
 * A Relay connection type over `Node`: `edges { cursor node }`, `nodes`, `pageInfo`,
 * `totalCount`. The runtime value is a `Page` (modules/common/pagination.ts).
 */
export function Connection<Node extends object>(name: string, node: ClassType<Node>) {
  @Directive(INHERITED)
  @ObjectType(`${name}Edge`, { simpleResolvers: true, description: `A ${name} of a page, with its cursor.` })
  class Edge {
    @Field(() => String, {
      description: 'Opaque cursor of this node: pass it as `after` to continue after it, or as `before` to page back from it.',
    })
    cursor!: string;

    @Field(() => node, { description: 'The node itself.' })
    node!: Node;
  }

  @ObjectType({ simpleResolvers: true })
  abstract class ConnectionType {
    @Field(() => [Edge], { description: 'The nodes of the page with their cursors, in the list’s order.' })
    edges!: Edge[];

    @Field(() => [node], { description: 'The nodes of `edges`, without cursors.' })
    nodes!: Node[];

    @Field(() => PageInfo, { description: 'Where the page lies in the list: its end cursors and whether nodes precede or follow it.' })
    pageInfo!: PageInfo;

    @Field(() => Int, { description: 'Number of nodes in the whole list, regardless of paging.' })
    totalCount!: number;
  }
  return ConnectionType;
}
