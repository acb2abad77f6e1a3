import { decodeJwt } from 'jose';
import { AppError } from '../../errors.js';
import type { OperationName } from './operations.js';

/** Where a proof of each two-step operation is submitted, named in the refusal of a proof sent to another. */
const SUBMITTED_AT: Partial<Record<OperationName, string>> = {
  placePrediction: 'submitPredictionTransaction (REST: POST /transactions/prediction/submit)',
  updateStake: 'submitStakeUpdateTransaction (REST: POST /transactions/stake/update/submit)',
  updateValue: 'submitPredictionUpdateTransaction (REST: POST /transactions/prediction/update/submit)',
  withdraw: 'submitWithdrawTransaction (REST: POST /transactions/withdraw/submit)',
};

/** How a build parameter is read back from the proof, where it is a canonical string. */
type ParamKind = 'string' | 'number';

/**
 * Completes a submit's input with the build parameters it left out. The proof already binds
 * every parameter, so a client need not repeat them; those it does repeat stay as given, and
 * the proof check that follows refuses any that differ (PROOF_INVALID). The values read here
 * are unverified until that check runs against them, which it always does.
 */
export function completeFromProof<T extends { proof: string }>(input: T, operation: OperationName, kinds: Record<string, ParamKind>): T {
  let claims: { op?: unknown; prm?: unknown } | null = null;
  try {
    claims = decodeJwt(input.proof);
  } catch {
    // Refused below when a parameter must be read from it; otherwise by the proof check.
  }
  // A proof built for another operation (a stake update submitted as a value update, say) is
  // refused naming where it belongs, before a parameter it never bound is missed.
  if (claims && typeof claims.op === 'string' && claims.op !== operation) {
    const where = SUBMITTED_AT[claims.op as OperationName];
    throw new AppError(
      'PROOF_INVALID',
      `The proof was built for ${claims.op}, not ${operation}${where ? `: submit it with ${where}` : ''}`,
      { argumentName: 'input.proof' },
    );
  }
  const missing = Object.keys(kinds).filter((key) => (input as Record<string, unknown>)[key] == null);
  if (missing.length === 0) return input;
  if (!claims) throw new AppError('PROOF_INVALID', 'The proof is not valid', { argumentName: 'input.proof' });
  const params = claims.prm;
  const completed: Record<string, unknown> = { ...input };
  for (const key of missing) {
    const value = (params as Record<string, unknown> | undefined)?.[key];
    if (typeof value !== 'string') throw new AppError('PROOF_INVALID', `The proof does not bind ${key}`, { argumentName: 'input.proof' });
    completed[key] = kinds[key] === 'number' ? Number(value) : value;
  }
  return completed as T;
}
