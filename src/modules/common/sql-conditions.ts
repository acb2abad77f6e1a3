/**
 * The WHERE conditions of a hand-written read statement, their values as positional
 * parameters (`$n::type`), so the text depends on the statement's shape alone and can stay
 * prepared. Conditions are SQL written by the services, never from input.
 */
export class Conditions {
  readonly parts: string[] = [];
  constructor(readonly params: unknown[] = []) {}

  /** Adds `value` as the next parameter; returns its SQL, cast to `type`. */
  param(value: unknown, type: string): string {
    this.params.push(value);
    return `$${this.params.length}::${type}`;
  }

  add(sql: string): void {
    this.parts.push(sql);
  }

  where(): string {
    return this.parts.length ? ` WHERE ${this.parts.join(' AND ')}` : '';
  }
}
