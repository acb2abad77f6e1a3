import type { RootFieldRenderer } from '../common/rendered-read.js';
import { unreadNotificationCount } from './notification.service.js';

/**
 * `unreadNotificationCount` beside a rendered read (the viewer's page asks both): the
 * resolver's own service call (the viewer's count, UNAUTHENTICATED when signed out, which
 * leaves the query to the executor to report), written as JSON.
 */
export const NOTIFICATION_ROOT_RENDERERS: Record<string, RootFieldRenderer> = {
  unreadNotificationCount: (_field, nodes) =>
    nodes.some((node) => node.arguments?.length) ? null : async (ctx) => [String(await unreadNotificationCount(ctx))],
};
