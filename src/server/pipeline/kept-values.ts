/**
 * Values computed from a request header, kept by its text: a service sees few distinct
 * values. A client sending a new one at every request only empties the map now and then, and
 * a long one (past KEPT_KEY_CHARACTERS) is computed every time, never kept: at most a
 * thousand short texts are held, whatever clients send.
 */
export class KeptValues<V> {
  private readonly kept = new Map<string, V>();

  of(key: string, compute: () => V): V {
    if (key.length > KEPT_KEY_CHARACTERS) return compute();
    const kept = this.kept.get(key);
    // One lookup for a value kept; a second only for an undefined one (kept, or not yet).
    if (kept !== undefined || this.kept.has(key)) return kept as V;
    const value = compute();
    if (this.kept.size >= KEPT_VALUES) this.kept.clear();
    this.kept.set(key, value);
    return value;
  }
}
const KEPT_VALUES = 1_000;
const KEPT_KEY_CHARACTERS = 512;
