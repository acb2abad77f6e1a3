/**
 * Token amounts are stored as integer base units (bigint) and shown as JSON numbers in
 * whole tokens. The conversion gives the double nearest the exact decimal (what Number()
 * of the exact decimal string gives), never an accumulated float error, so 1234567 base
 * units at 6 decimals is exactly 1.234567.
 */
/** 10^0 ... 10^22, the powers of ten a double holds exactly (parsed, so each is exact). */
const EXACT_POWERS_OF_TEN = Array.from({ length: 23 }, (_, n) => Number(`1e${n}`));
const MAX_EXACT_INTEGER = 2n ** 53n;

export function toTokens(baseUnits: bigint, decimals: number): number {
  // The read path converts hundreds of amounts per request, so the common case allocates
  // nothing: when the units and 10^decimals are both exact doubles, IEEE division rounds the
  // exact quotient once, to the nearest double, which is what Number() of its decimal string gives.
  if (decimals < EXACT_POWERS_OF_TEN.length && baseUnits < MAX_EXACT_INTEGER && baseUnits > -MAX_EXACT_INTEGER) {
    return Number(baseUnits) / EXACT_POWERS_OF_TEN[decimals]!;
  }
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
