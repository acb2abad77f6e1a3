import { randomInt } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { referralCodes, type ReferralCodeRow } from '../../../schema/index.js';
import { AppError, badInput } from '../../errors.js';
import { requireRole } from '../auth/viewer.js';
import { parseId } from '../common/ids.js';
import type { ServiceContext } from '../context.js';
import { isUniqueViolation } from '../../db/client.js';

/** The operator's referral-code mutations (role ADMIN). */

export const REFERRAL_CODE_PATTERN = /^[A-Z0-9]{4,32}$/;
/** Letters and digits that cannot be misread for one another (no 0/O, 1/I/L). */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const GENERATED_CODE_LENGTH = 10;

export interface CreateReferralCodeParams {
  code?: string | null;
  notes?: string | null;
  maxUses?: number | null;
  expiresAt?: Date | null;
}

function generatedCode(): string {
  let code = '';
  for (let i = 0; i < GENERATED_CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/**
 * Creates a referral code owned by the operator: the given code (upper-cased) or a random
 * one, with optional notes, a cap on redemptions and an expiry.
 */
export async function createReferralCode(ctx: ServiceContext, input: CreateReferralCodeParams): Promise<ReferralCodeRow> {
  const viewer = requireRole(ctx.viewer, 'ADMIN');
  const code = input.code == null ? generatedCode() : input.code.trim().toUpperCase();
  if (!REFERRAL_CODE_PATTERN.test(code)) throw badInput('input.code', 'input.code must be 4 to 32 letters or digits');
  const notes = input.notes == null ? null : input.notes.trim();
  if (notes !== null && notes.length > 1000) throw badInput('input.notes', 'input.notes must be at most 1000 characters');
  if (input.maxUses != null && (!Number.isInteger(input.maxUses) || input.maxUses < 1)) {
    throw badInput('input.maxUses', 'input.maxUses must be a whole number of at least 1');
  }
  if (input.expiresAt != null) {
    const ms = input.expiresAt instanceof Date ? input.expiresAt.getTime() : NaN;
    if (!Number.isFinite(ms)) throw badInput('input.expiresAt', 'input.expiresAt must be a date-time');
    if (ms <= ctx.now.getTime()) throw badInput('input.expiresAt', 'input.expiresAt must be in the future');
  }
  try {
    const [row] = await ctx.database.db
      .insert(referralCodes)
      .values({
        code,
        notes: notes || null,
        userId: viewer.userId,
        maxUses: input.maxUses ?? null,
        expiresAt: input.expiresAt ?? null,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      })
      .returning();
    return row!;
  } catch (error) {
    if (isUniqueViolation(error))
      throw new AppError('BAD_USER_INPUT', 'That referral code exists already', { argumentName: 'input.code', reason: 'CODE_TAKEN' });
    throw error;
  }
}

/** Stops a code from being redeemed; its redemptions so far stand. Deactivating twice keeps the first time. */
export async function deactivateReferralCode(ctx: ServiceContext, id: string): Promise<ReferralCodeRow> {
  requireRole(ctx.viewer, 'ADMIN');
  const codeId = parseId(id, 'id');
  const [current] = await ctx.database.db.select().from(referralCodes).where(eq(referralCodes.id, codeId));
  if (!current) throw new AppError('NOT_FOUND', `No referral code has id ${codeId}`, { argumentName: 'id' });
  if (current.deactivatedAt) return current;
  const [row] = await ctx.database.db
    .update(referralCodes)
    .set({ deactivatedAt: ctx.now, updatedAt: ctx.now })
    .where(eq(referralCodes.id, codeId))
    .returning();
  return row!;
}
