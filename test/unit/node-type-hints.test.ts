import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { NodeTypeHints, NOT_RENDERED } from '../../src/modules/node/node.service.js';

describe('NodeTypeHints', () => {
  it('remembers the type a read found, whatever the case of the id', () => {
    const hints = new NodeTypeHints(10);
    const id = randomUUID();
    expect(hints.typeOf(id)).toBeUndefined();
    hints.learn(id.toUpperCase(), 'Pool');
    expect(hints.typeOf(id)).toBe('Pool');
    hints.learn(id, NOT_RENDERED);
    expect(hints.typeOf(id)).toBe(NOT_RENDERED);
  });

  it('holds at most its capacity: a flood of ids forgets the oldest first, and keeps the newest', () => {
    const hints = new NodeTypeHints(100);
    const ids = Array.from({ length: 1_000 }, () => randomUUID());
    for (const id of ids) hints.learn(id, 'User');
    expect(ids.filter((id) => hints.typeOf(id) !== undefined)).toEqual(ids.slice(-100));
    // Learning a remembered id again takes no room.
    hints.learn(ids.at(-1)!, 'User');
    expect(hints.typeOf(ids.at(-100)!)).toBe('User');
  });
});
