import { eq, sum } from 'drizzle-orm';
import { chainSubmissions } from '../../../schema/index.js';
import type { ChainRuntime } from '../../chain/runtime.js';
import type { Db } from '../../db/client.js';
import { AppError } from '../../errors.js';
import type { OperationName, RelayerSpend } from './operations.js';

/** What the relayer pays, as the chain records it, and the per-user cap on what it pays beyond fees. */

/**
 * The per-user cap on relayer-paid SOL beyond signature fees: the rules keep that spend at
 * 0 (the relayer funds no account a user could close), so a user whose transactions have
 * nonetheless cost the relayer `chain.sponsorCapLamports` or more, measured on the chain,
 * gets nothing more signed until an operator looks (docs/security.md).
 */
export async function assertWithinSponsorCap(db: Db, chain: ChainRuntime, userId: string): Promise<void> {
  const [row] = await db
    .select({ total: sum(chainSubmissions.relayerSponsoredLamports) })
    .from(chainSubmissions)
    .where(eq(chainSubmissions.userId, userId));
  const sponsored = BigInt(row?.total ?? 0);
  if (sponsored >= chain.sponsorCapLamports) {
    throw new AppError('FORBIDDEN', 'Your transactions have reached the cap on what the service pays beyond fees; contact the operator', {
      reason: 'RELAYER_SPONSOR_CAP',
      sponsoredLamports: sponsored.toString(),
      capLamports: chain.sponsorCapLamports.toString(),
    });
  }
}

/** What the relayer paid for one confirmed transaction, as the chain recorded it (null when it has no record). */
export async function relayerSpendOf(chain: ChainRuntime, operation: OperationName, signature: string): Promise<RelayerSpend | null> {
  const spend = await chain.client.feePayerSpend(signature).catch(() => null);
  return spend && { operation, feeLamports: spend.fee, sponsoredLamports: spend.beyondFee, balanceLamports: spend.balanceAfter };
}
