import type { RootFieldRenderer } from '../../read/rendered-read.js';
import { renderedNodeObjects, unrendered } from '../node/node.rendered.js';
import { findRenderedEntities, representationsOf } from './federation.service.js';
import { ENTITY_TYPE_NAMES } from './federation.type.js';

/**
 * `_entities`: a router's fetch of N entities is one statement writing each one's JSON from its type's table. A type asked for whose
 * selection does not render leaves the operation to the executor.
 */
export const FEDERATION_ROOT_RENDERERS: Record<string, RootFieldRenderer> = {
  _entities: (field, nodes, walk) => {
    const objects = renderedNodeObjects(field, nodes, walk);
    if (!objects) return null;
    return async (ctx, args) => {
      const found = await findRenderedEntities(ctx, representationsOf(args.representations, ENTITY_TYPE_NAMES), objects);
      if (!found) throw unrendered();
      return ['[', ...found.flatMap((json, i) => (i ? [',', json] : [json])), ']'];
    };
  },
};
