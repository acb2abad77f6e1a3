import { describe, expect, it } from 'vitest';
import { restFormAt, restFormOf, textAt } from '../../src/server/rest/json-text.js';
import { toSnakeCase } from '../../src/server/rest/mapping.js';
import { seededRandom } from '../support/seeded-random.js';

/**
 * A REST route answers a rendered read from its JSON text (json-text.ts) and an executed one
 * from its value (toSnakeCase): the two must write the same JSON. Generated values, and the
 * cases the generator may not reach, compared with the value's mapping.
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

const viaValue = (value: unknown) => JSON.stringify(toSnakeCase(value));
const restFormTextAt = async (text: string, path: string[]) => (await restFormAt(text, path))?.body.toString();

describe('the REST form of JSON text', () => {
  it('equals the REST form of the value, for 2,000 generated values', () => {
    const random = seededRandom(20_261_129);
    let differences = 0;
    let unwrapped = 0;
    for (let i = 0; i < 2_000; i++) {
      const value = generate(random, 0);
      const text = JSON.stringify(value);
      if (text.includes('{"nodes":[')) unwrapped++;
      if (restFormOf(text) !== viaValue(value)) {
        differences++;
        expect.soft(restFormOf(text), text).toBe(viaValue(value));
      }
    }
    expect(differences).toBe(0);
    // The generator reached connections, so the unwrapping was checked.
    expect(unwrapped).toBeGreaterThan(100);
  });

  it('unwraps a connection only where `nodes` is its only key, and renames keys only', () => {
    const cases: unknown[] = [
      { nodes: [] },
      { nodes: [{ createdAt: 'x' }] },
      { nodes: [1], totalCount: 1 },
      { totalCount: 1, nodes: [1] },
      { nodes: { createdAt: 1 } },
      { nodes: null },
      { user: { nodes: [{ nodes: [{ predictionEndDate: '"createdAt":' }] }] } },
      [{}, [], '', { a: [] }],
      'a "quoted" \\ string',
    ];
    for (const value of cases) expect(restFormOf(JSON.stringify(value))).toBe(viaValue(value));
    expect(restFormOf('{"pools":{"nodes":[{"createdAt":"2026"}]}}')).toBe('{"pools":[{"created_at":"2026"}]}');
  });

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

describe('the REST form of the value at a path', () => {
  it('is the REST form of that value alone, wherever it stands among its siblings', async () => {
    const random = seededRandom(7);
    for (let i = 0; i < 500; i++) {
      const inner = generate(random, 1);
      const data = { before: generate(random, 2), pools: { totalCount: 1, nodes: inner, pageInfo: { endCursor: 'x' } }, after: [1] };
      const text = JSON.stringify(data);
      expect(await restFormTextAt(text, ['pools', 'nodes'])).toBe(viaValue(inner));
      expect(await restFormTextAt(text, ['after'])).toBe('[1]');
    }
    expect(await restFormTextAt('{"pool":null}', ['pool'])).toBe('null');
    expect(await restFormTextAt('{"pool":null}', ['pool', 'id'])).toBeUndefined();
  });

  it('is the same written across many turns of the event loop as in one, and lets others run between them', async () => {
    const random = seededRandom(11);
    const inner = Array.from({ length: 12_000 }, () => ({ nodes: [generate(random, 2)], createdAt: 'x'.repeat(40) }));
    const text = JSON.stringify({ pools: { nodes: inner } });
    expect(text.length).toBeGreaterThan(1_000_000);
    let turns = 0;
    const counting = setInterval(() => turns++, 0);
    const written = await restFormTextAt(text, ['pools', 'nodes']);
    clearInterval(counting);
    expect(written).toBe(viaValue(inner));
    expect(turns).toBeGreaterThan(2);
  });
});
