import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The shape of src's imports. At run time no module may import itself through others (a
 * cycle works only while hoisting happens to order it); the lower layers, db/ and
 * chain/, know nothing of the domain modules or the server, not even their types; and the
 * domain modules know nothing of the server.
 */

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), '../..'));

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : /\.(ts|mjs)$/.test(entry.name) ? [join(dir, entry.name)] : [],
  );
}

const IMPORT = /^\s*(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'|^\s*import\s+'([^']+)'/gm;

/** The relative files a module's text imports, as paths from the repository root. */
function importsOf(file: string, text: string): string[] {
  return [...text.matchAll(IMPORT)]
    .map((match) => (match[1] ?? match[2])!)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => normalize(join(dirname(file), specifier.replace(/\.js$/, '.ts'))));
}

/**
 * The imports left once TypeScript has erased the type-only ones (as tsc and tsx do: a
 * specifier used only as a type is dropped), i.e. what Node loads.
 */
function runtimeImportsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  if (file.endsWith('.mjs')) return importsOf(file, text);
  const { outputText } = ts.transpileModule(text, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, experimentalDecorators: true },
  });
  return importsOf(file, outputText);
}

/** Every cycle's modules (strongly connected components of more than one file, or a file importing itself). */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)!.includes(file)) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

describe('imports in src', () => {
  const files = sourceFiles('src');

  it('form no cycle at run time', () => {
    const graph = new Map(files.map((file) => [file, runtimeImportsOf(file)]));
    expect(graph.size).toBeGreaterThan(100);
    expect(cyclesOf(graph)).toEqual([]);
  });

  it('finds a cycle when there is one (the check itself)', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cyclesOf(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('keep db/ and chain/ free of modules/ and server/, types included', () => {
    const lower = files.filter((file) => /^src\/(db|chain)\//.test(file));
    expect(lower.length).toBeGreaterThan(20);
    const crossings = lower.flatMap((file) =>
      importsOf(file, readFileSync(join(ROOT, file), 'utf8'))
        .filter((target) => /^src\/(modules|server)\//.test(relative(ROOT, join(ROOT, target))))
        .map((target) => `${file} -> ${target}`),
    );
    expect(crossings).toEqual([]);
  });

  it('keep modules/ and read/ free of server/, types included: the server implements what modules declare (modules/context.ts)', () => {
    const modules = files.filter((file) => file.startsWith('src/modules/') || file.startsWith('src/read/'));
    expect(modules.length).toBeGreaterThan(50);
    const crossings = modules.flatMap((file) =>
      importsOf(file, readFileSync(join(ROOT, file), 'utf8'))
        .filter((target) => target.startsWith('src/server/'))
        .map((target) => `${file} -> ${target}`),
    );
    expect(crossings).toEqual([]);
  });
});
