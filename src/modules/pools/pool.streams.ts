import { AppError } from '../../errors.js';
import { parseId } from '../common/ids.js';
import type { ServiceContext } from '../context.js';
import { eventStream, ScopedEvent } from '../events/event-stream.js';

/**
 * Changes of one pool (stake volume, status, resolution), as the pool's id per change;
 * the subscriber resolves the pool with the loaders of each event. NOT_FOUND for no such pool.
 */
export async function followPool(ctx: ServiceContext, poolIdArgument: string) {
  const poolId = parseId(poolIdArgument, 'poolId');
  if (!(await ctx.loaders.poolById.load(poolId))) throw new AppError('NOT_FOUND', 'No pool has this id', { argumentName: 'poolId' });
  return eventStream<string>({
    follow: (push) =>
      ctx.events.on({ pool: poolId }, (event, scope) => {
        if (event.type === 'poolUpdated') push(new ScopedEvent(event.poolId, scope));
      }),
  });
}

/** Pools as they are created, as their ids. */
export function followNewPools(ctx: ServiceContext) {
  return eventStream<string>({
    follow: (push) =>
      ctx.events.on({ poolCreated: true }, (event, scope) => {
        if (event.type === 'poolCreated') push(new ScopedEvent(event.poolId, scope));
      }),
  });
}
