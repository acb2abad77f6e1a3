import { requireViewer } from '../auth/viewer.js';
import { parseId } from '../common/ids.js';
import { getNamedType, isObjectType } from 'graphql';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { objectRoot, type OwnedRendering, renderedObject, type RootFieldRenderer } from '../../read/rendered-read.js';
import type { ObjectSpec } from '../../read/nested-read.js';
import { USER_READ } from '../common/read-specs.js';
import { walletAddressOf } from './user-lookup.service.js';
import { renderedPortfolio } from '../viewer/portfolio.rendered.js';
import { apiKeys, deviceTokens, referralCodes, refreshTokens } from '../../../schema/index.js';

/**
 * The viewer's own rows of `table`, oldest first as groupLoader lists them (created_at to the millisecond, then id); null (the
 * executor answers) where a field does not render.
 */
function ownRows(table: PgTable & { userId: PgColumn; createdAt: PgColumn }): NonNullable<OwnedRendering['values'][string]> {
  // Each row's user is the viewer, whose public fields render under it.
  const spec: ObjectSpec = { table, relations: { user: { kind: 'one', target: () => USER_READ, parentKey: 'userId', childKey: 'id' } } };
  return (definition, nodes, walk) => {
    const type = getNamedType(definition.type);
    const object = isObjectType(type) ? renderedObject(type, spec, nodes, walk) : null;
    if (!object) return null;
    return (alias, statement) =>
      statement.rowsWhere(
        object,
        (row) => `${row}."${table.userId.name}" = ${alias}."id"`,
        (row) => `date_trunc('milliseconds', ${row}."${table.createdAt.name}"), ${row}."id"`,
      );
  };
}

/**
 * Each row is chosen by the key its service reads it by, with that service's checks (findUser, findUserByWallet, findViewer).
 * Private fields' resolvers check the viewer, so under `user` and `userByWallet` a selection holding one is executed, never rendered.
 * `viewer` is the signed-in user's own row, its owned parts and email included (signed out, the executor reports UNAUTHENTICATED).
 */
export const USER_ROOT_RENDERERS: Record<string, RootFieldRenderer> = {
  user: objectRoot('id', (_ctx, args) => parseId(args.id as string, 'id')),
  userByWallet: objectRoot('walletAddress', (_ctx, args) => walletAddressOf(args.address as string)),
  viewer: objectRoot('id', (ctx) => requireViewer(ctx.viewer).userId, {
    values: {
      portfolio: renderedPortfolio,
      refreshTokens: ownRows(refreshTokens),
      deviceTokens: ownRows(deviceTokens),
      apiKeys: ownRows(apiKeys),
      createdReferralCodes: ownRows(referralCodes),
    },
    columns: new Set(['email']),
  }),
};
