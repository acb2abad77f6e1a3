import { ArgsType, Field, Int } from 'type-graphql';
import { DEFAULT_PAGE_SIZE, MAX_OFFSET, MAX_PAGE_SIZE } from './pagination.js';

@ArgsType()
export class PageArgs {
  @Field(() => Int, { nullable: true, defaultValue: DEFAULT_PAGE_SIZE, description: `Page size, 1 to ${MAX_PAGE_SIZE}.` })
  first?: number | null;

  @Field(() => String, { nullable: true, description: 'Cursor of the node to continue after.' })
  after?: string | null;
}

/** Page arguments of lists that may also be paged by position (pools). */
@ArgsType()
export class OffsetPageArgs extends PageArgs {
  @Field(() => Int, {
    nullable: true,
    description: `Rows to skip before the page, 0 to ${MAX_OFFSET}; not with \`after\` (cursors are the cheaper way to page far).`,
  })
  offset?: number | null;
}
