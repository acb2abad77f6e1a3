import { objectRoot, type RootFieldRenderer } from '../common/rendered-read.js';
import { findViewer } from '../users/user.service.js';
import { findUser, findUserByWallet } from './user-lookup.service.js';

/**
 * The user root fields a rendered read answers, through the resolvers' own service calls.
 * Private fields have resolvers that check the viewer, so a selection holding one is
 * never rendered: it is executed, and the service layer authorizes it.
 */
export const USER_ROOT_RENDERERS: Record<string, RootFieldRenderer> = {
  user: objectRoot((ctx, args, plan) => findUser(ctx, args.id as string, plan)),
  userByWallet: objectRoot((ctx, args, plan) => findUserByWallet(ctx, args.address as string, plan)),
  viewer: objectRoot((ctx, _args, plan) => findViewer(ctx, plan)),
};
