import type { PoolRow } from '../../../schema/index.js';
import { badInput } from '../../errors.js';
import { toBaseUnits, toTokens } from '../common/amounts.js';

/** A stake in whole tokens as base units of the pool's mint, inside the pool's bounds. */
export function parseStake(pool: PoolRow, stake: number, argumentName: string): bigint {
  const units = toBaseUnits(stake, pool.decimals);
  if (units === null) throw badInput(argumentName, `${argumentName} has more than ${pool.decimals} decimals`);
  if (units < pool.minStake || units > pool.maxStake) {
    const [min, max] = [toTokens(pool.minStake, pool.decimals), toTokens(pool.maxStake, pool.decimals)];
    throw badInput(argumentName, `${argumentName} must be between ${min} and ${max} (the pool's minStake and maxStake); got ${stake}`);
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
  const grid = `the pool's grid ${pool.minOutcome} + k * ${pool.step}`;
  if (scaled === null) {
    throw badInput(argumentName, `${argumentName} must lie on ${grid}, with at most ${pool.precision} decimals; got ${value}`);
  }
  if (min === null || max === null || step === null || step === 0n) throw new Error(`pool ${pool.id} has an invalid grid`);
  if (scaled < min || scaled > max) {
    const bounds = `${pool.minOutcome} and ${pool.maxOutcome} (the pool's minOutcome and maxOutcome)`;
    throw badInput(argumentName, `${argumentName} must be between ${bounds}; got ${value}`);
  }
  if ((scaled - min) % step !== 0n) {
    // The two grid values around it, so the caller can pick one.
    const below = scaled - ((scaled - min) % step);
    const around = [below, below + step].map((units) => toTokens(units, pool.precision)).join(' or ');
    throw badInput(argumentName, `${argumentName} must lie on ${grid}, such as ${around}; got ${value}`);
  }
  return value.toString();
}
