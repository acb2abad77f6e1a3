import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { encodeCursor, isIsoDate, parsePageRequest } from '../../src/modules/common/pagination.js';

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
  it('defaults first to 20 and accepts 1..100', () => {
    expect(parsePageRequest({}, 'S', isIsoDate).first).toBe(20);
    expect(parsePageRequest({ first: 1 }, 'S', isIsoDate).first).toBe(1);
    expect(parsePageRequest({ first: 100 }, 'S', isIsoDate).first).toBe(100);
  });

  it('rejects first outside 1..100, naming the argument', () => {
    for (const first of [0, -1, 101, 1000]) expect(badArgument(() => parsePageRequest({ first }, 'S', isIsoDate))).toBe('first');
  });

  it('decodes its own cursors and rejects foreign or broken ones', () => {
    const cursor = encodeCursor('S', '2026-01-01T00:00:00.000Z', id);
    expect(parsePageRequest({ after: cursor }, 'S', isIsoDate).after).toEqual({
      sort: 'S',
      key: '2026-01-01T00:00:00.000Z',
      id,
    });
    const broken = ['nope', '', Buffer.from('[1,2]').toString('base64url'), encodeCursor('S', 'not a date', id), encodeCursor('S', '2026-01-01', 'x')];
    for (const after of broken) expect(badArgument(() => parsePageRequest({ after }, 'S', isIsoDate))).toBe('after');
    expect(badArgument(() => parsePageRequest({ after: cursor }, 'OTHER', isIsoDate))).toBe('after');
  });
});
