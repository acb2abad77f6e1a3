import { sql } from 'drizzle-orm';
import { rebuildLeaderboard } from './leaderboard/leaderboard-aggregate.js';
import type { Db } from '../db/client.js';

/**
 * Recomputes what the services keep incrementally (the leaderboard aggregate, referral
 * codes' redemption counts) from the rows they summarize. Bulk loads that insert those rows
 * directly, like the demo seed, call it in their transaction; the leaderboard's windows are
 * built as of `windowsAsOf`'s day, or when null left to their first reads.
 */
export async function rebuildDerivedTables(tx: Db, windowsAsOf: Date | null): Promise<void> {
  await rebuildLeaderboard(tx, windowsAsOf);
  await tx.execute(sql`
    UPDATE referral_codes c SET redemption_count = (SELECT count(*) FROM referral_redemptions r WHERE r.referral_code_id = c.id)`);
}
