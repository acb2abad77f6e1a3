import { and, asc, eq, gt, or } from 'drizzle-orm';
import { notifications, type NotificationRow } from '../../../schema/index.js';
import { AppError, badInput } from '../../errors.js';
import { requireViewer } from '../auth/viewer.js';
import { parseId } from '../common/ids.js';
import type { ServiceContext } from '../context.js';
import { type EventScope, type Following, newEventScope } from '../events/event-hub.js';
import type { CommittedEvent } from '../events/events.js';
import { eventStream, ScopedEvent } from '../events/event-stream.js';

/** Most notifications a resumed subscription replays before going live. */
export const MAX_REPLAYED_NOTIFICATIONS = 100;

/**
 * The viewer's notifications as they are created, on any replica. There is no user
 * argument: a subscriber can only ever follow their own. A client that reconnects misses
 * nothing: with `resumeAfter` (the id of the last notification it received) the ones created
 * since are replayed first, oldest first; with `afterSequence` (the last event sequence it
 * received) the events after it are, as for every subscription. At most one of the two.
 */
export async function followNotifications(ctx: ServiceContext, resumeAfter: string | null, afterSequence: string | null) {
  const viewer = requireViewer(ctx.viewer);
  const userId = viewer.userId;
  if (resumeAfter !== null && afterSequence !== null) throw badInput('afterSequence', 'Give resumeAfter or afterSequence, not both');
  let after: NotificationRow | null = null;
  if (resumeAfter !== null) {
    const id = parseId(resumeAfter, 'resumeAfter');
    after = (await ctx.loaders.notificationById.load(id)) ?? null;
    if (!after || after.userId !== userId)
      throw new AppError('NOT_FOUND', 'resumeAfter is not one of your notifications', { argumentName: 'resumeAfter' });
  }
  const afterSeq = await ctx.events.resumePoint(afterSequence);
  const seen = new Set<string>();
  /**
   * The viewer's rows an event announces: those it carries, as written (null for one the
   * preferences refused). POOL_CREATED ones, one per user, are too many to carry: each is
   * read by the pool's id (written once, by the event's own statement).
   */
  const rowsOf = (event: CommittedEvent, scope: EventScope): Array<Promise<NotificationRow | null>> => {
    if (event.type === 'notificationsCreated') {
      const mine = event.notifications.filter((n) => n.userId === userId);
      if (!event.rows) return mine.map((n) => scope.loaders.notificationById.load(n.id));
      const carried = new Map(event.rows.map((row) => [row.id, row]));
      return mine.map((n) => Promise.resolve(carried.get(n.id) ?? null));
    }
    if (event.type === 'poolCreatedNotifications') return [scope.loaders.poolCreatedNotificationByUser(event.poolId).load(userId)];
    return [];
  };
  // One already sent (replayed by id, then announced live) is not sent twice.
  const fresh = (row: NotificationRow | null): row is NotificationRow => {
    if (!row || seen.has(row.id)) return false;
    seen.add(row.id);
    return true;
  };
  let following: Following;
  return eventStream<NotificationRow>({
    follow(push) {
      following = ctx.events.follow({ user: userId }, afterSeq, (event, scope) => {
        for (const row of rowsOf(event, scope))
          row.then(
            (row) => fresh(row) && push(new ScopedEvent(row, scope)),
            () => {},
          );
      });
      return following.stop;
    },
    initial: async () => {
      if (after) {
        const missed = await ctx.database.db
          .select()
          .from(notifications)
          .where(
            and(
              eq(notifications.userId, userId),
              or(
                gt(notifications.createdAt, after.createdAt),
                and(eq(notifications.createdAt, after.createdAt), gt(notifications.id, after.id)),
              ),
            ),
          )
          .orderBy(asc(notifications.createdAt), asc(notifications.id))
          .limit(MAX_REPLAYED_NOTIFICATIONS);
        const scope = newEventScope(ctx.database.db, ctx.clock, following.position);
        return missed.filter(fresh).map((row) => new ScopedEvent(row, scope));
      }
      const items: Array<ScopedEvent<NotificationRow>> = [];
      for (const { event, scope } of await following.missed())
        for (const row of await Promise.all(rowsOf(event, scope))) if (fresh(row)) items.push(new ScopedEvent(row, scope));
      return items;
    },
  });
}

/**
 * The viewer's unread count: the current value first, then the new value whenever it may
 * have changed (notifications created or read). All subscribers of one event share one count query.
 */
export async function followNotificationCount(ctx: ServiceContext, afterSequence: string | null) {
  const userId = requireViewer(ctx.viewer).userId;
  // A count is a value, not a list of changes: resuming sends the current one first, as
  // subscribing does, and the missed events need no replay.
  const after = await ctx.events.resumePoint(afterSequence);
  let position = 0;
  return eventStream<number>({
    follow(push) {
      const following = ctx.events.follow({ user: userId }, after, (_event, scope) => {
        scope.loaders.unreadNotificationCountByUser.load(userId).then(
          (count) => push(new ScopedEvent(count, scope)),
          () => {},
        );
      });
      position = following.position;
      return following.stop;
    },
    initial: async () => {
      const scope = newEventScope(ctx.database.db, ctx.clock, Math.max(position, after ?? 0));
      return [new ScopedEvent(await scope.loaders.unreadNotificationCountByUser.load(userId), scope)];
    },
  });
}
