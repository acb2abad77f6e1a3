import type { RootFieldRenderer } from '../read/rendered-read.js';
import { USER_ROOT_RENDERERS } from './discovery/user.rendered.js';
import { FEDERATION_ROOT_RENDERERS } from './federation/federation.rendered.js';
import { LEADERBOARD_ROOT_RENDERERS } from './leaderboard/leaderboard.rendered.js';
import { NODE_ROOT_RENDERERS } from './node/node.rendered.js';
import { NOTIFICATION_ROOT_RENDERERS } from './notifications/notification.rendered.js';
import { POOL_ROOT_RENDERERS } from './pools/pool.rendered.js';
import { STREAK_ROOT_RENDERERS } from './streaks/streak.rendered.js';

/** Every module's rendered root fields by name, so the server's pipeline asks one registry and names no domain module. */
export const ROOT_RENDERERS: Readonly<Record<string, RootFieldRenderer>> = {
  ...POOL_ROOT_RENDERERS,
  ...STREAK_ROOT_RENDERERS,
  ...USER_ROOT_RENDERERS,
  ...NODE_ROOT_RENDERERS,
  ...LEADERBOARD_ROOT_RENDERERS,
  ...NOTIFICATION_ROOT_RENDERERS,
  ...FEDERATION_ROOT_RENDERERS,
};
