import type * as t from '../../schema/index.js';
import type { SeedContext, UserSeed } from './model.js';
import { DAY, date, MINUTE } from './random.js';

/** Referral codes of a few users (users 2 and 3 always) and their redemptions by others. */
export function makeReferrals(
  ctx: SeedContext,
  users: readonly UserSeed[],
): { referralCodes: t.NewReferralCodeRow[]; redemptions: t.NewReferralRedemptionRow[] } {
  const { rng, nowMs } = ctx;
  const referralCodes: Array<t.NewReferralCodeRow & { id: string; userId: string; createdAt: Date }> = [];
  users.forEach((user, i) => {
    if (!(i === 2 || i === 3 || rng.chance(0.15))) return;
    const createdAt = date(Math.min(nowMs - DAY, user.row.createdAt.getTime() + rng.int(1, 40) * DAY));
    if (createdAt <= user.row.createdAt) return;
    const stem =
      user.row.username
        .replace(/[^A-Za-z]/g, '')
        .toUpperCase()
        .slice(0, 10) || 'POOL';
    referralCodes.push({
      id: rng.uuid(),
      createdAt,
      updatedAt: createdAt,
      code: `${stem}${i}${rng.int(10, 99)}`,
      notes: rng.chance(0.3) ? rng.pick(['Community campaign', 'Twitter giveaway', 'Discord event', 'Conference booth']) : null,
      userId: user.row.id,
    });
  });
  const redemptions: t.NewReferralRedemptionRow[] = [];
  users.forEach((user, i) => {
    if (!referralCodes.length || !(i === 4 || rng.chance(0.22))) return;
    const code = rng.pick(referralCodes);
    if (code.userId === user.row.id) return;
    const appliedAt = date(
      Math.min(nowMs - MINUTE, Math.max(user.row.createdAt.getTime(), code.createdAt.getTime()) + rng.int(1, 10 * 24 * 60) * MINUTE),
    );
    redemptions.push({
      id: rng.uuid(),
      createdAt: appliedAt,
      updatedAt: appliedAt,
      referralCodeId: code.id,
      userId: user.row.id,
      appliedAt,
    });
  });
  return { referralCodes, redemptions };
}
