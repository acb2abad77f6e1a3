import { eq } from 'drizzle-orm';
import { pools, type PoolRow } from '../../../schema/index.js';
import { AppError } from '../../errors.js';
import { requireRole } from '../auth/viewer.js';
import { parseId } from '../common/ids.js';
import type { ServiceContext } from '../context.js';
import type { Db } from '../../db/client.js';

/** Sets (or with null, removes) a pool's image: any uploaded image. ADMIN only. */
export async function updatePoolImage(ctx: ServiceContext, input: { poolId: string; imageId: string | null }): Promise<PoolRow> {
  requireRole(ctx.viewer, 'ADMIN');
  const poolId = parseId(input.poolId, 'poolId');
  const imageId = input.imageId == null ? null : parseId(input.imageId, 'imageId');
  if (imageId && !(await ctx.loaders.imageById.load(imageId)))
    throw new AppError('NOT_FOUND', `No image has id ${imageId}`, { argumentName: 'imageId' });
  const pool = await ctx.database.db.transaction(async (tx) => {
    const t = tx as unknown as Db;
    const [changed] = await t.update(pools).set({ imageId, updatedAt: ctx.now }).where(eq(pools.id, poolId)).returning();
    if (!changed) throw new AppError('NOT_FOUND', `No pool has id ${poolId}`, { argumentName: 'poolId' });
    await ctx.events.publishIn(t, [{ type: 'poolUpdated', poolId }]);
    return changed;
  });
  ctx.loaders.poolById.clear(poolId);
  return pool;
}
