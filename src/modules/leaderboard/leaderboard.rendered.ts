import { type FieldNode, getNamedType, type GraphQLObjectType } from 'graphql';
import { type ConnectionPart, renderedRowSql, type RenderedObject } from '../../read/nested-read.js';
import { toTokens } from '../common/amounts.js';
import { selectionWriter } from '../../read/selection-json.js';
import { USER_READ } from '../common/read-specs.js';
import { connectionParts, renderedObject, type RootFieldRenderer, writeConnection } from '../../read/rendered-read.js';
import type { SelectionWalk } from '../../read/operation-walk.js';
import { leaderboard, type LeaderboardEntryRow, type LeaderboardPage } from './leaderboard.service.js';

/** An entry's own values as the resolvers give them (its user is written by the statement). */
const ENTRY_VALUES: Record<string, (row: LeaderboardEntryRow) => unknown> = {
  rank: (row) => row.rank,
  precision: (row) => row.precision,
  predictionCount: (row) => row.predictionCount,
  payout: (row) => toTokens(row.payoutUnits, row.decimals),
  staked: (row) => toTokens(row.stakedUnits, row.decimals),
};

/** Adds the entry's user rendering to `users`; null when some field does not render (a user selection with a cursor of its own, say). */
function entryWriter(
  entryType: GraphQLObjectType,
  nodes: readonly FieldNode[],
  walk: SelectionWalk,
  users: RenderedObject[],
): ((row: LeaderboardEntryRow) => string) | null {
  return selectionWriter<LeaderboardEntryRow>(entryType, nodes, walk, (name, fieldNodes) => {
    const value = ENTRY_VALUES[name];
    if (value) return (row) => JSON.stringify(value(row));
    if (name !== 'user') return null;
    const userType = getNamedType(entryType.getFields().user!.type) as GraphQLObjectType;
    const user = renderedObject(userType, USER_READ, fieldNodes, walk);
    if (!user || renderedRowSql(user, 'null') === null) return null;
    const index = users.push(user) - 1;
    return (row) => row.renderedUsers[index]!;
  });
}

/**
 * `leaderboard` through the resolver's own service call (board, count and viewer's standing in one statement), which also writes the
 * entries' users as JSON; the entries' own values are written here as their resolvers give them.
 */
const renderLeaderboard: RootFieldRenderer = (field, nodes, walk) => {
  const connection = getNamedType(field.type) as GraphQLObjectType;
  const entryType = getNamedType(connection.getFields().nodes!.type) as GraphQLObjectType;
  const users: RenderedObject[] = [];
  const writers: Array<(row: LeaderboardEntryRow) => string> = [];
  const addEntry = (fieldNodes: readonly FieldNode[]) => {
    const writer = entryWriter(entryType, fieldNodes, walk, users);
    return writer ? writers.push(writer) - 1 : null;
  };
  let viewerStanding = false;
  const viewerEntry = (key: string, fieldNodes: FieldNode[]): ConnectionPart | null => {
    if (fieldNodes[0]!.name.value !== 'viewerEntry') return null;
    viewerStanding = true;
    const writer = entryWriter(entryType, fieldNodes, walk, users);
    return (
      writer && {
        key,
        kind: 'page',
        write: (page) => ((page as LeaderboardPage).viewerEntry ? writer((page as LeaderboardPage).viewerEntry!) : 'null'),
      }
    );
  };
  const fields = connectionParts(connection, nodes, walk, addEntry, viewerEntry);
  if (!fields) return null;
  return async (ctx, args) => {
    const page = await leaderboard(ctx, args, { viewerStanding, renderedUsers: users });
    return writeConnection(page, { fields }, (row) => writers.map((write) => write(row)));
  };
};

export const LEADERBOARD_ROOT_RENDERERS: Record<string, RootFieldRenderer> = { leaderboard: renderLeaderboard };
