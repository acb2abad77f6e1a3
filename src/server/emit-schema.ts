import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printSchema } from 'graphql';
import { getSchema } from './schema.js';

/** Where the SDL is committed; test/unit/schema-sdl.test.ts fails when it is stale. */
export const SDL_PATH = fileURLToPath(new URL('../../schema/schema.graphql', import.meta.url));

export async function printSdl(): Promise<string> {
  return `${printSchema(await getSchema())}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(SDL_PATH, await printSdl());
  console.log(`Wrote ${SDL_PATH}`);
}
