import { ArgsType, Field, Int } from 'type-graphql';
import { DEFAULT_PAGE_SIZE, MAX_OFFSET, MAX_PAGE_SIZE } from './pagination.js';

/**
 * Relay cursor-connection arguments: forward with `first`/`after`, backward with
 * `last`/`before` (modules/common/pagination.ts). Neither size has a schema default, so a
 * query giving only `last` is not also given a `first`; with neither, the page is the
 * first DEFAULT_PAGE_SIZE nodes.
 */
@ArgsType()
export class PageArgs {
  @Field(() => Int, {
    nullable: true,
    description:
      `Page forward: this many nodes from the start of the list, or after \`after\`; 1 to ${MAX_PAGE_SIZE}, ` +
      `${DEFAULT_PAGE_SIZE} when neither first nor last is given. Not with \`last\` or \`before\`.`,
  })
  first?: number | null;

  @Field(() => String, {
    nullable: true,
    description: 'Cursor of the node to continue after (an endCursor or edge cursor of the same list and order); with `first`.',
  })
  after?: string | null;

  @Field(() => Int, {
    nullable: true,
    description:
      `Page backward: this many nodes from the end of the list, or just before \`before\`; 1 to ${MAX_PAGE_SIZE}. ` +
      `Not with \`first\` or \`after\`. Nodes still come in the list's order.`,
  })
  last?: number | null;

  @Field(() => String, {
    nullable: true,
    description: 'Cursor of the node to page back from (a startCursor or edge cursor of the same list and order); with `last`.',
  })
  before?: string | null;
}

/** Page arguments of lists that may also be paged by position (pools). */
@ArgsType()
export class OffsetPageArgs extends PageArgs {
  @Field(() => Int, {
    nullable: true,
    description:
      `Rows to skip before the page, 0 to ${MAX_OFFSET}; forward only, not with \`after\`, \`last\` or \`before\` ` +
      `(cursors are the cheaper way to page far).`,
  })
  offset?: number | null;
}
