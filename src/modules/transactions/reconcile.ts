import { eq } from 'drizzle-orm';
import { chainSubmissions } from '../../../schema/index.js';
import { TransactionRejectedError } from '../../chain/rpc.js';
import type { ChainRuntime } from '../../chain/runtime.js';
import { parseWireTransaction } from '../../chain/transactions.js';
import type { Database } from '../../db/client.js';
import { EventHub } from '../events/event-hub.js';
import type { EventPublisher } from '../events/events.js';
import type { OperationName } from './operations.js';
import { relayerSpendOf } from './relayer-spend.js';
import { applyConfirmed, forget } from './submission.js';

/**
 * Settles the submissions a crash left PENDING: confirmed on-chain -> effects applied;
 * failed, or expired without landing -> forgotten; still valid and unknown to the chain ->
 * sent again (the same bytes, so at most one copy can land). Run at start-up.
 */
export async function reconcilePendingSubmissions(
  database: Database,
  chain: ChainRuntime,
  events: EventPublisher = new EventHub(database),
): Promise<{ confirmed: number; forgotten: number; resent: number }> {
  const db = database.db;
  const pending = await db.select().from(chainSubmissions).where(eq(chainSubmissions.status, 'PENDING'));
  const tally = { confirmed: 0, forgotten: 0, resent: 0 };
  for (const submission of pending) {
    let status = await chain.client.signatureStatus(submission.signature);
    if (!status) {
      const height = await chain.client.connection.getBlockHeight('confirmed');
      if (height > submission.lastValidBlockHeight) {
        await forget(db, submission, events);
        tally.forgotten++;
        continue;
      }
      const bytes = Buffer.from(submission.transaction, 'base64');
      if (!parseWireTransaction(bytes)) throw new Error(`submission ${submission.id} holds no valid transaction`);
      try {
        await chain.client.send(bytes);
      } catch (error) {
        if (!(error instanceof TransactionRejectedError)) throw error;
        await forget(db, submission, events);
        tally.forgotten++;
        continue;
      }
      tally.resent++;
      status = await chain.client.confirm(submission.signature, submission.lastValidBlockHeight);
    }
    if (status && !status.err) {
      await applyConfirmed(db, submission, new Date(), events, await relayerSpendOf(chain, submission.operation as OperationName, submission.signature));
      tally.confirmed++;
    } else {
      await forget(db, submission, events);
      tally.forgotten++;
    }
  }
  return tally;
}
