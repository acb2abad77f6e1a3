import { and, asc, eq, gt, or } from 'drizzle-orm';
import { notifications, type NotificationRow } from '../../../schema/index.js';
import { AppError } from '../../errors.js';
import { requireViewer } from '../auth/viewer.js';
import { parseId } from '../common/ids.js';
import type { ServiceContext } from '../context.js';
import { type EventScope, newEventScope } from '../events/event-hub.js';
import { eventStream, ScopedEvent } from '../events/event-stream.js';

/** Most notifications a resumed subscription replays before going live. */
export const MAX_REPLAYED_NOTIFICATIONS = 100;

/**
 * The viewer's notifications as they are created, on any replica. There is no user
 * argument: a subscriber can only ever follow their own. With `resumeAfter` (the id of
 * the last notification the client received) the ones created since are replayed first,
 * oldest first, so a client that reconnects misses nothing.
 */
export async function followNotifications(ctx: ServiceContext, resumeAfter: string | null) {
  const viewer = requireViewer(ctx.viewer);
  const userId = viewer.userId;
  let after: NotificationRow | null = null;
  if (resumeAfter !== null) {
    const id = parseId(resumeAfter, 'resumeAfter');
    after = (await ctx.loaders.notificationById.load(id)) ?? null;
    if (!after || after.userId !== userId)
      throw new AppError('NOT_FOUND', 'resumeAfter is not one of your notifications', { argumentName: 'resumeAfter' });
  }
  const seen = new Set<string>();
  /** Where a catch-up starts: the newest row sent, else the resumed-after row, else the subscription's start. */
  let position: { createdAt: Date; id: string } = after ?? { createdAt: ctx.now, id: '00000000-0000-0000-0000-000000000000' };
  const missedSince = (position: { createdAt: Date; id: string }) =>
    ctx.database.db
      .select()
      .from(notifications)
      .where(
        and(
          eq(notifications.userId, userId),
          or(
            gt(notifications.createdAt, position.createdAt),
            and(eq(notifications.createdAt, position.createdAt), gt(notifications.id, position.id)),
          ),
        ),
      )
      .orderBy(asc(notifications.createdAt), asc(notifications.id))
      .limit(MAX_REPLAYED_NOTIFICATIONS);
  const deliver = (push: (item: ScopedEvent<NotificationRow>) => void, scope: EventScope) => (row: NotificationRow | null) => {
    // A row the preferences refused does not exist; one already replayed is not sent twice.
    if (!row || seen.has(row.id)) return;
    seen.add(row.id);
    if (row.createdAt > position.createdAt || (row.createdAt.getTime() === position.createdAt.getTime() && row.id > position.id))
      position = row;
    push(new ScopedEvent(row, scope));
  };
  return eventStream<NotificationRow>({
    follow(push) {
      const stopFollowing = ctx.events.on({ user: userId }, (event, scope) => {
        const send = deliver(push, scope);
        if (event.type === 'notificationsCreated') {
          for (const n of event.notifications) if (n.userId === userId) scope.loaders.notificationById.load(n.id).then(send, () => {});
        } else if (event.type === 'poolCreatedNotifications') {
          scope.loaders
            .poolCreatedNotificationByUser(event.poolId)
            .load(userId)
            .then(send, () => {});
        }
      });
      // Events published while the process's listener was reconnecting never arrive: send
      // what was created since this subscription started (or resumed) and was not sent.
      const stopResuming = ctx.events.onResume(() => {
        void missedSince(position).then(
          (rows) => {
            const scope = newEventScope(ctx.database.db, ctx.clock);
            for (const row of rows) deliver(push, scope)(row);
          },
          () => {},
        );
      });
      return () => {
        stopFollowing();
        stopResuming();
      };
    },
    initial: after
      ? async () => {
          const missed = await missedSince(after);
          const scope = newEventScope(ctx.database.db, ctx.clock);
          const fresh = missed.filter((row) => !seen.has(row.id));
          for (const row of fresh) seen.add(row.id);
          return fresh.map((row) => new ScopedEvent(row, scope));
        }
      : undefined,
  });
}

/**
 * The viewer's unread count: the current value first, then the new value whenever it may
 * have changed (notifications created or read). All subscribers of one event share one count query.
 */
export function followNotificationCount(ctx: ServiceContext) {
  const userId = requireViewer(ctx.viewer).userId;
  return eventStream<number>({
    follow: (push) =>
      ctx.events.on({ user: userId }, (_event, scope) => {
        scope.loaders.unreadNotificationCountByUser.load(userId).then(
          (count) => push(new ScopedEvent(count, scope)),
          () => {},
        );
      }),
    initial: async () => {
      const scope = newEventScope(ctx.database.db, ctx.clock);
      return [new ScopedEvent(await scope.loaders.unreadNotificationCountByUser.load(userId), scope)];
    },
  });
}
