import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md walks requests through the code as `file: name` steps. Every file it
 * names must exist, and every name must be declared in that file (a function, class, method
 * or constant), so the walks cannot silently go stale when code moves or is renamed.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** Backticked spans of the page that name a repository file, with the names given after a colon. */
function stepsOf(markdown: string): Array<{ path: string; names: string[] }> {
  return [...markdown.matchAll(/`([^`\s]+\/[^`\s]+\.(?:ts|mjs|js|json|md|sql|graphql))(?::\s*([A-Za-z_$][\w$.]*))?`/g)].map((match) => ({
    path: match[1]!,
    names: match[2] ? match[2].split('.') : [],
  }));
}

/** Whether `file` declares `name`: as a function, class, const/let, type, interface, or a method or property of a class. */
function declares(text: string, name: string): boolean {
  const escaped = name.replace(/\$/g, '\\$');
  return new RegExp(
    `(function\\*?|class|const|let|var|type|interface|enum)\\s+${escaped}\\b|^\\s*(?:(?:private|public|protected|static|readonly|async|override)\\s+)*${escaped}\\s*[(<:=]`,
    'm',
  ).test(text);
}

describe('docs/architecture.md', () => {
  const steps = stepsOf(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'));

  it('names files that exist', () => {
    expect(steps.length).toBeGreaterThan(30);
    expect(steps.filter((step) => !existsSync(join(ROOT, step.path))).map((step) => step.path)).toEqual([]);
  });

  it('names functions, classes and methods that those files declare', () => {
    const missing = steps
      .filter((step) => existsSync(join(ROOT, step.path)))
      .flatMap((step) => {
        const text = readFileSync(join(ROOT, step.path), 'utf8');
        return step.names.filter((name) => !declares(text, name)).map((name) => `${step.path}: ${name}`);
      });
    expect(missing).toEqual([]);
  });

  it('reads steps as the page writes them, and tells a declaration from a mention', () => {
    expect(stepsOf('see `src/a/b.ts: C.run` and `docs/x.md`, not `npm start`')).toEqual([
      { path: 'src/a/b.ts', names: ['C', 'run'] },
      { path: 'docs/x.md', names: [] },
    ]);
    expect(declares('export async function listPools(ctx) {}', 'listPools')).toBe(true);
    expect(declares('class Hub {\n  async publish(events) {}\n}', 'publish')).toBe(true);
    expect(declares('  return listPools(ctx);', 'listPools')).toBe(false);
  });
});
