import { getArgumentValues, getNamedType, type GraphQLObjectType } from 'graphql';
import type { PoolRow } from '../../../schema/index.js';
import { RENDERED, type ReadPlan } from '../../db/nested-read.js';
import { renderedConnection, type RootFieldRenderer, writeConnection } from '../common/rendered-read.js';
import { POOL_READ } from '../common/read-specs.js';
import { type ListPoolsInput, listPools } from './pool.service.js';

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

const renderedOf = (row: PoolRow) => (row as unknown as { [RENDERED]: string[] })[RENDERED];

/** The root fields of the pools module that a rendered read answers. */
export const POOL_ROOT_RENDERERS: Record<string, RootFieldRenderer> = { pools: renderPools };
