import { Arg, Ctx, FieldResolver, ID, Int, Query, Resolver, Root, Subscription } from 'type-graphql';
import type { NotificationRow, PoolRow } from '../../../schema/index.js';
import type { ResolverContext } from '../context.js';
import { Notification } from '../notifications/notification.type.js';
import { followNotificationCount, followNotifications } from '../notifications/notification.streams.js';
import { followNewPools, followPool } from '../pools/pool.streams.js';
import { Pool } from '../pools/pool.type.js';
import { Prediction, Reward } from '../predictions/prediction.type.js';
import { StreakReward } from '../streaks/streak.type.js';
import { followTransaction, submissionRecord, type TransactionStatusUpdate as StatusUpdate } from '../transactions/transaction.streams.js';
import { TransactionStatusUpdate } from '../transactions/transaction.type.js';

/** Every subscription's resume argument: the same name, type and meaning on each. */
const AFTER_SEQUENCE = {
  nullable: true,
  description:
    'The event sequence of the last result received (its `extensions.eventSequence`), or `eventSequence` read with the ' +
    'state shown: the events after it are sent first, once each, then live ones, on whichever replica answers. ' +
    'EVENTS_EXPIRED when they are no longer kept (an hour).',
} as const;

/**
 * Every subscription: each `subscribe` opens a source stream of the event hub, and each
 * event's result is resolved with a context made for that event (see server/websocket/subscription.ts).
 * Each result carries its event's outbox sequence in `extensions.eventSequence`, and every
 * subscription takes `afterSequence` to resume after it.
 */
@Resolver()
export class SubscriptionResolver {
  @Query(() => String, {
    description:
      'The sequence of the newest event written. Read it with the state a client shows, then subscribe with ' +
      '`afterSequence` set to it: no change after the read is missed, even before the first result arrives.',
  })
  eventSequence(@Ctx() ctx: ResolverContext): Promise<string> {
    return ctx.events.newestSequence();
  }

  @Subscription(() => Notification, {
    description:
      'Your notifications as they are created. With `resumeAfter` (the id of the last one you received), those created since are sent first.',
    subscribe: ({ args, context }) =>
      followNotifications(
        context as ResolverContext,
        (args.resumeAfter as string | null | undefined) ?? null,
        (args.afterSequence as string | null | undefined) ?? null,
      ),
  })
  notifications(
    @Root() notification: NotificationRow,
    @Arg('resumeAfter', () => ID, {
      nullable: true,
      description: 'Id of the last notification received; those created after it are sent first. Not with afterSequence.',
    })
    _resumeAfter: string | null,
    @Arg('afterSequence', () => String, AFTER_SEQUENCE) _afterSequence: string | null,
  ): NotificationRow {
    return notification;
  }

  @Subscription(() => Int, {
    description: 'Your unread notification count: now, then whenever it changes.',
    subscribe: ({ args, context }) =>
      followNotificationCount(context as ResolverContext, (args.afterSequence as string | null | undefined) ?? null),
  })
  notificationCount(
    @Root() count: number,
    @Arg('afterSequence', () => String, {
      ...AFTER_SEQUENCE,
      description: `${AFTER_SEQUENCE.description} A count is sent as it is now, once, however many changes were missed.`,
    })
    _afterSequence: string | null,
  ): number {
    return count;
  }

  @Subscription(() => Pool, {
    description:
      'The pool whenever its stake volume, status or resolution changes: one result per change, showing the pool as ' +
      'that change committed it (a replayed one too), in the order they committed; its relations are read when the ' +
      'result is made.',
    subscribe: ({ args, context }) =>
      followPool(context as ResolverContext, args.poolId as string, (args.afterSequence as string | null | undefined) ?? null),
  })
  poolUpdated(
    @Root() pool: PoolRow | string,
    @Arg('poolId', () => ID, { description: 'Id of the pool to follow.' }) _poolId: string,
    @Arg('afterSequence', () => String, AFTER_SEQUENCE) _afterSequence: string | null,
    @Ctx() ctx: ResolverContext,
  ) {
    return typeof pool === 'string' ? ctx.loaders.poolById.load(pool) : pool;
  }

  @Subscription(() => Pool, {
    description: 'Pools as they are created, as their creation committed them.',
    subscribe: ({ args, context }) => followNewPools(context as ResolverContext, (args.afterSequence as string | null | undefined) ?? null),
  })
  poolCreated(
    @Root() pool: PoolRow | string,
    @Arg('afterSequence', () => String, AFTER_SEQUENCE) _afterSequence: string | null,
    @Ctx() ctx: ResolverContext,
  ) {
    return typeof pool === 'string' ? ctx.loaders.poolById.load(pool) : pool;
  }

  @Subscription(() => TransactionStatusUpdate, {
    description:
      'The life of one of your submitted transactions: its status now, then SUBMITTED -> CONFIRMED -> FINALIZED, or ' +
      'FAILED. Completes after FINALIZED or FAILED.',
    subscribe: ({ args, context }) =>
      followTransaction(context as ResolverContext, args.signature as string, (args.afterSequence as string | null | undefined) ?? null),
  })
  transactionStatus(
    @Root() update: StatusUpdate,
    @Arg('signature', () => String, { description: "Signature (base58) a submit returned; one of yours, or anyone's for an ADMIN." })
    _signature: string,
    @Arg('afterSequence', () => String, {
      ...AFTER_SEQUENCE,
      description: `${AFTER_SEQUENCE.description} The status changes after it are sent instead of the status now.`,
    })
    _afterSequence: string | null,
  ): StatusUpdate {
    return update;
  }
}

@Resolver(() => TransactionStatusUpdate)
export class TransactionStatusUpdateResolver {
  @FieldResolver(() => String, {
    nullable: true,
    description:
      'What the transaction does (placePrediction, updateStake, updateValue, withdraw, claimReward, claimStreakReward or fundStreak); null after FAILED.',
  })
  operation(@Root() update: StatusUpdate): string | null {
    return update.submission?.operation ?? null;
  }

  @FieldResolver(() => Prediction, { nullable: true, description: 'The prediction placed or changed (once confirmed).' })
  async prediction(@Root() update: StatusUpdate, @Ctx() ctx: ResolverContext) {
    return (await submissionRecord(ctx, update)).prediction;
  }

  @FieldResolver(() => Reward, { nullable: true, description: 'The reward or refund paid (once confirmed).' })
  async reward(@Root() update: StatusUpdate, @Ctx() ctx: ResolverContext) {
    return (await submissionRecord(ctx, update)).reward;
  }

  @FieldResolver(() => StreakReward, { nullable: true, description: 'The streak reward paid (once confirmed).' })
  async streakReward(@Root() update: StatusUpdate, @Ctx() ctx: ResolverContext) {
    return (await submissionRecord(ctx, update)).streakReward;
  }
}
