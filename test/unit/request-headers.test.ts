import { HeaderMap } from '@apollo/server';
import { describe, expect, it } from 'vitest';
import { RequestHeaders } from '../../src/server/pipeline/http.js';

/** The request's headers as Apollo Server and its plugins read them, from fastify's object, uncopied until listed or changed. */
describe('RequestHeaders', () => {
  const given = () => ({
    'content-type': 'application/json',
    accept: 'application/json',
    'x-forwarded-for': ['a', 'b'],
    absent: undefined,
  });

  it('reads a header by name, in any case, as HeaderMap does, a repeated one joined', () => {
    const headers = new RequestHeaders(given());
    expect(headers).toBeInstanceOf(HeaderMap);
    expect(headers.get('Content-Type')).toBe('application/json');
    expect(headers.get('x-forwarded-for')).toBe('a, b');
    expect([headers.has('ACCEPT'), headers.has('absent'), headers.has('nope')]).toEqual([true, false, false]);
    expect(headers.get('nope')).toBeUndefined();
  });

  it('lists and changes them as a HeaderMap holding them all', () => {
    const headers = new RequestHeaders(given());
    expect([...headers]).toEqual([
      ['content-type', 'application/json'],
      ['accept', 'application/json'],
      ['x-forwarded-for', 'a, b'],
    ]);
    expect(headers.size).toBe(3);
    headers.set('X-Added', '1');
    headers.delete('accept');
    expect(Object.fromEntries(headers.entries())).toEqual({
      'content-type': 'application/json',
      'x-forwarded-for': 'a, b',
      'x-added': '1',
    });
    expect([headers.get('x-added'), headers.has('accept'), [...headers.keys()].length]).toEqual(['1', false, 3]);
    const seen: string[] = [];
    headers.forEach((value, name) => seen.push(`${name}=${value}`));
    expect(seen).toEqual(['content-type=application/json', 'x-forwarded-for=a, b', 'x-added=1']);
  });
});
