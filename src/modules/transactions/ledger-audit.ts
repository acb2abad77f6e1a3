import { desc, eq } from 'drizzle-orm';
import { chainSubmissions } from '../../../schema/index.js';
import type { ChainRuntime } from '../../chain/runtime.js';
import type { Database } from '../../db/client.js';

/** getSignatureStatuses takes at most this many signatures per call. */
const STATUS_BATCH = 256;

/**
 * Signatures the database records as CONFIRMED that the chain does not know: what a ledger
 * rewritten under the service (a second process on the embedded chain's data directory,
 * a restored backup) leaves behind. Reported at start-up, not repaired: the records may
 * be right and the ledger wrong. Checks the newest `limit` confirmations, which the
 * embedded chain's transaction history (10,000 by default) still holds.
 */
export async function confirmedSubmissionsUnknownToChain(database: Database, chain: ChainRuntime, limit = 1000): Promise<string[]> {
  const rows = await database.db
    .select({ signature: chainSubmissions.signature })
    .from(chainSubmissions)
    .where(eq(chainSubmissions.status, 'CONFIRMED'))
    .orderBy(desc(chainSubmissions.confirmedAt))
    .limit(limit);
  const unknown: string[] = [];
  for (let start = 0; start < rows.length; start += STATUS_BATCH) {
    const batch = rows.slice(start, start + STATUS_BATCH).map((row) => row.signature);
    const { value } = await chain.client.connection.getSignatureStatuses(batch, { searchTransactionHistory: true });
    batch.forEach((signature, index) => {
      if (!value[index]) unknown.push(signature);
    });
  }
  return unknown;
}
