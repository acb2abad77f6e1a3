import { decodeJwt } from 'jose';
import { AppError } from '../../errors.js';

/** How a build parameter is read back from the proof, where it is a canonical string. */
type ParamKind = 'string' | 'number';

/**
 * Completes a submit's input with the build parameters it left out. The proof already binds
 * every parameter, so a client need not repeat them; those it does repeat stay as given, and
 * the proof check that follows refuses any that differ (PROOF_INVALID). The values read here
 * are unverified until that check runs against them, which it always does.
 */
export function completeFromProof<T extends { proof: string }>(input: T, kinds: Record<string, ParamKind>): T {
  const missing = Object.keys(kinds).filter((key) => (input as Record<string, unknown>)[key] == null);
  if (missing.length === 0) return input;
  let params: unknown;
  try {
    params = decodeJwt(input.proof).prm;
  } catch {
    throw new AppError('PROOF_INVALID', 'The proof is not valid', { argumentName: 'input.proof' });
  }
  const completed: Record<string, unknown> = { ...input };
  for (const key of missing) {
    const value = (params as Record<string, unknown> | undefined)?.[key];
    if (typeof value !== 'string') throw new AppError('PROOF_INVALID', `The proof does not bind ${key}`, { argumentName: 'input.proof' });
    completed[key] = kinds[key] === 'number' ? Number(value) : value;
  }
  return completed as T;
}
