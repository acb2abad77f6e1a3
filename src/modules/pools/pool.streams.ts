import type { PoolRow } from '../../../schema/index.js';
import { AppError } from '../../errors.js';
import { parseId } from '../common/ids.js';
import type { ServiceContext } from '../context.js';
import type { EventScope } from '../events/event-hub.js';
import type { CommittedEvent } from '../events/events.js';
import { eventStream, ScopedEvent } from '../events/event-stream.js';

/**
 * Changes of one pool (stake volume, status, resolution), as the pool's row each change
 * committed (carried by its event): an item shows the pool as that change left it, a
 * replayed one too, never a later state. Its relations are resolved as in any read, with
 * the event's loaders, in which the committed row stands for the pool. With
 * `afterSequence`, the changes after it are replayed first. NOT_FOUND for no such pool.
 */
export async function followPool(ctx: ServiceContext, poolIdArgument: string, afterSequence: string | null) {
  const poolId = parseId(poolIdArgument, 'poolId');
  if (!(await ctx.loaders.poolById.load(poolId))) throw new AppError('NOT_FOUND', 'No pool has this id', { argumentName: 'poolId' });
  return poolEvents(ctx, { pool: poolId }, 'poolUpdated', await ctx.events.resumePoint(afterSequence));
}

/** Pools as they are created, as their ids; with `afterSequence`, those created after it first. */
export async function followNewPools(ctx: ServiceContext, afterSequence: string | null) {
  return poolEvents(ctx, { poolCreated: true }, 'poolCreated', await ctx.events.resumePoint(afterSequence));
}

function poolEvents(
  ctx: ServiceContext,
  topic: { pool: string } | { poolCreated: true },
  type: 'poolUpdated' | 'poolCreated',
  after: number | null,
) {
  let following: ReturnType<ServiceContext['events']['follow']>;
  /** The event's item: its committed row, or (an event an older version wrote without one) the pool's id, read as before. */
  const itemOf = (event: CommittedEvent, scope: EventScope): Array<ScopedEvent<PoolRow | string>> => {
    if (event.type !== type) return [];
    if (!event.pool) return [new ScopedEvent(event.poolId, scope)];
    scope.loaders.poolById.prime(event.pool.id, event.pool);
    return [new ScopedEvent(event.pool, scope)];
  };
  return eventStream<PoolRow | string>({
    follow(push) {
      following = ctx.events.follow(topic, after, (event, scope) => {
        for (const item of itemOf(event, scope)) push(item);
      });
      return following.stop;
    },
    initial: async () => (await following.missed()).flatMap(({ event, scope }) => itemOf(event, scope)),
  });
}
