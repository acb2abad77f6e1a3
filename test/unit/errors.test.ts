import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';
import { ERRORS_DOC_PATH, renderErrorsDoc } from '../../src/tools/errors-doc.js';

describe('error catalogue', () => {
  it('docs/errors.md is the catalogue as generated (run `npm run docs:errors` after changing src/errors.ts)', () => {
    expect(readFileSync(ERRORS_DOC_PATH, 'utf8')).toBe(renderErrorsDoc());
  });

  it('lists every code with its HTTP status in docs/errors.md', () => {
    const doc = readFileSync(ERRORS_DOC_PATH, 'utf8');
    for (const [code, spec] of Object.entries(ERROR_CODES)) expect(doc, code).toContain(`| \`${code}\` | ${spec.status} |`);
  });
});
