import type { RenderedObject } from '../../read/nested-read.js';
import { readRenderedByIds } from '../../read/nested-read.js';
import { badInput } from '../../errors.js';
import { isUuid } from '../common/ids.js';
import type { ServiceContext } from '../context.js';
import { findNodes, NODE_TYPE, publicObjects, subsetOf } from '../node/node.service.js';

/**
 * The most representations one `_entities` call takes. A router asks for every entity of
 * one fetch at once (a page of 100 pools with 10 predictions each is 1,000), so this is
 * more than `nodes` takes; the operation's cost counts each representation (server/limits.ts).
 */
export const MAX_REPRESENTATIONS = 1000;

/** An entity a router asks for: its type and its key. */
export interface EntityReference {
  type: string;
  id: string;
}

/**
 * The representations of an `_entities` call, checked: each an object naming one of
 * `entityTypes` as `__typename` and a UUID `id`; BAD_USER_INPUT naming the first that is not.
 */
export function representationsOf(representations: unknown, entityTypes: ReadonlySet<string>): EntityReference[] {
  const argument = 'representations';
  if (!Array.isArray(representations)) throw badInput(argument, `${argument} must be a list of entity representations`);
  if (representations.length > MAX_REPRESENTATIONS)
    throw badInput(argument, `${argument} takes at most ${MAX_REPRESENTATIONS} entities, got ${representations.length}`);
  return representations.map((representation: unknown, i) => {
    const at = `${argument}[${i}]`;
    if (typeof representation !== 'object' || representation === null) throw badInput(argument, `${at} must be an object`);
    const { __typename: type, id } = representation as Record<string, unknown>;
    if (typeof type !== 'string' || !entityTypes.has(type))
      throw badInput(argument, `${at}.__typename must be one of ${[...entityTypes].join(', ')}, got ${JSON.stringify(type)}`);
    if (typeof id !== 'string' || !isUuid(id)) throw badInput(argument, `${at}.id must be a UUID, got ${JSON.stringify(id)}`);
    return { type, id };
  });
}

/**
 * The entities of `references`, in order, each a row tagged with its type as `node` tags it;
 * null for a key that names no object of its type (the federation spec's answer for an
 * entity that is not there). Executed: the id lookup, then one batched load per type.
 */
export async function findEntities(ctx: ServiceContext, references: readonly EntityReference[]) {
  const rows = await findNodes(
    ctx,
    references.map((reference) => reference.id),
    'representations',
    MAX_REPRESENTATIONS,
  );
  return rows.map((row, i) => (row && (row as { [NODE_TYPE]?: string })[NODE_TYPE] === references[i]!.type ? row : null));
}

/**
 * The entities of `references` as JSON written by ONE statement (a rendered read: `objects`
 * is what the selection renders of each entity type), in order, `null` for a key naming no
 * object of its type; null when the selection does not render some type asked for, so the
 * executor answers instead.
 */
export async function findRenderedEntities(
  ctx: ServiceContext,
  references: readonly EntityReference[],
  objects: Record<string, RenderedObject>,
): Promise<string[] | null> {
  if (references.length === 0) return [];
  const types = new Set(references.map((reference) => reference.type));
  for (const type of types) if (!Object.hasOwn(objects, type)) return null;
  const probed = subsetOf(objects, types);
  const tagged = await readRenderedByIds(
    ctx.database.query,
    publicObjects(probed),
    references.map((reference) => reference.id),
    Object.keys(probed),
  );
  return tagged.map((json, i) => {
    // Tagged with the type whose table holds the id: another type's row is not this entity.
    const brace = json?.indexOf('{') ?? -1;
    return json && json.slice(0, brace) === references[i]!.type ? json.slice(brace) : 'null';
  });
}
