import DataLoader from 'dataloader';
import { notifications, type NotificationRow } from '../../../schema/index.js';
import { statement } from '../../read/batch.js';
import { tableReader } from '../../read/columns.js';
import { type Db, readQueryOf } from '../../db/client.js';
import { childPageLoader, countLoader, uniqueLoader } from '../common/loaders.js';
import type { PageRequest } from '../common/pagination.js';

/** Which of a user's notifications a list shows; absent means all of them. */
export const NOTIFICATION_FILTERS = ['READ', 'UNREAD'] as const;
export type NotificationFilter = (typeof NOTIFICATION_FILTERS)[number];

/** A notification's condition (SQL over its alias), a list's ChildCondition (read/keyset.ts) that numbers no values. */
type NotificationCondition = (alias: string) => string;

export const UNREAD: NotificationCondition = (c) => `${c}."read_at" IS NULL`;
const READ: NotificationCondition = (c) => `${c}."read_at" IS NOT NULL`;
/** The notifications each filter keeps, as the loaders and the rendered read (common/read-specs.ts) both list them. */
export const NOTIFICATION_CONDITIONS: Readonly<Record<NotificationFilter, NotificationCondition>> = { READ, UNREAD };

/** The notifications' loaders: part of every request's loaders (modules/loaders.ts). */
export function createNotificationLoaders(db: Db) {
  // Counted with `read_at IS NULL`, so Postgres answers from notifications_user_id_unread_idx.
  const unreadNotificationCountByUser = countLoader(db, notifications, notifications.userId, UNREAD);
  const all = childPageLoader<NotificationRow>(db, notifications, notifications.userId);
  // The filtered variants are built on first use: most requests never ask for them.
  const filtered = new Map<NotificationFilter, typeof all>();
  const pagesOf = (filter: NotificationFilter | null | undefined): typeof all => {
    if (!filter) return all;
    let pages = filtered.get(filter);
    if (!pages) {
      // totalCount of the unread list shares the unread count's cache.
      const counts = filter === 'UNREAD' ? unreadNotificationCountByUser : undefined;
      pages = childPageLoader<NotificationRow>(db, notifications, notifications.userId, { where: NOTIFICATION_CONDITIONS[filter], counts });
      filtered.set(filter, pages);
    }
    return pages;
  };
  const poolCreatedLoaders = new Map<string, DataLoader<string, NotificationRow | null>>();
  const poolCreatedNotificationByUser = (poolId: string): DataLoader<string, NotificationRow | null> => {
    let loader = poolCreatedLoaders.get(poolId);
    if (!loader) {
      loader = new DataLoader<string, NotificationRow | null>(async (userIds) => {
        const reader = tableReader(notifications);
        const text = statement(
          'poolCreatedNotificationByUser',
          () =>
            `SELECT ${reader.columns('n')} FROM "notifications" n WHERE n."user_id" = ANY($1::uuid[]) ` +
            `AND n."type" = 'POOL_CREATED' AND n."data"->>'poolId' = $2 ORDER BY n."created_at" DESC, n."id" DESC`,
        );
        const rows = (await readQueryOf(db)<Record<string, unknown>>(text, [userIds, poolId])).map((row) =>
          reader.decode<NotificationRow>(row),
        );
        const byUser = new Map<string, NotificationRow>();
        for (const row of rows) if (!byUser.has(row.userId)) byUser.set(row.userId, row);
        return userIds.map((userId) => byUser.get(userId) ?? null);
      });
      poolCreatedLoaders.set(poolId, loader);
    }
    return loader;
  };

  return {
    /**
     * Newest-first pages of each user's notifications, optionally only read or unread: one statement per (page, filter) per tick.
     * A cursor is a position valid with the filter of the list that issued it.
     */
    notificationsByUser: Object.assign((page: PageRequest, filter?: NotificationFilter | null) => pagesOf(filter)(page), {
      clearAll: () => [all, ...filtered.values()].forEach((pages) => pages.clearAll()),
    }),
    /** Each user's unread notifications, counted in one `GROUP BY user_id` statement per batch. */
    unreadNotificationCountByUser,
    notificationById: uniqueLoader<NotificationRow>(db, notifications, notifications.id),
    /** Each user's POOL_CREATED notification of `poolId` (the newest if several), or null. One loader per pool id, per request. */
    poolCreatedNotificationByUser: Object.assign(poolCreatedNotificationByUser, { clearAll: () => poolCreatedLoaders.clear() }),
  };
}
