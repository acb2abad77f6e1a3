import { PublicKey } from '@solana/web3.js';
import type { StreakRow } from '../../../schema/index.js';
import { canonicalParams } from '../../chain/proof.js';
import { buildStreakFunding } from '../../chain/streak-funding.js';
import { AppError, badInput } from '../../errors.js';
import { requireRole } from '../auth/viewer.js';
import { toBaseUnits } from '../common/amounts.js';
import { parseId } from '../common/ids.js';
import type { ServiceContext } from '../context.js';
import { assertBalance, build, type Prepare, type PreparedTransaction, type SignedInput, submit } from '../transactions/two-step.js';

/**
 * fundStreak, two-step like the user operations: the operator builds a transfer of their
 * own tokens into a streak's accumulator, signs it in their wallet, and submits it with the
 * proof; the service checks both, co-signs as fee payer, sends it once, and on confirmation
 * adds the amount to the streak's balances (its effect in transactions/effects.ts). ADMIN only.
 */

export interface FundStreakInput {
  streakId: string;
  amount: number;
}

const fundStreakParams = (input: FundStreakInput) => canonicalParams({ streakId: input.streakId, amount: input.amount });

/** The operation for the shared two-step machinery: no custody transfer, no lane (fundings add up). */
const prepareFunding: Prepare<FundStreakInput, 'fundStreak'> = async (ctx, { viewer, chain, wallet }, input) => {
  requireRole(viewer, 'ADMIN');
  const streakId = parseId(input.streakId, 'input.streakId');
  const streak = await ctx.loaders.streakById.load(streakId);
  if (!streak) throw new AppError('NOT_FOUND', `No streak has id ${streakId}`, { argumentName: 'input.streakId' });
  const { decimals } = chain.accounts;
  const amount = toBaseUnits(input.amount, decimals);
  if (amount === null || amount <= 0n)
    throw badInput('input.amount', `input.amount must be a positive number of tokens with at most ${decimals} decimals`);
  await assertBalance({ viewer, chain, wallet }, amount, 'input.amount');
  return {
    params: fundStreakParams(input),
    derived: {},
    effects: { streakId, amount: amount.toString() },
    lane: null,
    custodyTransfer: null,
    build: (recent) =>
      buildStreakFunding(chain.accounts, recent, {
        operator: wallet,
        accumulator: new PublicKey(streak.streakAccumulatorAccount),
        streakId,
        amount,
      }),
  };
};

export function buildFundStreakTransaction(ctx: ServiceContext, input: FundStreakInput): Promise<PreparedTransaction> {
  return build(ctx, 'fundStreak', prepareFunding, input);
}

export async function submitFundStreakTransaction(
  ctx: ServiceContext,
  input: FundStreakInput & SignedInput,
): Promise<{ signature: string; streak: StreakRow }> {
  const submission = await submit(ctx, 'fundStreak', prepareFunding, input, fundStreakParams(input));
  const streakId = parseId(input.streakId, 'input.streakId');
  return { signature: submission.signature, streak: (await ctx.loaders.streakById.load(streakId))! };
}
