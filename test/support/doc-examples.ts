import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The fenced examples of README.md and docs/*.md, read from the files themselves so that
 * the doc-examples suite runs exactly what a reader copies. An HTML comment on the line
 * before a fence steers how its block runs:
 *
 *   <!-- example: skip: <why it cannot run in the suite> -->
 *   <!-- example: variables {"id": "<a streak id>"} -->   variables of a GraphQL block
 *   <!-- example: follow -->   a script that runs until an event arrives (the suite makes one)
 */
export interface DocExample {
  /** Where it stands, e.g. `docs/api.md:42`. */
  where: string;
  language: string;
  code: string;
  skip: string | null;
  variables: Record<string, unknown> | null;
  follow: boolean;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The languages whose blocks talk to the server and so must run (or say why not). */
export const RUNNABLE_LANGUAGES = new Set(['graphql', 'sh', 'js', 'ts']);

export function docFiles(): string[] {
  return [
    'README.md',
    ...readdirSync(`${ROOT}docs`)
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ];
}

export function examplesOf(file: string): DocExample[] {
  const lines = readFileSync(`${ROOT}${file}`, 'utf8').split('\n');
  const examples: DocExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    // Fences may be indented (inside a list item); the body loses that indentation.
    const fence = /^(\s*)```(\w*)\s*$/.exec(lines[i]!);
    if (!fence) continue;
    const indent = fence[1]!.length;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```/.test(lines[i]!); i++) body.push(lines[i]!.slice(indent));
    const language = fence[2]!;
    if (!RUNNABLE_LANGUAGES.has(language)) continue;
    const annotations: string[] = [];
    for (let j = start - 1; j >= 0 && /^\s*<!-- example: .* -->$/.test(lines[j]!); j--) {
      annotations.push(/^\s*<!-- example: (.*) -->$/.exec(lines[j]!)![1]!);
    }
    const skip =
      annotations
        .find((a) => a.startsWith('skip:'))
        ?.slice('skip:'.length)
        .trim() ?? null;
    const variables = annotations.find((a) => a.startsWith('variables '));
    examples.push({
      where: `${file}:${start + 1}`,
      language,
      code: body.join('\n'),
      skip,
      variables: variables ? (JSON.parse(variables.slice('variables '.length)) as Record<string, unknown>) : null,
      follow: annotations.includes('follow'),
    });
  }
  return examples;
}

/** Every runnable example of README.md and docs/, in reading order. */
export function allExamples(): DocExample[] {
  return docFiles().flatMap(examplesOf);
}

/** Replaces every `<placeholder>` the map names, in code or in JSON variables. */
export function fillPlaceholders(text: string, values: Record<string, string>): string {
  return text.replace(/<[^<>\n]+>/g, (placeholder) => values[placeholder] ?? placeholder);
}
