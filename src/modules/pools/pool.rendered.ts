import { getArgumentValues, getNamedType, type GraphQLObjectType } from 'graphql';
import type { PoolRow } from '../../../schema/index.js';
import { RENDERED, type ReadPlan } from '../../db/nested-read.js';
import { renderedConnection, renderedObject, type RootFieldRenderer, writeConnection } from '../common/rendered-read.js';
import { POOL_READ } from '../common/read-specs.js';
import { findPool, type ListPoolsInput, listPools } from './pool.service.js';

/**
 * `pools` as a rendered read: the same listPools (filters, search, sort, keyset and offset
 * paging, cursors, the count and the page flags) the resolver calls, with a plan whose
 * rows carry their nodes' JSON as the statement wrote it.
 */
const renderPools: RootFieldRenderer = (field, nodes, walk) => {
  const connection = renderedConnection(getNamedType(field.type) as GraphQLObjectType, POOL_READ, nodes, walk);
  if (!connection) return null;
  let input: ListPoolsInput;
  try {
    input = getArgumentValues(field, nodes[0]!, walk.variables) as ListPoolsInput;
  } catch {
    return null;
  }
  const plan: ReadPlan = { spec: POOL_READ, columns: new Set(['id', 'createdAt']), relations: new Map(), rendered: connection.objects };
  return async (ctx) => writeConnection(await listPools(ctx, input, plan), connection, renderedOf);
};

/** `pool(id)` as a rendered read: the resolver's findPool, the pool's JSON written by the statement, or null. */
const renderPool: RootFieldRenderer = (field, nodes, walk) => {
  const object = renderedObject(getNamedType(field.type) as GraphQLObjectType, POOL_READ, nodes, walk);
  if (!object) return null;
  let id: string;
  try {
    ({ id } = getArgumentValues(field, nodes[0]!, walk.variables) as { id: string });
  } catch {
    return null;
  }
  const plan: ReadPlan = { spec: POOL_READ, columns: new Set(['id']), relations: new Map(), rendered: [object] };
  return async (ctx) => {
    const pool = await findPool(ctx, id, plan);
    return [pool ? renderedOf(pool)[0]! : 'null'];
  };
};

const renderedOf = (row: PoolRow) => (row as unknown as { [RENDERED]: string[] })[RENDERED];

/** The root fields of the pools module that a rendered read answers. */
export const POOL_ROOT_RENDERERS: Record<string, RootFieldRenderer> = { pools: renderPools, pool: renderPool };
