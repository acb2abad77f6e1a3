import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';

describe('error catalogue', () => {
  it('documents every code in docs/errors.md', () => {
    const readme = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    for (const code of Object.keys(ERROR_CODES)) expect(readme, code).toContain(`\`${code}\``);
  });
});
