import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { keysetClauses } from '../../src/read/keyset.js';
import { encodeCursor, isIsoDate, pageOf, parseOffset, parsePageRequest } from '../../src/modules/common/pagination.js';

const id = '7b0f8d4e-1c2a-4b3c-8d4e-5f6a7b8c9d0e';

function badArgument(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('BAD_USER_INPUT');
    return (error as AppError).details.argumentName as string;
  }
  throw new Error('expected BAD_USER_INPUT');
}

describe('page requests', () => {
  it('defaults to the first 20 and accepts first and last in 1..100', () => {
    expect(parsePageRequest({}, 'S', isIsoDate)).toEqual({ size: 20, backward: false, cursor: null });
    expect(parsePageRequest({ first: 1 }, 'S', isIsoDate).size).toBe(1);
    expect(parsePageRequest({ first: 100 }, 'S', isIsoDate).size).toBe(100);
    expect(parsePageRequest({ last: 7 }, 'S', isIsoDate)).toEqual({ size: 7, backward: true, cursor: null });
    expect(parsePageRequest({ last: 100 }, 'S', isIsoDate).size).toBe(100);
  });

  it('rejects first and last outside 1..100, naming the argument', () => {
    for (const first of [0, -1, 101, 1000]) expect(badArgument(() => parsePageRequest({ first }, 'S', isIsoDate))).toBe('first');
    for (const last of [0, -1, 101, 1.5]) expect(badArgument(() => parsePageRequest({ last }, 'S', isIsoDate))).toBe('last');
  });

  it("pages one way at a time: first with last, after with before, or one direction's size with the other's cursor are refused", () => {
    const cursor = encodeCursor('S', '2026-01-01T00:00:00.000Z', id);
    expect(badArgument(() => parsePageRequest({ first: 2, last: 2 }, 'S', isIsoDate))).toBe('last');
    expect(badArgument(() => parsePageRequest({ after: cursor, before: cursor }, 'S', isIsoDate))).toBe('before');
    expect(badArgument(() => parsePageRequest({ first: 2, before: cursor }, 'S', isIsoDate))).toBe('before');
    expect(badArgument(() => parsePageRequest({ last: 2, after: cursor }, 'S', isIsoDate))).toBe('after');
    // before alone pages back with the default size; a foreign before is refused like a foreign after.
    expect(parsePageRequest({ before: cursor }, 'S', isIsoDate)).toEqual({
      size: 20,
      backward: true,
      cursor: { sort: 'S', key: '2026-01-01T00:00:00.000Z', id },
    });
    expect(badArgument(() => parsePageRequest({ last: 3, before: cursor }, 'OTHER', isIsoDate))).toBe('before');
    expect(badArgument(() => parsePageRequest({ last: 3, before: 'nope' }, 'S', isIsoDate))).toBe('before');
  });

  it('refuses offset with a cursor or with backward paging', () => {
    const cursor = encodeCursor('S', '2026-01-01T00:00:00.000Z', id);
    expect(parseOffset({ offset: 5, first: 3 })).toBe(5);
    expect(badArgument(() => parseOffset({ offset: 5, after: cursor }))).toBe('offset');
    expect(badArgument(() => parseOffset({ offset: 5, last: 3 }))).toBe('offset');
    expect(badArgument(() => parseOffset({ offset: 5, before: cursor }))).toBe('offset');
  });

  it('decodes its own cursors and rejects foreign or broken ones', () => {
    const cursor = encodeCursor('S', '2026-01-01T00:00:00.000Z', id);
    expect(parsePageRequest({ after: cursor }, 'S', isIsoDate).cursor).toEqual({
      sort: 'S',
      key: '2026-01-01T00:00:00.000Z',
      id,
    });
    const broken = [
      'nope',
      '',
      Buffer.from('[1,2]').toString('base64url'),
      encodeCursor('S', 'not a date', id),
      encodeCursor('S', '2026-01-01', 'x'),
    ];
    for (const after of broken) expect(badArgument(() => parsePageRequest({ after }, 'S', isIsoDate))).toBe('after');
    expect(badArgument(() => parsePageRequest({ after: cursor }, 'OTHER', isIsoDate))).toBe('after');
  });
});

