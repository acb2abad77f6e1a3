import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { streaks, type StreakRow } from '../../../schema/index.js';
import { ensureStreakAccumulator } from '../../chain/vaults.js';
import { AppError, badInput } from '../../errors.js';
import { requireRole } from '../auth/viewer.js';
import { parseId } from '../common/ids.js';
import type { ServiceContext } from '../context.js';
import { onChain, requireChain } from '../transactions/submission.js';

/**
 * The operator's streak mutations (role ADMIN). A streak's accumulator is a custody-owned
 * token account at createWithSeed(custody, `streak:` + id), created on the chain exactly as
 * pool vaults are, before the row that names it is written.
 */

export interface StreakRuleParams {
  title?: string | null;
  feePercentage?: number | null;
  payoutPercentage?: number | null;
  streakCountRequired?: number | null;
  minPrecisionScoreRequired?: number | null;
}

export type CreateStreakParams = Required<{ [K in keyof StreakRuleParams]: NonNullable<StreakRuleParams[K]> }>;

/** The given fields checked against the table's rules; absent fields stay absent. */
function validRule(input: StreakRuleParams): Partial<CreateStreakParams> {
  const rule: Partial<CreateStreakParams> = {};
  if (input.title != null) {
    const title = input.title.trim();
    if (title.length === 0 || title.length > 200) throw badInput('input.title', 'input.title must be 1 to 200 characters');
    rule.title = title;
  }
  const percentage = (value: number, name: string, allowZero: boolean) => {
    if (!Number.isFinite(value) || value < 0 || value > 100 || (!allowZero && value === 0)) {
      throw badInput(`input.${name}`, `input.${name} must be ${allowZero ? 'from 0 to 100' : 'more than 0 and at most 100'}`);
    }
    return value;
  };
  if (input.feePercentage != null) rule.feePercentage = percentage(input.feePercentage, 'feePercentage', true);
  if (input.payoutPercentage != null) rule.payoutPercentage = percentage(input.payoutPercentage, 'payoutPercentage', false);
  if (input.streakCountRequired != null) {
    const n = input.streakCountRequired;
    if (!Number.isInteger(n) || n < 1 || n > 1000)
      throw badInput('input.streakCountRequired', 'input.streakCountRequired must be an integer from 1 to 1000');
    rule.streakCountRequired = n;
  }
  if (input.minPrecisionScoreRequired != null) {
    const score = input.minPrecisionScoreRequired;
    if (!Number.isFinite(score) || score < 0 || score > 1)
      throw badInput('input.minPrecisionScoreRequired', 'input.minPrecisionScoreRequired must be from 0 to 1');
    rule.minPrecisionScoreRequired = score;
  }
  return rule;
}

/** Creates a streak and its accumulator on the chain (CHAIN_UNAVAILABLE without a chain; nothing written). */
export async function createStreak(ctx: ServiceContext, input: CreateStreakParams): Promise<StreakRow> {
  requireRole(ctx.viewer, 'ADMIN');
  const chain = requireChain(ctx);
  const rule = validRule(input) as CreateStreakParams;
  const id = randomUUID();
  const accumulator = await onChain(() => ensureStreakAccumulator(chain.client, chain.keys, chain.accounts, id));
  const [row] = await ctx.database.db
    .insert(streaks)
    .values({
      id,
      createdAt: ctx.now,
      updatedAt: ctx.now,
      ...rule,
      streakAccumulatorAccount: accumulator.toBase58(),
      // A create-with-seed account has no bump; the column (a PDA's bump in the interface) is 0 for it.
      bump: 0,
      decimals: chain.accounts.decimals,
      lastSyncAt: ctx.now,
    })
    .returning();
  return row!;
}

/** Changes a streak's title or rule; its accumulator and balances stay as they are. */
export async function updateStreak(ctx: ServiceContext, streakId: string, input: StreakRuleParams): Promise<StreakRow> {
  requireRole(ctx.viewer, 'ADMIN');
  const id = parseId(streakId, 'input.streakId');
  const rule = validRule(input);
  if (Object.keys(rule).length === 0) throw badInput('input', 'input changes nothing: give at least one field');
  const [row] = await ctx.database.db
    .update(streaks)
    .set({ ...rule, updatedAt: ctx.now })
    .where(eq(streaks.id, id))
    .returning();
  if (!row) throw new AppError('NOT_FOUND', `No streak has id ${id}`, { argumentName: 'input.streakId' });
  ctx.loaders.streakById.clear(id);
  return row;
}
