import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The repository stands alone: its design, interface and rules are in docs/, in its own
 * words, so no tracked file sends a reader to a document it does not hold (the planning
 * folder's design, interface or style pages) or to a ticket. A comment states the rule it
 * enforces, not the request that asked for it.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** What a reference outside the repository looks like; each pattern is built so this file does not match it. */
const OUTSIDE = [
  { what: 'a planning document', pattern: new RegExp(`\\b(${['DESIGN', 'INTERFACE', 'STYLE'].join('|')})\\.md\\b`) },
  { what: 'the planning folder', pattern: new RegExp(`(^|[\\s'"(\`])(/work/)?${'shared'}/`) },
  { what: 'a ticket number', pattern: new RegExp(`\\b(${['issue', 'ticket'].join('|')})s? #?\\d+`, 'i') },
  { what: 'a ticket number', pattern: /(^|[\s(])#\d{1,4}\b(?![0-9a-f])/ },
  { what: "a ticket's numbered item", pattern: /\(items? \d+(,? (and )?\d+)*\)/ },
  { what: 'a ticket acceptance item', pattern: new RegExp(`must[- ]${'show'}s?\\s*(\\d|of\\b|item)|must-${'show'}`, 'i') },
];

/** Tracked text files (what a clone holds), with the lines that point outside. */
function references(): string[] {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  const found: string[] = [];
  for (const file of files) {
    if (/\.(png|jpe?g|gif|ico|wasm|woff2?)$/.test(file)) continue;
    let text: string;
    try {
      text = readFileSync(join(ROOT, file), 'utf8');
    } catch {
      continue;
    }
    text.split('\n').forEach((line, index) => {
      for (const { what, pattern } of OUTSIDE)
        if (pattern.test(line)) found.push(`${file}:${index + 1} names ${what}: ${line.trim().slice(0, 120)}`);
    });
  }
  return found;
}

describe('the repository', () => {
  it('names no document outside it, no ticket and no ticket acceptance item', () => {
    expect(references()).toEqual([]);
  });

  it('recognises each kind of reference (the patterns themselves)', () => {
    const samples = [
      ['see ', 'DESIGN', '.md'],
      ['the ', 'shared', '/ folder'],
      ['(', 'issue', ' 12)'],
      ['fixes ', '#', '21'],
      ['Must', '-show 1'],
      ['budget (', 'item 12)'],
    ].map((parts) => parts.join(''));
    for (const sample of samples)
      expect(
        OUTSIDE.some(({ pattern }) => pattern.test(sample)),
        sample,
      ).toBe(true);
    for (const fine of ['docs/design.md', 'each page must show its flags', 'color #fff', 'src/shared-state.ts', 'the first 12 items']) {
      expect(
        OUTSIDE.some(({ pattern }) => pattern.test(fine)),
        fine,
      ).toBe(false);
    }
  });
});
