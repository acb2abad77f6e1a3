/** Deterministic randomness, identifiers and time arithmetic of the demo seeder. */

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
export const DECIMALS = 6;
export const UNIT = 10n ** BigInt(DECIMALS);

/** mulberry32: tiny, fast, and the same sequence on every machine. */
export class Rng {
  private state: number;
  /** Numbers drawn so far. */
  draws = 0;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.draws++;
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let r = Math.imul(this.state ^ (this.state >>> 15), 1 | this.state);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Fisher-Yates on a copy. */
  shuffled<T>(items: readonly T[]): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy;
  }

  /** `n` distinct items, each chosen with probability growing with its weight (Efraimidis-Spirakis). */
  weightedSample<T>(items: readonly T[], weight: (item: T) => number, n: number): T[] {
    return items
      .map((item) => ({ item, key: Math.pow(this.next(), 1 / Math.max(weight(item), 1e-6)) }))
      .sort((a, b) => b.key - a.key)
      .slice(0, Math.max(0, n))
      .map((entry) => entry.item);
  }

  /**
   * `n` distinct indexes of [0, length), uniformly, in the order drawn. Draws about `n`
   * numbers (rejecting repeats) when `n` is small beside `length`, so the cost follows `n`
   * and not the list; otherwise a partial shuffle of the whole range.
   */
  distinctIndexes(length: number, n: number): number[] {
    const count = Math.max(0, Math.min(n, length));
    if (count * 4 > length) {
      const range = Array.from({ length }, (_, i) => i);
      for (let i = 0; i < count; i++) {
        const j = i + Math.floor(this.next() * (length - i));
        [range[i], range[j]] = [range[j]!, range[i]!];
      }
      return range.slice(0, count);
    }
    const chosen = new Set<number>();
    while (chosen.size < count) chosen.add(Math.floor(this.next() * length));
    return [...chosen];
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = Math.floor(this.next() * 256);
    return out;
  }

  /** A version-4 UUID built from PRNG bytes (16 draws, as `bytes(16)`), written as one flat string. */
  uuid(): string {
    const codes = UUID_CODES;
    for (let i = 0, at = 0; i < 16; i++) {
      let byte = Math.floor(this.next() * 256);
      if (i === 6) byte = (byte & 0x0f) | 0x40;
      else if (i === 8) byte = (byte & 0x3f) | 0x80;
      codes[at++] = HEX_CODES[byte >> 4]!;
      codes[at++] = HEX_CODES[byte & 15]!;
      if (i === 3 || i === 5 || i === 7 || i === 9) at++; // the dash, already in place
    }
    return String.fromCharCode.apply(null, codes as unknown as number[]);
  }

  /** A 32-byte key in base58, as Solana writes addresses. */
  address(): string {
    const bytes = ADDRESS_BYTES; // 32 draws, as `bytes(32)`, into one reused array
    for (let i = 0; i < 32; i++) bytes[i] = Math.floor(this.next() * 256);
    return base58(bytes);
  }
}

/** Character codes of the hex digits, and a UUID's characters, filled in place by Rng.uuid (dashes fixed). */
const HEX_CODES = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const UUID_CODES = Uint8Array.from('00000000-0000-0000-0000-000000000000', (c) => c.charCodeAt(0));
/** An address's bytes, filled in place by Rng.address. */
const ADDRESS_BYTES = new Uint8Array(32);

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

const BASE58_CODES = Uint8Array.from(BASE58_ALPHABET, (c) => c.charCodeAt(0));
const ONE = BASE58_CODES[0]!;

/** 58^5, the base of base58's limbs below: a limb times 2^16 plus a carry stays an exact double. */
const LIMB = 58 ** 5;
const POWERS_OF_58 = [1, 58, 58 ** 2, 58 ** 3, 58 ** 4];

/** limbs = limbs * multiplier + value, in base 58^5. */
function multiplyAdd(limbs: number[], multiplier: number, value: number): void {
  let carry = value;
  for (let j = 0; j < limbs.length; j++) {
    carry += limbs[j]! * multiplier;
    const high = Math.floor(carry / LIMB);
    limbs[j] = carry - high * LIMB;
    carry = high;
  }
  while (carry > 0) {
    const high = Math.floor(carry / LIMB);
    limbs.push(carry - high * LIMB);
    carry = high;
  }
}

/**
 * Bitcoin/Solana base58: big-endian number in base 58, one '1' per leading zero byte.
 * Schoolbook conversion, two bytes at a time into limbs of five base-58 digits, no BigInt:
 * the seeder writes hundreds of thousands of addresses, and BigInt division allocated a
 * number per digit.
 */
export function base58(bytes: Uint8Array): string {
  // Limbs in base 58^5, least significant first.
  const limbs: number[] = [];
  let i = 0;
  if (bytes.length % 2) multiplyAdd(limbs, 256, bytes[i++]!);
  for (; i < bytes.length; i += 2) multiplyAdd(limbs, 65_536, (bytes[i]! << 8) | bytes[i + 1]!);
  // Digits, most significant first: a '1' per leading zero byte, then the limbs' digits
  // without the most significant limb's leading zeros (its padding to five).
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  const codes: number[] = new Array<number>(zeros).fill(ONE);
  for (let j = limbs.length - 1; j >= 0; j--) {
    let limb = limbs[j]!;
    for (let d = 4; d >= 0; d--) {
      const power = POWERS_OF_58[d]!;
      const digit = Math.floor(limb / power);
      limb -= digit * power;
      if (digit || codes.length > zeros || j < limbs.length - 1) codes.push(BASE58_CODES[digit]!);
    }
  }
  return String.fromCharCode.apply(null, codes);
}

/** Base units as a decimal string of whole tokens ("12.5"). */
export function formatUnits(units: bigint): string {
  const whole = units / UNIT;
  const fraction = (units % UNIT).toString().padStart(DECIMALS, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}

/** The first index of an ascending array whose value is at least `value` (its length if none). */
export const firstAtOrAfter = (sorted: ArrayLike<number>, value: number): number => firstIndexPast(sorted, value, false);

/** The first index of an ascending array whose value is above `value` (its length if none). */
export const firstAbove = (sorted: ArrayLike<number>, value: number): number => firstIndexPast(sorted, value, true);

/** Binary search: the first index whose value is above `value`, or (`above` false) at least it. */
function firstIndexPast(sorted: ArrayLike<number>, value: number, above: boolean): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const before = above ? sorted[middle]! <= value : sorted[middle]! < value;
    if (before) low = middle + 1;
    else high = middle;
  }
  return low;
}

export const date = (ms: number) => new Date(Math.round(ms));
export const isoDay = (d: Date) => d.toISOString().slice(0, 10);
export const maxDate = (...dates: Date[]) => date(Math.max(...dates.map((d) => d.getTime())));
