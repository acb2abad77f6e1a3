import { describe, expect, it } from 'vitest';
import { encodedTextAt, textAt } from '../../src/server/rest/json-text.js';
import { seededRandom } from '../support/seeded-random.js';

/**
 * A REST route answers a rendered read from its JSON text (json-text.ts): the part at a path,
 * found without parsing the whole, must be that part's JSON. Generated values, and the cases
 * the generator may not reach.
 */

const KEYS = ['id', 'nodes', 'totalCount', 'createdAt', 'user', 'predictionEndDate', 'a', 'pageInfo', 'x2Y'];
const STRINGS = [
  '',
  'plain',
  'with "quotes"',
  '{"nodes":[2]}',
  'fooBar":',
  '\\"fooBar":',
  'back\\slash\\',
  'ends with \\',
  '"nodes":[1]',
  '{"totalCount":1}',
  'é ✓ \u2028',
  '\n\t',
];

function generate(random: () => number, depth: number): unknown {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const kind = depth >= 5 ? Math.floor(random() * 4) : Math.floor(random() * 7);
  if (kind === 0) return pick(STRINGS);
  if (kind === 1) return pick([0, -1.5, 1e21, 3.25e-7, 42]);
  if (kind === 2) return pick([true, false]);
  if (kind === 3) return null;
  if (kind === 4) return Array.from({ length: Math.floor(random() * 4) }, () => generate(random, depth + 1));
  // A connection as `{ nodes }`, alone or with other keys.
  if (kind === 5) {
    const nodes = Array.from({ length: Math.floor(random() * 3) }, () => generate(random, depth + 1));
    return random() < 0.5 ? { nodes } : { nodes, totalCount: 2, pageInfo: { hasNextPage: false } };
  }
  const object: Record<string, unknown> = {};
  for (let i = Math.floor(random() * 4); i > 0; i--) object[pick(KEYS)] = generate(random, depth + 1);
  return object;
}

const encodedAt = async (text: string, path: string[]) => (await encodedTextAt(text, path))?.body.toString();

describe('the JSON text at a path', () => {
  it('finds the text at a path, and nothing where the path leaves the data', () => {
    const text = JSON.stringify({ pools: { totalCount: 3, pageInfo: { endCursor: 'a"b' }, nodes: [{ id: 1 }] }, pool: null });
    expect(textAt(text, ['pools', 'nodes'])).toBe('[{"id":1}]');
    expect(JSON.parse(textAt(text, ['pools', 'pageInfo'])!)).toEqual({ endCursor: 'a"b' });
    expect(textAt(text, ['pools', 'totalCount'])).toBe('3');
    expect(textAt(text, ['pool'])).toBe('null');
    expect(textAt(text, ['pool', 'id'])).toBeUndefined();
    expect(textAt(text, ['missing'])).toBeUndefined();
    expect(textAt(text, [])).toBe(text);
  });
});

describe('the encoded JSON text at a path', () => {
  it('is the JSON of that value alone, wherever it stands among its siblings', async () => {
    const random = seededRandom(7);
    let strings = 0;
    for (let i = 0; i < 500; i++) {
      const inner = generate(random, 1);
      const data = { before: generate(random, 2), pools: { totalCount: 1, nodes: inner, pageInfo: { endCursor: 'x' } }, after: [1] };
      const text = JSON.stringify(data);
      if (typeof inner === 'string') strings++;
      expect(await encodedAt(text, ['pools', 'nodes'])).toBe(JSON.stringify(inner));
      expect(await encodedAt(text, ['pools', 'pageInfo'])).toBe('{"endCursor":"x"}');
      expect(await encodedAt(text, ['after'])).toBe('[1]');
    }
    // The generator reached strings holding quotes and brackets, not only containers.
    expect(strings).toBeGreaterThan(10);
    expect(await encodedAt('{"pool":null}', ['pool'])).toBe('null');
    expect(await encodedAt('{"pool":null}', ['pool', 'id'])).toBeUndefined();
  });

  it('is the same found across many turns of the event loop as in one, and lets others run between them', async () => {
    const random = seededRandom(11);
    const inner = Array.from({ length: 12_000 }, () => ({ nodes: [generate(random, 2)], created_at: 'x'.repeat(40) }));
    const text = JSON.stringify({ pools: { totalCount: 12_000, nodes: inner } });
    expect(text.length).toBeGreaterThan(1_000_000);
    let turns = 0;
    const counting = setInterval(() => turns++, 0);
    const written = await encodedAt(text, ['pools', 'nodes']);
    clearInterval(counting);
    expect(written).toBe(JSON.stringify(inner));
    expect(turns).toBeGreaterThan(2);
  });
});
