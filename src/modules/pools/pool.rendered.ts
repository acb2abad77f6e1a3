import { parseId } from '../common/ids.js';
import { connectionRoot, objectRoot, type RootFieldRenderer } from '../../read/rendered-read.js';
import { type ListPoolsInput, renderedPools } from './pool.service.js';

/**
 * The root fields of the pools module that a rendered read answers: `pools` through the
 * service's listing the resolver's listPools makes (filters, search, sort, keyset and offset paging, cursors, the count
 * and the page flags), `pool(id)` by its id as findPool checks it; the statement writes the pools' JSON.
 */
export const POOL_ROOT_RENDERERS: Record<string, RootFieldRenderer> = {
  pools: connectionRoot((ctx, args, rendering) => renderedPools(ctx, args as ListPoolsInput, rendering)),
  pool: objectRoot('id', (_ctx, args) => parseId(args.id as string, 'id')),
};
