import { describe, expect, it } from 'vitest';
import { RenderedData } from '../../src/server/pipeline/planned-read.js';
import { JsonText, OperationAnswer } from '../../src/server/rest/answer.js';

/** A rendered read's data as pieces, located as a read locates its root fields: `pool` alone. */
function renderedPool(): RenderedData {
  const pieces = ['{', '"pool":', '{"id":"p1","created_by":"u1","user":{"id":"u1"}}', ',"count":', '2', '}'];
  return new RenderedData(pieces, 'rest', () => new Map([['pool', [2, 3] as const]]));
}

describe('a REST route reading an operation answer', () => {
  it('sends a located part of a rendered read as its text, and reads a value at a path the read did not locate from the whole', () => {
    const answer = new OperationAnswer(renderedPool());
    const located = answer.rest('pool');
    expect(located).toBeInstanceOf(JsonText);
    expect((located as JsonText).body.toString()).toBe('{"id":"p1","created_by":"u1","user":{"id":"u1"}}');
    expect(answer.value('pool.user.id')).toBe('u1');
    expect(answer.value('count')).toBe(2);
    expect(answer.value('pool.missing')).toBeUndefined();
    expect(answer.rest('pool.user')).toEqual({ id: 'u1' });
  });

  it('maps an executed read to the REST form: snake_case keys, a connection of nodes as its array', () => {
    const answer = new OperationAnswer({ pool: { createdBy: 'u1', predictions: { nodes: [{ userId: 'u2' }] } } });
    expect(answer.rest('pool')).toEqual({ created_by: 'u1', predictions: [{ user_id: 'u2' }] });
    expect(answer.value('pool.createdBy')).toBe('u1');
  });
});
