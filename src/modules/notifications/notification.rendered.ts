import { getTableName } from 'drizzle-orm';
import { notifications } from '../../../schema/index.js';
import { requireViewer } from '../auth/viewer.js';
import type { RootFieldRenderer } from '../../read/rendered-read.js';
import { UNREAD } from './notification.loaders.js';

/**
 * `unreadNotificationCount` beside a rendered read (the viewer's page asks both): a column of the shared statement counting what the
 * resolver's loader counts (UNREAD); UNAUTHENTICATED when signed out leaves the query to the executor to report.
 */
export const NOTIFICATION_ROOT_RENDERERS: Record<string, RootFieldRenderer> = {
  unreadNotificationCount: (_field, nodes) =>
    nodes.some((node) => node.arguments?.length)
      ? null
      : {
          sql: (_params, slot) =>
            `(SELECT count(*) FROM "${getTableName(notifications)}" c WHERE c."${notifications.userId.name}" = ${slot('uuid')} AND ${UNREAD('c')})::text`,
          values: (ctx) => [requireViewer(ctx.viewer).userId],
          write: (json) => json!,
        },
};
