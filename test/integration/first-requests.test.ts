import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmptyTestApp, type TestApp } from '../support/harness.js';

/** What a newcomer's first requests by hand meet: the root, the browser's icon, a form posted to /graphql. */
describe('first requests by hand', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startEmptyTestApp('pglite');
  });
  afterAll(() => t?.close());

  it('GET / says where GraphQL, the explorer, the REST docs and the OpenAPI document are', async () => {
    const root = await t.app.inject({ url: '/' });
    expect(root.statusCode).toBe(200);
    expect(root.json()).toEqual({
      name: 'poolgraph',
      graphql: '/graphql',
      explorer: '/graphql (in a browser)',
      rest: '/docs',
      openapi: '/openapi.json',
      health: '/healthz',
    });
  });

  it('answers the browser’s /favicon.ico with 204, not a 404', async () => {
    const icon = await t.app.inject({ url: '/favicon.ico' });
    expect([icon.statusCode, icon.body]).toEqual([204, '']);
  });

  it('refuses a form body on /graphql with 415 naming its type and what to send', async () => {
    const form = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'query=%7B__typename%7D',
    });
    expect(form.statusCode).toBe(415);
    expect(form.json()).toEqual({
      errors: [
        {
          message:
            "The body's Content-Type (application/x-www-form-urlencoded) is not read here: send JSON with Content-Type: application/json",
          extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' },
        },
      ],
    });
  });
});
