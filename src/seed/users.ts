import * as t from '../../schema/index.js';
import { NOTIFICATION_PREFERENCE_KEYS, type NotificationPreferences } from '../../schema/index.js';
import type { SeedContext, UserSeed } from './model.js';
import { DAY, date, HOUR, MINUTE } from './random.js';
import { ADJECTIVES, capitalize, NOUNS } from './vocabulary.js';

/** The demo users and the groups later stages draw from. */
export interface Cast {
  users: UserSeed[];
  /** Users older than two weeks (all but the last 5 %). */
  veterans: UserSeed[];
  /** A few prolific creators (the operators first) who make most pools. */
  creators: UserSeed[];
  /** The first two users, with role ADMIN. */
  admins: UserSeed[];
  userById: Map<string, UserSeed>;
}

export function makeUsers(ctx: SeedContext): Cast {
  const { rng, size, nowMs } = ctx;
  const users: UserSeed[] = [];
  const newcomers = Math.floor(size.users * 0.05);
  for (let i = 0; i < size.users; i++) {
    const adjective = rng.pick(ADJECTIVES);
    const noun = rng.pick(NOUNS);
    const style = i % 4;
    const username =
      style === 0
        ? `${adjective}_${noun}${i}`
        : style === 1
          ? `${capitalize(adjective)}${capitalize(noun)}${i}`
          : style === 2
            ? `${noun}_${i}`
            : `${adjective}${noun}_${i}`;
    const isNewcomer = i >= size.users - newcomers;
    const createdAt = isNewcomer
      ? date(nowMs - rng.int(1, 14 * 24) * HOUR - rng.int(0, HOUR))
      : date(nowMs - rng.int(190, 540) * DAY - rng.int(0, DAY));
    const lastSeenAt = rng.chance(0.88) ? date(Math.max(createdAt.getTime() + HOUR, nowMs - rng.int(0, 20 * 24 * 60) * MINUTE)) : null;
    users.push({
      row: {
        id: rng.uuid(),
        createdAt,
        updatedAt: lastSeenAt ?? createdAt,
        lastSeenAt,
        username,
        hasSeenTour: rng.chance(0.65),
        role: i < 2 ? 'ADMIN' : 'USER',
        walletAddress: rng.address(),
        avatarId: null,
        email: i < 2 || rng.chance(0.35) ? `${username.toLowerCase()}@example.com` : null,
        twitterUsername: rng.chance(0.28) ? `${adjective}${noun}${i}`.slice(0, 15) : null,
      },
      tokenAccount: rng.address(),
      activity: 0.15 + rng.next() * rng.next() * 0.85,
      skill: rng.next(),
    });
  }
  const veterans = users.slice(0, size.users - newcomers);
  // A few prolific creators (the operators first) make most pools.
  const creators = veterans.slice(0, Math.max(3, Math.floor(size.users / 40)));
  const admins = veterans.slice(0, 2);
  const userById = new Map(users.map((u) => [u.row.id, u]));
  return { users, veterans, creators, admins, userById };
}

/** One settings row per user, with random notification preferences. */
export function makeSettings(ctx: SeedContext, users: readonly UserSeed[]): Array<typeof t.settings.$inferInsert> {
  const { rng } = ctx;
  return users.map((user) => {
    const preferences = Object.fromEntries(
      NOTIFICATION_PREFERENCE_KEYS.map((key) => [key, key === 'is_email_subscribe_popup_dismissed' ? rng.chance(0.4) : rng.chance(0.87)]),
    ) as NotificationPreferences;
    return {
      id: rng.uuid(),
      createdAt: user.row.createdAt,
      updatedAt: user.row.updatedAt,
      userId: user.row.id,
      notificationPreferences: preferences,
    };
  });
}

/** Push tokens for about one user in eight. */
export function makeDeviceTokens(ctx: SeedContext, users: readonly UserSeed[]): Array<typeof t.deviceTokens.$inferInsert> {
  const { rng, nowMs } = ctx;
  const deviceTokens: Array<typeof t.deviceTokens.$inferInsert> = [];
  users.forEach((user, i) => {
    if (!(i % 12 === 5 || rng.chance(0.05))) return;
    const createdAt = date(Math.min(nowMs - HOUR, user.row.createdAt.getTime() + rng.int(1, 60) * DAY));
    const platform = rng.pick(['WEB', 'IOS', 'ANDROID'] as const);
    const token = platform === 'IOS' ? Buffer.from(rng.bytes(32)).toString('hex') : Buffer.from(rng.bytes(96)).toString('base64url');
    deviceTokens.push({ id: rng.uuid(), createdAt, updatedAt: createdAt, userId: user.row.id, token, platform });
  });
  return deviceTokens;
}
