import { sql } from 'drizzle-orm';
import { rebuildLeaderboard } from './leaderboard/leaderboard-aggregate.js';
import type { Db } from '../db/client.js';

/**
 * Recomputes what the services keep incrementally (the leaderboard aggregate, referral
 * codes' redemption counts) from the rows they summarize. Bulk loads that insert those rows
 * directly, like the demo seed, call it in their transaction.
 */
export async function rebuildDerivedTables(tx: Db): Promise<void> {
  await rebuildLeaderboard(tx);
  await tx.execute(sql`
    UPDATE referral_codes c SET redemption_count = (SELECT count(*) FROM referral_redemptions r WHERE r.referral_code_id = c.id)`);
}
