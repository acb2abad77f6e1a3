import { describe, expect, it } from 'vitest';
import { toBaseUnits, toTokens } from '../../src/modules/common/amounts.js';

describe('token amounts', () => {
  it('converts base units to whole tokens exactly', () => {
    expect(toTokens(1_234_567n, 6)).toBe(1.234567);
    expect(toTokens(1n, 6)).toBe(0.000001);
    expect(toTokens(0n, 6)).toBe(0);
    expect(toTokens(100_000_000n, 6)).toBe(100);
    expect(toTokens(-5_500_000n, 6)).toBe(-5.5);
    expect(toTokens(42n, 0)).toBe(42);
    // 0.1 + 0.2 style drift would show here if floats were involved.
    expect(toTokens(300_000n, 6)).toBe(0.3);
  });

  it('parses whole tokens into base units, refusing excess decimals', () => {
    expect(toBaseUnits(1.234567, 6)).toBe(1_234_567n);
    expect(toBaseUnits(0.3, 6)).toBe(300_000n);
    expect(toBaseUnits(100, 6)).toBe(100_000_000n);
    expect(toBaseUnits(1e-6, 6)).toBe(1n);
    expect(toBaseUnits(1e21, 6)).toBe(10n ** 27n);
    expect(toBaseUnits(1.0000001, 6)).toBeNull();
    expect(toBaseUnits(1e-7, 6)).toBeNull();
    expect(toBaseUnits(Number.NaN, 6)).toBeNull();
    expect(toBaseUnits(Number.POSITIVE_INFINITY, 6)).toBeNull();
  });

  it('gives the double nearest the exact decimal, fast path or not', () => {
    // The reference: the exact decimal string, parsed once (correctly rounded by Number()).
    const exact = (units: bigint, decimals: number) => {
      const digits = (units < 0n ? -units : units).toString().padStart(decimals + 1, '0');
      return Number(
        `${units < 0n ? '-' : ''}${digits.slice(0, digits.length - decimals)}.${digits.slice(digits.length - decimals) || '0'}`,
      );
    };
    let state = 12_345n;
    const next = () => (state = (state * 6_364_136_223_846_793_005n + 1_442_695_040_888_963_407n) % 2n ** 64n);
    const samples: bigint[] = [0n, 1n, -1n, 2n ** 53n - 1n, -(2n ** 53n - 1n), 2n ** 53n, 2n ** 53n + 1n, 10n ** 30n + 7n];
    for (let i = 0; i < 20_000; i++) samples.push((next() % 2n ** BigInt(1 + (i % 60))) - (i % 3 === 0 ? 2n ** 20n : 0n));
    for (const units of samples) {
      for (const decimals of [0, 1, 6, 9, 15, 22, 23]) expect(toTokens(units, decimals)).toBe(exact(units, decimals));
    }
  });

  it('round-trips every amount of a sample', () => {
    for (const units of [1n, 9n, 10n, 123n, 999_999n, 1_000_000n, 987_654_321n, 2n ** 53n]) {
      expect(toBaseUnits(toTokens(units, 6), 6)).toBe(units);
    }
  });
});
