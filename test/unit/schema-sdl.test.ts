import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printSdl, SDL_PATH } from '../../src/server/emit-schema.js';

describe('committed SDL', () => {
  it('matches the schema the code builds (run `npm run schema:emit` when this fails)', async () => {
    expect(readFileSync(SDL_PATH, 'utf8')).toBe(await printSdl());
  });
});
