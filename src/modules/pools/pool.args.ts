import { ArgsType, Field, ID, InputType, registerEnumType } from 'type-graphql';
import { OffsetPageArgs } from '../common/page.args.js';
import { DateTime } from '../common/scalars.js';
import { POOL_SORTS, type PoolSort } from './pool.service.js';
import { POOL_STATUS_FILTERS, type PoolStatusFilter } from './pool-status.js';
import { enumObject } from '../common/enums.js';

const PoolStatusFilterEnum = enumObject(POOL_STATUS_FILTERS);
registerEnumType(PoolStatusFilterEnum, {
  name: 'PoolStatusFilter',
  description:
    'Lifecycle states of a pool, computed at request time from its dates, status and resolution (Pool.status only ' +
    'records what an operator froze); several mean any of them.',
  valuesConfig: {
    ACTIVE: { description: 'Open for predictions now: status ACTIVE, not closed, inside the prediction window.' },
    ENDED: { description: 'The prediction window has ended (resolved or not).' },
    RESOLVED: { description: 'Has a resolution.' },
    NOT_RESOLVED: { description: 'The prediction window has ended and there is no resolution yet.' },
  },
});

const PoolSortEnum = enumObject(POOL_SORTS);
registerEnumType(PoolSortEnum, {
  name: 'PoolSort',
  description: 'Order of a pool list; ties are broken by id.',
  valuesConfig: {
    END_DATE: { description: 'Soonest prediction end first.' },
    CREATION_DATE: { description: 'Newest first.' },
    OLD_CREATION_DATE: { description: 'Oldest first.' },
    VOLUME_HIGH: { description: 'Highest total volume first.' },
    VOLUME_LOW: { description: 'Lowest total volume first.' },
  },
});

@InputType({ description: 'Conditions a listed pool meets; all given conditions must hold.' })
export class PoolFilter {
  @Field(() => [PoolStatusFilterEnum], {
    nullable: true,
    description: 'Pools in any of these lifecycle states (not Pool.status); all states when omitted or empty.',
  })
  status?: PoolStatusFilter[] | null;

  @Field(() => ID, { nullable: true, description: 'Pools of this streak.' })
  streakId?: string | null;

  @Field(() => DateTime, { nullable: true, description: 'Pools whose reference date falls on the same UTC day.' })
  referenceDate?: Date | null;

  @Field(() => ID, { nullable: true, description: 'Pools created by this user.' })
  createdBy?: string | null;
}

@ArgsType()
export class PoolsArgs extends OffsetPageArgs {
  @Field(() => PoolFilter, { nullable: true, description: 'Conditions the pools meet; all pools when omitted.' })
  filter?: PoolFilter | null;

  @Field(() => PoolSortEnum, {
    nullable: true,
    defaultValue: 'END_DATE',
    description: 'Order of the list; a cursor continues only the order that issued it.',
  })
  sort?: PoolSort | null;

  @Field(() => String, {
    nullable: true,
    description: 'Full-text search over title and description: every word must start a word of either.',
  })
  search?: string | null;
}
