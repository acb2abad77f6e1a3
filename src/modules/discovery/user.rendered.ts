import { requireViewer } from '../auth/viewer.js';
import { parseId } from '../common/ids.js';
import { objectRoot, type RootFieldRenderer } from '../../read/rendered-read.js';
import { walletAddressOf } from './user-lookup.service.js';
import { renderedPortfolio } from '../viewer/portfolio.rendered.js';
import { renderedColumn } from '../../read/columns.js';
import { users } from '../../../schema/index.js';

/**
 * The user root fields a rendered read answers, each row chosen by the key its service
 * reads it by, with the service's checks (findUser, findUserByWallet, findViewer).
 * Private fields have resolvers that check the viewer, so under `user` and `userByWallet` a
 * selection holding one is never rendered: it is executed, and the service layer authorizes
 * it. Under `viewer` the row is the signed-in user's own (UNAUTHENTICATED when signed out,
 * which leaves the query to the executor to report), so its owned parts (the spec's owned
 * relations, the portfolio, the email) render as well.
 */
export const USER_ROOT_RENDERERS: Record<string, RootFieldRenderer> = {
  user: objectRoot('id', (_ctx, args) => parseId(args.id as string, 'id')),
  userByWallet: objectRoot('walletAddress', (_ctx, args) => walletAddressOf(args.address as string)),
  // The signed-in user's own row: its owned parts render too (its email is the row's own column).
  viewer: objectRoot('id', (ctx) => requireViewer(ctx.viewer).userId, {
    values: { portfolio: renderedPortfolio, email: () => renderedColumn(users, 'email')!.sql },
  }),
};
