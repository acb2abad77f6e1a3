import { readFileSync } from 'node:fs';
import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startEmptyTestApp, type TestApp } from '../support/harness.js';

const README = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');

/**
 * The GraphQL over HTTP audit suite of the graphql-http package, against the booted server
 * on a loopback port. Every MUST audit passes; a SHOULD or MAY audit may fail only when the
 * docs/operations.md lists it (by id) with the reason.
 */
describe.each(backends)('GraphQL over HTTP audits on %s', (kind) => {
  let t: TestApp;
  let url = '';
  // No rows: the audits ask for `__typename` and the like, and check the protocol around the answer.
  beforeAll(async () => {
    t = await startEmptyTestApp(kind);
    url = `${await t.app.listen({ host: '127.0.0.1', port: 0 })}/graphql`;
  });
  afterAll(() => t.close());

  const audits = serverAudits({ url: () => url });

  it.each(audits.map((audit) => [audit.id, audit.name, audit] as const))('%s %s', async (id, name, audit) => {
    const result = await audit.fn();
    if (result.status === 'ok') return;
    const detail = `${result.reason}: ${'response' in result ? await result.response.clone().text() : ''}`;
    expect(name.startsWith('MUST'), `a MUST audit failed: ${detail}`).toBe(false);
    expect(README, `${id} fails (${detail}) but docs/operations.md does not list it`).toContain(`\`${id}\``);
  });
});
