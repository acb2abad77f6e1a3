import { parseId } from '../common/ids.js';
import { connectionRoot, objectRoot, type RootFieldRenderer } from '../../read/rendered-read.js';
import { type ListPoolsInput, renderedPools } from './pool.service.js';

/** `pools` through the service listing listPools makes (filters, search, sort, paging, cursors, count); `pool(id)` as findPool checks. */
export const POOL_ROOT_RENDERERS: Record<string, RootFieldRenderer> = {
  pools: connectionRoot((ctx, args, rendering) => renderedPools(ctx, args as ListPoolsInput, rendering)),
  pool: objectRoot('id', (_ctx, args) => parseId(args.id as string, 'id')),
};
