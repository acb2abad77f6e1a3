import type { PoolRow } from '../../../schema/index.js';
import { badInput } from '../../errors.js';
import { toBaseUnits } from '../common/amounts.js';

/** A stake in whole tokens as base units of the pool's mint, inside the pool's bounds. */
export function parseStake(pool: PoolRow, stake: number, argumentName: string): bigint {
  const units = toBaseUnits(stake, pool.decimals);
  if (units === null) throw badInput(argumentName, `${argumentName} has more than ${pool.decimals} decimals`);
  if (units < pool.minStake || units > pool.maxStake) {
    throw badInput(argumentName, `${argumentName} must be between the pool's minStake and maxStake`);
  }
  return units;
}

/**
 * A predicted value, checked exactly against the pool's bounds and grid (minOutcome + k *
 * step) by scaling everything to integers at the pool's precision. Returns its decimal text.
 */
export function parseOutcome(pool: PoolRow, value: number, argumentName: string): string {
  const scaled = toBaseUnits(value, pool.precision);
  const min = toBaseUnits(pool.minOutcome, pool.precision);
  const max = toBaseUnits(pool.maxOutcome, pool.precision);
  const step = toBaseUnits(pool.step, pool.precision);
  if (scaled === null) throw badInput(argumentName, `${argumentName} has more than ${pool.precision} decimals`);
  if (min === null || max === null || step === null || step === 0n) throw new Error(`pool ${pool.id} has an invalid grid`);
  if (scaled < min || scaled > max) throw badInput(argumentName, `${argumentName} must be between minOutcome and maxOutcome`);
  if ((scaled - min) % step !== 0n) throw badInput(argumentName, `${argumentName} must lie on the grid minOutcome + k * step`);
  return value.toString();
}
