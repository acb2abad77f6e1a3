import { objectRoot, type RootFieldRenderer } from '../common/rendered-read.js';
import { findViewer } from '../users/user.service.js';
import { findUser, findUserByWallet } from './user-lookup.service.js';
import { renderedPortfolio } from '../viewer/portfolio.rendered.js';

/**
 * The user root fields a rendered read answers, through the resolvers' own service calls.
 * Private fields have resolvers that check the viewer, so under `user` and `userByWallet` a
 * selection holding one is never rendered: it is executed, and the service layer authorizes
 * it. Under `viewer` the row is the signed-in user's own (findViewer reads no other), so its
 * owned parts (the spec's owned relations, the portfolio) render as well.
 */
export const USER_ROOT_RENDERERS: Record<string, RootFieldRenderer> = {
  user: objectRoot((ctx, args, plan) => findUser(ctx, args.id as string, plan)),
  userByWallet: objectRoot((ctx, args, plan) => findUserByWallet(ctx, args.address as string, plan)),
  // findViewer reads the signed-in user's own row: its owned parts render too.
  viewer: objectRoot((ctx, _args, plan) => findViewer(ctx, plan), { values: { portfolio: renderedPortfolio } }),
};
