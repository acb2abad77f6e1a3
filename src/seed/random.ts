/** Deterministic randomness, identifiers and time arithmetic of the demo seeder. */

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
export const DECIMALS = 6;
export const UNIT = 10n ** BigInt(DECIMALS);

/** mulberry32: tiny, fast, and the same sequence on every machine. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
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

  /** A version-4 UUID built from PRNG bytes. */
  uuid(): string {
    const b = this.bytes(16);
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    const hex = Buffer.from(b).toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  /** A 32-byte key in base58, as Solana writes addresses. */
  address(): string {
    return base58(this.bytes(32));
  }
}

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Bitcoin/Solana base58: big-endian number in base 58, one '1' per leading zero byte. */
export function base58(bytes: Uint8Array): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let out = '';
  while (value > 0n) {
    out = BASE58_ALPHABET[Number(value % 58n)]! + out;
    value /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    out = `1${out}`;
  }
  return out;
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
