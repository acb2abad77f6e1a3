import DataLoader from 'dataloader';
import { and, count, eq, inArray, isNull, sql } from 'drizzle-orm';
import { notifications, type NotificationRow } from '../../../schema/index.js';
import type { Db } from '../../db/client.js';
import { uniqueLoader } from '../common/loaders.js';

export function createNotificationLoaders(db: Db) {
  const poolCreatedByPool = new Map<string, DataLoader<string, NotificationRow | null>>();
  return {
    notificationById: uniqueLoader<NotificationRow>(db, notifications, notifications.id),
    /** Unread notifications per user, for many users in one statement. */
    unreadNotificationCountByUser: new DataLoader<string, number>(async (userIds) => {
      const rows = await db
        .select({ userId: notifications.userId, unread: count() })
        .from(notifications)
        .where(and(inArray(notifications.userId, [...userIds]), isNull(notifications.readAt)))
        .groupBy(notifications.userId);
      const byUser = new Map(rows.map((row) => [row.userId, Number(row.unread)]));
      return userIds.map((id) => byUser.get(id) ?? 0);
    }),
    /** The POOL_CREATED notification of one pool, per user (null where preferences refused it). */
    poolCreatedNotificationByUser(poolId: string): DataLoader<string, NotificationRow | null> {
      let loader = poolCreatedByPool.get(poolId);
      if (!loader) {
        loader = new DataLoader(async (userIds) => {
          const rows = await db
            .select()
            .from(notifications)
            .where(
              and(
                inArray(notifications.userId, [...userIds]),
                eq(notifications.type, 'POOL_CREATED'),
                sql`${notifications.data}->>'poolId' = ${poolId}`,
              ),
            );
          const byUser = new Map(rows.map((row) => [row.userId, row]));
          return userIds.map((id) => byUser.get(id) ?? null);
        });
        poolCreatedByPool.set(poolId, loader);
      }
      return loader;
    },
  };
}