describe('pages', () => {
  const rows = (...ids: string[]) => ids.map((i) => ({ id: i }));
  const cursorOf = (row: { id: string }) => row.id;
  const forward = { size: 2, backward: false, cursor: null };
  const backward = { size: 2, backward: true, cursor: null };
  const cursor = { sort: 'S', key: 'k', id };

  it('keeps size rows; the extra row says more lie ahead in the reading direction', async () => {
    const ahead = pageOf(rows('a', 'b', 'c'), forward, cursorOf, 3, async () => true);
    expect(ahead.nodes.map(cursorOf)).toEqual(['a', 'b']);
    expect(ahead.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false, startCursor: 'a', endCursor: 'b' });
    expect(pageOf(rows('a', 'b'), forward, cursorOf, 2, async () => true).pageInfo.hasNextPage).toBe(false);
  });

  it('turns a backward read (newest of the reversed order first) back into the list order', () => {
    const read = rows('z', 'y', 'x');
    const page = pageOf(read, backward, cursorOf, 3, async () => true);
    expect(page.nodes.map(cursorOf)).toEqual(['y', 'z']);
    expect(page.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false, startCursor: 'y', endCursor: 'z' });
    expect(read.map(cursorOf)).toEqual(['z', 'y', 'x']);
  });

  it("asks about the cursor's far side only with a cursor, once, and only when selected", async () => {
    let asked = 0;
    const probe = async () => (asked++, true);
    const page = pageOf(rows('a'), { ...forward, cursor }, cursorOf, 1, probe);
    expect(asked).toBe(0);
    const info = page.pageInfo;
    expect(await info.hasPreviousPage).toBe(true);
    expect(await info.hasPreviousPage).toBe(true);
    expect(info.hasNextPage).toBe(false);
    expect(asked).toBe(1);
    expect(await pageOf(rows('a'), { ...backward, cursor }, cursorOf, 1, async () => false).pageInfo.hasNextPage).toBe(false);
    expect(await pageOf(rows('a'), { ...backward, cursor }, cursorOf, 1, async () => true).pageInfo.hasNextPage).toBe(true);
  });

  it('counts skipped rows as preceding a forward page', async () => {
    expect(pageOf(rows('a'), forward, cursorOf, 9, async () => false, 3).pageInfo.hasPreviousPage).toBe(true);
    expect(await pageOf([], forward, cursorOf, 2, async () => false, 3).pageInfo.hasPreviousPage).toBe(true);
    expect(await pageOf([], forward, cursorOf, 0, async () => false, 3).pageInfo.hasPreviousPage).toBe(false);
  });
});

describe('keyset clauses', () => {
  const order = { key: 't."k"', id: 't."id"', descending: true, keyType: 'timestamptz' };
  const params: unknown[] = [];
  const param = (value: unknown, type: string) => (params.push(value), `$${params.length}::${type}`);

  it('reads the list order forward and its reverse backward, past the cursor, the far side non-strict', () => {
    expect(keysetClauses(order, false, null, param)).toEqual({ past: null, beyond: null, orderBy: 't."k" DESC, t."id" DESC' });
    expect(keysetClauses(order, false, { key: 'x', id }, param)).toEqual({
      past: '(t."k", t."id") < ($1::timestamptz, $2::uuid)',
      beyond: '(t."k", t."id") >= ($1::timestamptz, $2::uuid)',
      orderBy: 't."k" DESC, t."id" DESC',
    });
    expect(keysetClauses({ ...order, descending: false }, true, { key: 'x', id }, param)).toEqual({
      past: '(t."k", t."id") < ($3::timestamptz, $4::uuid)',
      beyond: '(t."k", t."id") >= ($3::timestamptz, $4::uuid)',
      orderBy: 't."k" DESC, t."id" DESC',
    });
    expect(keysetClauses(order, true, null, param).orderBy).toBe('t."k" ASC, t."id" ASC');
    expect(params).toEqual(['x', id, 'x', id]);
  });
});
