import { badInput } from '../../errors.js';
import { isUuid } from './ids.js';
import { isStorableDate } from './input.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** A validated page request: how many rows, and the keyset position to start after. */
export interface PageRequest {
  first: number;
  after: CursorKey | null;
}

/** A keyset position: the sort it belongs to, the sort key of the last row seen, its id. */
export interface CursorKey {
  sort: string;
  key: string;
  id: string;
}

export function encodeCursor(sort: string, key: string, id: string): string {
  return Buffer.from(JSON.stringify([sort, key, id])).toString('base64url');
}

function decodeCursor(cursor: string): CursorKey | null {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed) || parsed.length !== 3) return null;
    const [sort, key, id] = parsed as unknown[];
    if (typeof sort !== 'string' || typeof key !== 'string' || typeof id !== 'string' || !isUuid(id)) return null;
    return { sort, key, id };
  } catch {
    return null;
  }
}

/**
 * Validates `first` and `after` for a list ordered by `sort`. A cursor is only valid for
 * the ordering that issued it; `isValidKey` checks its sort key parses for that ordering.
 */
export function parsePageRequest(
  args: { first?: number | null; after?: string | null },
  sort: string,
  isValidKey: (key: string) => boolean,
): PageRequest {
  const first = args.first ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(first) || first < 1 || first > MAX_PAGE_SIZE) {
    throw badInput('first', `first must be between 1 and ${MAX_PAGE_SIZE}, got ${first}`);
  }
  if (args.after == null) return { first, after: null };
  const after = decodeCursor(args.after);
  if (!after || !isValidKey(after.key)) throw badInput('after', 'after is not a valid cursor');
  if (after.sort !== sort) throw badInput('after', `after is a cursor of the ${after.sort} order, not of ${sort}`);
  return { first, after };
}

/** The largest `offset` a list takes: past it, page with cursors (an offset scans the rows it skips). */
export const MAX_OFFSET = 10_000;

/**
 * Validates `offset`: rows to skip before the page, for clients that page by position (the
 * REST form's `offset`). It cannot be combined with a cursor, which already says where to start.
 */
export function parseOffset(args: { offset?: number | null; after?: string | null }): number {
  const offset = args.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0 || offset > MAX_OFFSET) {
    throw badInput('offset', `offset must be between 0 and ${MAX_OFFSET}, got ${offset}`);
  }
  if (offset > 0 && args.after != null) throw badInput('offset', 'offset and after cannot be combined');
  return offset;
}

/**
 * Cursor keys are checked in the form this service writes them, not by what JavaScript
 * happens to parse ("1", "2024-02-30" and year 275760 parse; Postgres casts none of them).
 */
export const isIsoDate = (key: string) => {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(key)) return false;
  const date = new Date(key);
  return isStorableDate(date) && date.toISOString() === key;
};
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** A base-10 integer that fits a Postgres bigint. */
export const isIntegerString = (key: string) => /^-?\d{1,19}$/.test(key) && BigInt(key) >= INT64_MIN && BigInt(key) <= INT64_MAX;

/**
 * One page of a list, as a Relay connection. Edges and cursors are only built when a
 * query asks for them; `totalCount` is a number when the page query counted for free,
 * or a function that runs the count only when the field is selected.
 */
export class Page<T extends { id: string }> {
  constructor(
    readonly nodes: T[],
    readonly hasNextPage: boolean,
    readonly hasPreviousPage: boolean,
    private readonly cursorOf: (node: T) => string,
    private readonly count: number | (() => Promise<number>),
  ) {}

  get edges(): Array<{ cursor: string; node: T }> {
    return this.nodes.map((node) => ({ cursor: this.cursorOf(node), node }));
  }

  get pageInfo() {
    const first = this.nodes[0];
    const last = this.nodes[this.nodes.length - 1];
    return {
      hasNextPage: this.hasNextPage,
      hasPreviousPage: this.hasPreviousPage,
      startCursor: first ? this.cursorOf(first) : null,
      endCursor: last ? this.cursorOf(last) : null,
    };
  }

  get totalCount(): number | Promise<number> {
    return typeof this.count === 'number' ? this.count : this.count();
  }

  static empty<T extends { id: string }>(): Page<T> {
    return new Page<T>([], false, false, () => '', 0);
  }
}

/** Keeps the `first` rows of a `first + 1` fetch and reports whether more exist. */
export function takePage<T>(rows: T[], first: number): { nodes: T[]; hasNextPage: boolean } {
  return rows.length > first ? { nodes: rows.slice(0, first), hasNextPage: true } : { nodes: rows, hasNextPage: false };
}
