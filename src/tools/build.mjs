// `npm run build`: compiles schema/ and src/ into dist/ (tsconfig.build.json), then copies what
// the compiled code reads beside itself at the same relative paths as in the source tree
// (dist/ mirrors the repository's layout), so `node dist/src/main.js` finds its migrations,
// its PGlite worker and the emitted SDL. Plain JavaScript: it runs before anything is compiled.
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const ASSETS = ['schema/migrations', 'schema/schema.graphql', 'src/db/pglite-worker.mjs'];

rmSync(join(root, 'dist'), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
for (const asset of ASSETS) cpSync(join(root, asset), join(root, 'dist', asset), { recursive: true });
console.log(`Built dist/ (with ${ASSETS.join(', ')})`);
