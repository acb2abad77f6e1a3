import { badInput } from '../../errors.js';

/**
 * Checks of free input that the database would otherwise refuse with an internal error:
 * a NUL byte in text (Postgres text cannot hold one) and dates outside what both
 * JavaScript's ISO form and a Postgres timestamptz can carry.
 */

// Control characters other than tab and newlines; NUL among them.
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

/** `value` trimmed: 1 to `maxLength` characters, no control characters; BAD_USER_INPUT otherwise. */
export function requireText(value: string, argumentName: string, maxLength: number): string {
  const text = value.trim();
  if (text.length === 0) throw badInput(argumentName, `${argumentName} must not be empty`);
  if (text.length > maxLength) throw badInput(argumentName, `${argumentName} must be at most ${maxLength} characters`);
  if (CONTROL_CHARACTERS.test(text)) throw badInput(argumentName, `${argumentName} must not contain control characters`);
  return text;
}

/** Earliest and latest instants accepted: year 1 to the end of 9999 less a day, so a day range stays storable. */
const EARLIEST_DATE_MS = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST_DATE_MS = Date.parse('9999-12-30T23:59:59.999Z');

/** True for a valid Date between year 1 and 9999-12-30 (a following day still has a 4-digit year). */
export function isStorableDate(date: Date): boolean {
  const ms = date.getTime();
  return Number.isFinite(ms) && ms >= EARLIEST_DATE_MS && ms <= LATEST_DATE_MS;
}

/** `date` when storable; BAD_USER_INPUT naming the range otherwise. */
export function requireStorableDate(date: Date, argumentName: string): Date {
  if (!isStorableDate(date)) throw badInput(argumentName, `${argumentName} must be between 0001-01-01 and 9999-12-30`);
  return date;
}
