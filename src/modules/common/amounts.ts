/**
 * Token amounts are stored as integer base units (bigint) and shown as JSON numbers in
 * whole tokens. The conversion goes through the exact decimal string, never through
 * floating-point arithmetic, so 1234567 base units at 6 decimals is exactly 1.234567.
 */
export function toTokens(baseUnits: bigint, decimals: number): number {
  if (decimals === 0) return Number(baseUnits);
  const negative = baseUnits < 0n;
  const digits = (negative ? -baseUnits : baseUnits).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals);
  return Number(`${negative ? '-' : ''}${whole}.${fraction}`);
}

/**
 * Parses a whole-token amount into base units, or returns null when it has more
 * decimals than the mint or is not a finite number.
 */
export function toBaseUnits(tokens: number, decimals: number): bigint | null {
  if (!Number.isFinite(tokens)) return null;
  // The shortest round-trip string of a double is the decimal the caller wrote.
  const text = tokens.toString();
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text);
  if (!match) return null;
  const [, sign, whole = '0', fraction = '', exponentText] = match;
  const exponent = exponentText ? Number(exponentText) : 0;
  let digits = whole + fraction;
  let scale = fraction.length - exponent; // value = digits * 10^-scale
  while (scale > 0 && digits.endsWith('0') && digits.length > 1) {
    digits = digits.slice(0, -1);
    scale--;
  }
  if (scale > decimals) return null;
  const units = BigInt(digits) * 10n ** BigInt(decimals - scale);
  return sign === '-' ? -units : units;
}
