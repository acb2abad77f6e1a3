import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pools, users } from '../../schema/index.js';
import { EXPONENT_MARK, renderedColumn, renderedTokens, writeNumbersAsJavaScript } from '../../src/read/columns.js';
import { toTokens } from '../../src/modules/common/amounts.js';
import { backends, createTestDatabase, type TestDatabase } from '../support/harness.js';
import { seededRandom } from '../support/seeded-random.js';

/**
 * A rendered read writes its JSON in SQL (src/read/columns.ts); the executor writes
 * JSON.stringify of what the decoder and serializers give. On generated values, each
 * column rendering must write exactly JSON.stringify's bytes: number forms (`1e-8`, not
 * Postgres' `1e-08`; decimals from 1e-7 up to 1e21), string escapes, nulls and timestamps.
 */

const next = seededRandom(20261126);

/** Doubles over every exponent form: each decade from 1e-12 to 1e25, both signs, integers, and the boundaries of both notations. */
function generatedNumbers(): number[] {
  const values = [
    0,
    1,
    -1,
    0.1,
    1e-4,
    1e-5,
    1e-6,
    1e-7,
    9.99e-7,
    1e-8,
    1e14,
    1e15,
    1.5e15,
    1e20,
    123456789012345680000,
    1e21,
    1.5e21,
    2 ** 53,
    0.30000000000000004,
    4e23,
    -4e23,
    -1.5e-8,
  ];
  for (let exponent = -12; exponent <= 25; exponent++) {
    for (let i = 0; i < 12; i++) {
      const digits = i % 3 === 0 ? Math.round(next() * 9 + 1) : next() * 9 + 1;
      const value = Number(`${digits}e${exponent}`);
      values.push(i % 2 ? -value : value);
    }
  }
  return values;
}

function generatedStrings(): Array<string | null> {
  const alphabet = [
    'a',
    'Z',
    ' ',
    '"',
    '\\',
    '/',
    '\n',
    '\r',
    '\t',
    '\b',
    '\f',
    '\u0001',
    '\u001f',
    '\u007f',
    'é',
    '€',
    '\u2028',
    '\u2029',
    '😀',
    '{',
    ':',
    ',',
  ];
  const values: Array<string | null> = [null, '', ' : ', '{"id" : 1}'];
  for (let i = 0; i < 300; i++) {
    let text = '';
    const length = Math.floor(next() * 12);
    for (let j = 0; j < length; j++) text += alphabet[Math.floor(next() * alphabet.length)];
    values.push(text);
  }
  return values;
}

/** What the server sends of a rendered number: the statement's text with its exponent forms rewritten in Node. */
const sent = (json: string[]) => json.map(writeNumbersAsJavaScript);

describe.each(backends)('rendered column bytes on %s', (kind) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await t?.drop();
  });

  /** What the rendering `sql` of a column named `column` writes for each value, given as text and cast to `type`. */
  async function rendered(sql: (alias: string) => string, columns: Record<string, { type: string; values: unknown[] }>): Promise<string[]> {
    const names = Object.keys(columns);
    const count = Object.values(columns)[0]!.values.length;
    const records = Array.from({ length: count }, (_, i) => Object.fromEntries(names.map((name) => [name, columns[name]!.values[i]])));
    const fields = names.map((name) => `(a.e->>'${name}')::${columns[name]!.type} AS "${name}"`);
    const text = `SELECT ${sql('v')} AS "json" FROM (SELECT ${fields.join(', ')}, a.n FROM json_array_elements($1::json) WITH ORDINALITY AS a(e, n)) v ORDER BY v.n`;
    const rows = await t.database.query<{ json: string }>(text, [JSON.stringify(records)]);
    return rows.map((row) => row.json);
  }

  it('numbers: the forms JSON.stringify writes, for every decade from 1e-12 to 1e25', async () => {
    const values = generatedNumbers();
    const column = renderedColumn(pools, 'maxRoi')!;
    const json = await rendered(column.sql, { max_roi: { type: 'numeric', values: values.map(String) } });
    expect(sent(json)).toEqual(values.map((value) => JSON.stringify(value)));
    // Only exponent forms are left to Node: plain decimals come out of the statement as sent.
    const marked = json.filter((text) => text.includes(EXPONENT_MARK)).length;
    expect(marked).toBeGreaterThan(0);
    expect(marked).toBe(values.filter((value) => value !== 0 && (Math.abs(value) < 1e-4 || Math.abs(value) >= 1e15)).length);
  });

  it('token amounts: base units and decimals as toTokens computes them, in JSON.stringify form', async () => {
    const units: string[] = [];
    const decimals: number[] = [];
    for (let i = 0; i < 400; i++) {
      const digits = Math.floor(next() * 18) + 1;
      units.push(String(BigInt(Math.floor(next() * 10 ** Math.min(digits, 15))) * 10n ** BigInt(Math.max(0, digits - 15)) + BigInt(i)));
      decimals.push(Math.floor(next() * 19));
    }
    const json = await rendered(renderedTokens(pools, 'minStake')!, {
      min_stake: { type: 'int8', values: units },
      decimals: { type: 'int2', values: decimals },
    });
    expect(sent(json)).toEqual(units.map((u, i) => JSON.stringify(toTokens(BigInt(u), decimals[i]!))));
  });

  it('strings: escapes as JSON.stringify writes them, null as null', async () => {
    const values = generatedStrings();
    const column = renderedColumn(users, 'twitterUsername')!;
    const json = await rendered(column.sql, { twitter_username: { type: 'text', values } });
    expect(json).toEqual(values.map((value) => JSON.stringify(value)));
  });

  it('timestamps as Date.toISOString writes them, and null', async () => {
    const values: Array<string | null> = [null];
    for (let i = 0; i < 200; i++) values.push(new Date(Math.floor(next() * 4e12)).toISOString());
    const column = renderedColumn(users, 'lastSeenAt')!;
    const json = await rendered(column.sql, { last_seen_at: { type: 'timestamptz', values } });
    expect(json).toEqual(values.map((value) => JSON.stringify(value)));
  });
});
