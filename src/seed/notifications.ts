import type * as t from '../../schema/index.js';
import { notificationTexts } from '../modules/notifications/notification.texts.js';
import { EXACT_SAMPLING_LIMIT, type PoolSeed, type RewardSeed, type SeedContext, type StreakRewardSeed, type UserSeed } from './model.js';
import { DAY, date, firstAbove, formatUnits, MINUTE } from './random.js';

export type Notify = (
  userId: string,
  type: t.NotificationRow['type'],
  title: string,
  message: string,
  data: Record<string, unknown>,
  createdAt: Date,
) => void;

/** A notification list and the function that appends to it (older ones are mostly read). */
export function makeNotifier(ctx: SeedContext): { notifications: t.NewNotificationRow[]; notify: Notify } {
  const { rng, nowMs } = ctx;
  const notifications: t.NewNotificationRow[] = [];
  const notify = (
    userId: string,
    type: t.NotificationRow['type'],
    title: string,
    message: string,
    data: Record<string, unknown>,
    createdAt: Date,
  ) => {
    const ageDays = (nowMs - createdAt.getTime()) / DAY;
    const read = rng.chance(ageDays > 7 ? 0.85 : 0.35);
    const readAt = read ? date(Math.min(nowMs, createdAt.getTime() + rng.int(2, 3 * 24 * 60) * MINUTE)) : null;
    notifications.push({ id: rng.uuid(), createdAt, updatedAt: readAt ?? createdAt, userId, type, title, message, data, readAt });
  };
  return { notifications, notify };
}

/** What users were told as pools opened and they claimed rewards. */
export function notifyActivity(
  ctx: SeedContext,
  notify: Notify,
  users: readonly UserSeed[],
  pools: readonly PoolSeed[],
  rewards: readonly RewardSeed[],
  streakRewards: readonly StreakRewardSeed[],
): void {
  const { rng, nowMs } = ctx;
  const recentPools = pools.filter((p) => p.row.createdAt.getTime() > nowMs - 30 * DAY && p.row.createdAt.getTime() < nowMs);
  // Above EXACT_SAMPLING_LIMIT users, the pools created after a user's sign-up are a suffix
  // of the recent pools in creation order, and a user's few are drawn from it directly.
  const exact = users.length <= EXACT_SAMPLING_LIMIT;
  const byCreation = exact ? [] : [...recentPools].sort((a, b) => a.row.createdAt.getTime() - b.row.createdAt.getTime());
  const createdAt = Float64Array.from(byCreation, (p) => p.row.createdAt.getTime());
  for (const user of users) {
    let chosen: PoolSeed[];
    if (exact) {
      const candidates = recentPools.filter((p) => p.row.createdAt > user.row.createdAt);
      chosen = rng.shuffled(candidates).slice(0, rng.int(0, 3));
    } else {
      const first = firstAbove(createdAt, user.row.createdAt.getTime());
      chosen = rng.distinctIndexes(byCreation.length - first, rng.int(0, 3)).map((i) => byCreation[first + i]!);
    }
    for (const pool of chosen) {
      const { title, message } = notificationTexts.poolCreated(pool.row.title);
      notify(
        user.row.id,
        'POOL_CREATED',
        title,
        message,
        { poolId: pool.row.id, title: pool.row.title },
        date(Math.min(nowMs, pool.row.createdAt.getTime() + rng.int(1, 20) * MINUTE)),
      );
    }
  }
  for (const reward of rewards) {
    if (!reward.isClaimed || (reward.type === 'REWARD' && !rng.chance(0.7))) continue;
    const refund = reward.type === 'REFUND';
    const { title, message } = (refund ? notificationTexts.refundClaimed : notificationTexts.rewardClaimed)(formatUnits(reward.amount));
    notify(
      reward.prediction.row.userId,
      refund ? 'REFUND_CLAIMED' : 'REWARD_CLAIMED',
      title,
      message,
      { poolId: reward.pool.row.id, predictionId: reward.prediction.row.id, rewardId: reward.id, amount: formatUnits(reward.amount) },
      reward.updatedAt,
    );
  }
  for (const reward of streakRewards) {
    const { title, message } = notificationTexts.streakRewardReceived(formatUnits(reward.amount));
    notify(
      reward.userId,
      'STREAK_REWARD_RECEIVED',
      title,
      message,
      { streakId: reward.streak.row.id, streakRewardId: reward.id, amount: formatUnits(reward.amount) },
      reward.createdAt,
    );
  }
}

/** What resolutions made claimable, for users whose preferences allow it. */
export function notifyClaimable(
  notify: Notify,
  settings: ReadonlyArray<typeof t.settings.$inferInsert>,
  rewards: readonly RewardSeed[],
  streakRewards: readonly StreakRewardSeed[],
): void {
  const allows = new Map(settings.map((s) => [s.userId, s.notificationPreferences]));
  const allowed = (userId: string, key: 'REWARD_CLAIMED' | 'REFUND_CLAIMED' | 'STREAK_REWARD_RECEIVED') =>
    allows.get(userId)!.is_notifications_enabled && allows.get(userId)![key];
  for (const reward of rewards) {
    const refund = reward.type === 'REFUND';
    const userId = reward.prediction.row.userId;
    if (reward.amount === 0n || !allowed(userId, refund ? 'REFUND_CLAIMED' : 'REWARD_CLAIMED')) continue;
    const amount = formatUnits(reward.amount);
    const { title, message } = (refund ? notificationTexts.refundAvailable : notificationTexts.rewardAvailable)(
      reward.pool.row.title,
      amount,
    );
    notify(
      userId,
      refund ? 'REFUND_AVAILABLE' : 'REWARD_AVAILABLE',
      title,
      message,
      { poolId: reward.pool.row.id, predictionId: reward.prediction.row.id, rewardId: reward.id, amount: Number(amount) },
      reward.createdAt!,
    );
  }
  for (const reward of streakRewards) {
    if (!allowed(reward.userId, 'STREAK_REWARD_RECEIVED')) continue;
    const amount = formatUnits(reward.amount);
    const { title, message } = notificationTexts.streakRewardAvailable(reward.streak.row.title, amount);
    notify(
      reward.userId,
      'STREAK_REWARD_AVAILABLE',
      title,
      message,
      { streakId: reward.streak.row.id, streakRewardId: reward.id, amount: Number(amount) },
      reward.createdAt,
    );
  }
}
