import { connectionRoot, objectRoot, type RootFieldRenderer } from '../common/rendered-read.js';
import { findPool, type ListPoolsInput, listPools } from './pool.service.js';

/**
 * The root fields of the pools module that a rendered read answers: `pools` through the
 * resolver's listPools (filters, search, sort, keyset and offset paging, cursors, the count
 * and the page flags), `pool(id)` through its findPool; the statement writes the pools' JSON.
 */
export const POOL_ROOT_RENDERERS: Record<string, RootFieldRenderer> = {
  pools: connectionRoot((ctx, args, plan) => listPools(ctx, args as ListPoolsInput, plan)),
  pool: objectRoot((ctx, args, plan) => findPool(ctx, args.id as string, plan)),
};
