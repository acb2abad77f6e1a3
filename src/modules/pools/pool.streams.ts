import { AppError } from '../../errors.js';
import { parseId } from '../common/ids.js';
import type { ServiceContext } from '../context.js';
import { eventStream, ScopedEvent } from '../events/event-stream.js';

/**
 * Changes of one pool (stake volume, status, resolution), as the pool's id per change;
 * the subscriber resolves the pool with the loaders of each event, so an item shows the
 * pool as it is when the item is delivered (a replayed one too), not as the change left it.
 * With `afterSequence`, the changes after it are replayed first. NOT_FOUND for no such pool.
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
  return eventStream<string>({
    follow(push) {
      following = ctx.events.follow(topic, after, (event, scope) => {
        if (event.type === type) push(new ScopedEvent(event.poolId, scope));
      });
      return following.stop;
    },
    initial: async () =>
      (await following.missed()).flatMap(({ event, scope }) => (event.type === type ? [new ScopedEvent(event.poolId, scope)] : [])),
  });
}
