import type { RootFieldRenderer } from '../../read/rendered-read.js';
import { renderedObjectList } from '../node/node.rendered.js';
import { findRenderedEntities, representationsOf } from './federation.service.js';
import { ENTITY_TYPE_NAMES } from './federation.type.js';

/**
 * `_entities`: a router's fetch of N entities is one statement writing each one's JSON from its type's table. A type asked for whose
 * selection does not render leaves the operation to the executor.
 */
export const FEDERATION_ROOT_RENDERERS: Record<string, RootFieldRenderer> = {
  _entities: renderedObjectList((ctx, args, objects) =>
    findRenderedEntities(ctx, representationsOf(args.representations, ENTITY_TYPE_NAMES), objects),
  ),
};
