import { parseId } from '../common/ids.js';
import { connectionRoot, objectRoot, type RootFieldRenderer } from '../../read/rendered-read.js';
import { type ListPoolsInput, listPools } from './pool.service.js';

/**
 * The root fields of the pools module that a rendered read answers: `pools` through the
 * resolver's listPools (filters, search, sort, keyset and offset paging, cursors, the count
 * and the page flags), `pool(id)` by its id as findPool checks it; the statement writes the pools' JSON.
 */
export const POOL_ROOT_RENDERERS: Record<string, RootFieldRenderer> = {
  pools: connectionRoot((ctx, args, plan) => listPools(ctx, args as ListPoolsInput, plan)),
  pool: objectRoot('id', (_ctx, args) => parseId(args.id as string, 'id')),
};
