import { PublicKey } from '@solana/web3.js';
import { eq, sql } from 'drizzle-orm';
import { type ChainSubmissionRow, streaks, type StreakRow } from '../../../schema/index.js';
import { userTokenAccount } from '../../chain/addresses.js';
import { canonicalParams, signProof } from '../../chain/proof.js';
import { buildStreakFunding } from '../../chain/streak-funding.js';
import type { Db } from '../../db/client.js';
import { AppError, badInput } from '../../errors.js';
import { requireRole } from '../auth/viewer.js';
import { toBaseUnits } from '../common/amounts.js';
import { parseId } from '../common/ids.js';
import type { ServiceContext } from '../context.js';
import type { DomainEvent } from '../events/events.js';
import { awaitSettled, checkSignedSubmission, coSign, findSubmission, onChain, requireChain, sendOnce, sha256Hex, viewerWallet } from '../transactions/submission.js';

/**
 * fundStreak, two-step like the user operations: the operator builds a transfer of their
 * own tokens into a streak's accumulator, signs it in their wallet, and submits it with the
 * proof; the service checks both, co-signs as fee payer, sends it once, and on confirmation
 * adds the amount to the streak's balances (the effect `applyStreakFunding`). ADMIN only.
 */

export interface FundStreakInput {
  streakId: string;
  amount: number;
}

async function prepare(ctx: ServiceContext, input: FundStreakInput) {
  const viewer = requireRole(ctx.viewer, 'ADMIN');
  const chain = requireChain(ctx);
  const { wallet } = await viewerWallet(ctx);
  const streakId = parseId(input.streakId, 'input.streakId');
  const streak = await ctx.loaders.streakById.load(streakId);
  if (!streak) throw new AppError('NOT_FOUND', `No streak has id ${streakId}`, { argumentName: 'input.streakId' });
  const { decimals } = chain.accounts;
  const amount = toBaseUnits(input.amount, decimals);
  if (amount === null || amount <= 0n) throw badInput('input.amount', `input.amount must be a positive number of tokens with at most ${decimals} decimals`);
  return {
    assertBalance: async () => {
      const balance = await onChain(() => chain.client.tokenBalance(userTokenAccount(chain.accounts.mint, wallet)));
      if (balance < amount) throw new AppError('INSUFFICIENT_FUNDS', `Your token balance is ${balance} base units; this needs ${amount}`, { argumentName: 'input.amount' });
    },
    viewer,
    chain,
    wallet,
    params: canonicalParams({ streakId: input.streakId, amount: input.amount }),
    effects: { streakId, amount: amount.toString() },
    build: (recent: Parameters<typeof buildStreakFunding>[1]) =>
      buildStreakFunding(chain.accounts, recent, { operator: wallet, accumulator: new PublicKey(streak.streakAccumulatorAccount), streakId, amount }),
  };
}

export async function buildFundStreakTransaction(ctx: ServiceContext, input: FundStreakInput) {
  const p = await prepare(ctx, input);
  await p.assertBalance();
  const recent = await onChain(() => p.chain.client.latestBlockhash());
  const built = p.build(recent);
  const expiresAt = new Date(ctx.now.getTime() + p.chain.proofTtlSeconds * 1000);
  const proof = await signProof(
    p.chain.proofSecret,
    { operation: 'fundStreak', userId: p.viewer.userId, params: p.params, derived: {}, messageHash: built.messageHash, ...recent },
    expiresAt,
  );
  return { transaction: built.transaction, proof, expiresAt };
}

export async function submitFundStreakTransaction(
  ctx: ServiceContext,
  input: FundStreakInput & { signedTransaction: string; proof: string },
): Promise<{ signature: string; streak: StreakRow }> {
  const p = await prepare(ctx, input);
  const idempotencyKey = sha256Hex(input.proof);
  // The checks run first in every case; a proof already submitted answers with its outcome.
  const { wire, claims } = await checkSignedSubmission(ctx, p.chain, {
    operation: 'fundStreak',
    userId: p.viewer.userId,
    params: p.params,
    proof: input.proof,
    signedTransaction: input.signedTransaction,
    user: p.wallet,
  });
  let submission: ChainSubmissionRow;
  if (await findSubmission(ctx.database.db, idempotencyKey)) submission = await awaitSettled(ctx.database.db, idempotencyKey);
  else {
    await p.assertBalance();
    const { bytes, signature } = coSign(p.chain, wire);
    submission = await sendOnce(ctx, p.chain, {
      idempotencyKey,
      operation: 'fundStreak',
      userId: p.viewer.userId,
      params: p.effects,
      bytes,
      signature,
      lastValidBlockHeight: claims.lastValidBlockHeight,
    });
  }
  ctx.loaders.streakById.clear(p.effects.streakId);
  return { signature: submission.signature, streak: (await ctx.loaders.streakById.load(p.effects.streakId))! };
}

/** The effect of a confirmed funding: the streak's balances grow by the amount. */
export async function applyStreakFunding(db: Db, p: Record<string, string>, now: Date): Promise<DomainEvent[]> {
  const amount = sql`${p.amount!}::bigint`;
  await db
    .update(streaks)
    .set({
      totalAccumulated: sql`${streaks.totalAccumulated} + ${amount}`,
      availableBalance: sql`${streaks.availableBalance} + ${amount}`,
      onchainBalance: sql`${streaks.onchainBalance} + ${amount}`,
      lastSyncAt: now,
      updatedAt: now,
    })
    .where(eq(streaks.id, p.streakId!));
  return [];
}
