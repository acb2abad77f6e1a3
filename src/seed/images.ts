import type * as t from '../../schema/index.js';
import type { PoolSeed, SeedContext, UserSeed } from './model.js';
import { date, HOUR, maxDate, MINUTE } from './random.js';

/** Avatars (set as each user's avatar_id) and pool artwork (each pool's image_id). */
export function makeImages(ctx: SeedContext, users: readonly UserSeed[], pools: readonly PoolSeed[]): { images: t.NewImageRow[] } {
  const { rng, nowMs } = ctx;
  const images: t.NewImageRow[] = [];
  // The two operators, who create most pools, have avatars, so any page of the busiest
  // pools reaches the avatar relation; user 2, the third creator, has none.
  users.forEach((user, i) => {
    if (i === 2 || (i > 1 && !rng.chance(0.42))) return;
    const id = rng.uuid();
    const createdAt = date(user.row.createdAt.getTime() + rng.int(1, 30 * 24) * HOUR);
    const at = createdAt.getTime() < nowMs ? createdAt : user.row.createdAt;
    images.push({ id, userId: user.row.id, url: `https://images.poolgraph.dev/avatars/${id}.webp`, createdAt: at, updatedAt: at });
    user.row.avatarId = id;
    user.row.updatedAt = maxDate(user.row.updatedAt!, at);
  });
  for (const pool of pools) {
    const wanted = pool.image ?? (pool.streak ? rng.chance(0.7) : rng.chance(0.6));
    if (!wanted) continue;
    const id = rng.uuid();
    const createdAt = date(pool.row.createdAt.getTime() - rng.int(1, 30) * MINUTE);
    images.push({
      id,
      userId: pool.row.createdBy,
      url: `https://images.poolgraph.dev/pools/${pool.asset.symbol.toLowerCase()}-${id.slice(0, 8)}.webp`,
      createdAt,
      updatedAt: createdAt,
    });
    pool.row.imageId = id;
  }
  return { images };
}
