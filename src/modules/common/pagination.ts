import { badInput } from '../../errors.js';
import { isUuid } from './ids.js';
import { isStorableDate } from './input.js';

/** Rows of a page when neither `first` nor `last` is given (also the cost limit's assumption, server/limits.ts). */
export const DEFAULT_PAGE_SIZE = 20;
/** The largest `first` or `last`. */
export const MAX_PAGE_SIZE = 100;

/**
 * A validated page request (Relay cursor connections): `size` rows forward from the list's
 * start or after `cursor` (`first`/`after`), or backward: the last `size` rows of the list,
 * or the last `size` rows before `cursor` (`last`/`before`). A backward page is read in the
 * reversed order (LIMIT size + 1, served by the same index backwards) and turned back by
 * {@link pageOf}, so both directions return rows in the list's own order.
 */
export interface PageRequest {
  size: number;
  backward: boolean;
  cursor: CursorKey | null;
}

/** A keyset position: the sort it belongs to, the sort key of the row, its id. */
export interface CursorKey {
  sort: string;
  key: string;
  id: string;
}

/** The page arguments every connection takes (GraphQL's `first`, `after`, `last`, `before`). */
export interface PageArguments {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
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

function pageSize(value: number | null | undefined, name: 'first' | 'last'): number {
  const size = value ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw badInput(name, `${name} must be between 1 and ${MAX_PAGE_SIZE}, got ${size}`);
  }
  return size;
}

/**
 * Validates the page arguments of a list ordered by `sort`: forward (`first`, `after`) or
 * backward (`last`, `before`), never a mix, since one page has one direction. A cursor is
 * only valid for the ordering that issued it; `isValidKey` checks its sort key parses for
 * that ordering. Either direction takes the other's cursors: `before: startCursor` pages back.
 */
export function parsePageRequest(args: PageArguments, sort: string, isValidKey: (key: string) => boolean): PageRequest {
  if (args.first != null && args.last != null) {
    throw badInput('last', 'first and last cannot be combined: page forward with first and after, or backward with last and before');
  }
  if (args.after != null && args.before != null) {
    throw badInput('before', 'after and before cannot be combined: page forward with first and after, or backward with last and before');
  }
  if (args.first != null && args.before != null) throw badInput('before', 'before pages backward: use it with last, not first');
  if (args.last != null && args.after != null) throw badInput('after', 'after pages forward: use it with first, not last');
  const backward = args.last != null || args.before != null;
  const name = backward ? 'before' : 'after';
  const size = backward ? pageSize(args.last, 'last') : pageSize(args.first, 'first');
  const text = backward ? args.before : args.after;
  if (text == null) return { size, backward, cursor: null };
  const cursor = decodeCursor(text);
  if (!cursor || !isValidKey(cursor.key)) throw badInput(name, `${name} is not a valid cursor`);
  if (cursor.sort !== sort) throw badInput(name, `${name} is a cursor of the ${cursor.sort} order, not of ${sort}`);
  return { size, backward, cursor };
}

/** The largest `offset` a list takes: past it, page with cursors (an offset scans the rows it skips). */
export const MAX_OFFSET = 10_000;

/**
 * Validates `offset`: rows to skip before the page, for clients that page by position (the
 * REST form's `offset`). It cannot be combined with a cursor, which already says where to
 * start, nor with backward paging, which counts from the end.
 */
export function parseOffset(args: PageArguments & { offset?: number | null }): number {
  const offset = args.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0 || offset > MAX_OFFSET) {
    throw badInput('offset', `offset must be between 0 and ${MAX_OFFSET}, got ${offset}`);
  }
  if (offset > 0 && args.after != null) throw badInput('offset', 'offset and after cannot be combined');
  if (offset > 0 && (args.last != null || args.before != null)) throw badInput('offset', 'offset cannot be combined with last or before');
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

/** A page flag known now, or found out (one statement) only when a query selects it. */
export type PageFlag = boolean | (() => Promise<boolean>);

/**
 * One page of a list, as a Relay connection. Edges and cursors are only built when a
 * query asks for them; `totalCount` is a number when the page query counted for free,
 * or a function that runs the count only when the field is selected; the page flags
 * likewise (see {@link pageOf}).
 */
export class Page<T> {
  constructor(
    readonly nodes: T[],
    private readonly next: PageFlag,
    private readonly previous: PageFlag,
    private readonly cursorOf: (node: T) => string,
    private readonly count: number | (() => Promise<number>),
  ) {}

  get edges(): Array<{ cursor: string; node: T }> {
    return this.nodes.map((node) => ({ cursor: this.cursorOf(node), node }));
  }

  get pageInfo(): PageInfoValue {
    const first = this.nodes[0];
    const last = this.nodes[this.nodes.length - 1];
    return new PageInfoValue(this.next, this.previous, first ? this.cursorOf(first) : null, last ? this.cursorOf(last) : null);
  }

  get totalCount(): number | Promise<number> {
    return typeof this.count === 'number' ? this.count : this.count();
  }

  static empty<T>(): Page<T> {
    return new Page<T>([], false, false, () => '', 0);
  }
}

/** A connection's pageInfo: each flag a boolean, or a promise when it is looked up. */
export class PageInfoValue {
  constructor(
    private readonly next: PageFlag,
    private readonly previous: PageFlag,
    readonly startCursor: string | null,
    readonly endCursor: string | null,
  ) {}

  get hasNextPage(): boolean | Promise<boolean> {
    return typeof this.next === 'boolean' ? this.next : this.next();
  }

  get hasPreviousPage(): boolean | Promise<boolean> {
    return typeof this.previous === 'boolean' ? this.previous : this.previous();
  }
}

/**
 * The page of a `size + 1` read in the request's direction: the extra row says whether
 * more rows lie ahead in that direction, a backward read is turned back into the list's
 * order, and `beyondCursor` answers for the other side of the cursor (rows at or before
 * `after`, at or after `before`); without a cursor the page starts (or ends) the list, so
 * nothing lies on that side. `beyondCursor` runs only when a query selects the flag.
 * `offset` rows skipped before a forward page precede it (when the page is empty, skipped
 * past the end, rows precede it if any exist at all: the count, when selected).
 */
export function pageOf<T>(
  rows: T[],
  request: PageRequest,
  cursorOf: (node: T) => string,
  count: number | (() => Promise<number>),
  beyondCursor: PageFlag,
  offset = 0,
): Page<T> {
  const more = rows.length > request.size;
  // The page's rows alone: the one past them only tells that more lie ahead.
  const nodes = rows.slice(0, request.size);
  if (request.backward) nodes.reverse();
  let otherSide: PageFlag = false;
  if (request.cursor) otherSide = memo(beyondCursor);
  else if (offset > 0) otherSide = nodes.length > 0 || memo(async () => (typeof count === 'number' ? count : await count()) > 0);
  return request.backward ? new Page(nodes, otherSide, more, cursorOf, count) : new Page(nodes, more, otherSide, cursorOf, count);
}

/** A flag looked up at most once, however many times (aliases) it is selected. */
function memo(flag: PageFlag): PageFlag {
  if (typeof flag === 'boolean') return flag;
  let found: Promise<boolean> | undefined;
  return () => (found ??= flag());
}
