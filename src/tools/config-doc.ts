/**
 * docs/configuration.md, generated from the one definition of the settings (ENV_VARS in
 * src/config.ts): `npm run docs:config` writes it; test/unit/config.test.ts fails when it is stale.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ENV_VARS } from '../config.js';

export const CONFIG_DOC_PATH = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));

/** A setting's text as ENV_VARS writes it, "meaning (default: value)", split in two. */
function meaningAndDefault(text: string): { meaning: string; fallback: string } {
  const at = text.lastIndexOf(' (default:');
  if (at < 0 || !text.endsWith(')')) return { meaning: text, fallback: '' };
  return { meaning: text.slice(0, at), fallback: text.slice(at + ' (default:'.length, -1).trim() };
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

export function renderConfigDoc(): string {
  const rows = Object.entries(ENV_VARS).map(([name, text]) => {
    const { meaning, fallback } = meaningAndDefault(text);
    return `| \`${name}\` | ${cell(fallback)} | ${cell(meaning)} |`;
  });
  return `<!-- Generated from ENV_VARS in src/config.ts by \`npm run docs:config\`; do not edit by hand. -->
# Configuration

Everything is read from the environment once, at start-up (\`src/config.ts\`); a bad value
stops the start with one line per problem. \`NODE_ENV=production\` selects production mode
when \`POOLGRAPH_MODE\` is unset. For the tests only, \`TEST_DATABASE_URL\` names a Postgres
server on which every integration suite runs as well (each test file creates and drops its
own database).

| variable | default | meaning |
|---|---|---|
${rows.join('\n')}
`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(CONFIG_DOC_PATH, renderConfigDoc());
  console.log(`wrote ${CONFIG_DOC_PATH}`);
}
