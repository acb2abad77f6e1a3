import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument, CLIENT_TYPES_PATH, clientTypes } from '../../src/server/rest/openapi.js';
import { getSchema } from '../../src/server/schema.js';
import { startEmptyTestApp, type TestApp } from '../support/harness.js';

/** The interface's routes (docs/rest.md), by method and path. */
const EXPECTED_ROUTES = [
  'GET /pools',
  'GET /pools/{id}',
  'GET /streak/pools',
  'GET /streak/user-details',
  'POST /transactions/prediction',
  'POST /transactions/prediction/submit',
  'POST /transactions/stake/update',
  'POST /transactions/stake/update/submit',
  'POST /transactions/prediction/update',
  'POST /transactions/prediction/update/submit',
  'POST /transactions/withdraw',
  'POST /transactions/withdraw/submit',
  'POST /transactions/claim-streak-reward',
  'POST /transactions/claim-reward',
  'POST /auth/session',
  'POST /auth/refresh',
  'POST /auth/logout',
  'GET /auth/me',
  'POST /auth/wallet/challenge',
  'POST /auth/wallet/sign-in',
  'POST /auth/api-keys',
  'GET /schema.graphql',
];

describe('the OpenAPI document of the REST form', () => {
  let t: TestApp;
  let document: Record<string, any>;
  beforeAll(async () => {
    // No rows: the document and the docs page are the same whatever the database holds.
    t = await startEmptyTestApp('pglite');
    const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    document = response.json();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is valid OpenAPI 3.1 and lists every route, each with its error response', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    // The validator does refuse a broken document.
    const broken = structuredClone(document);
    broken.paths['/pools'].get.responses = 'none';
    expect((await new Validator().validate(broken)).valid).toBe(false);
    const listed = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => m !== 'parameters')
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(listed.sort()).toEqual([...EXPECTED_ROUTES].sort());
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      for (const operation of Object.values(item)) expect(operation.responses['4XX'] ?? operation.responses['4xx'], path).toBeDefined();
    }
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining(['Pool', 'Prediction', 'User', 'Streak', 'StreakReward', 'Reward', 'Error']),
    );
  });

  it('is generated from the routes alone, and the committed client types are generated from it (fresh)', async () => {
    // This app's chain is not the devchain, so its schema and its document have no faucet routes.
    expect(await buildOpenApiDocument(await getSchema({ devTokens: false }))).toEqual(document);
    expect(readFileSync(CLIENT_TYPES_PATH, 'utf8'), 'run `npx tsx src/server/rest/openapi.ts`').toBe(await clientTypes());
  });

  it('has a docs page whose assets come from node_modules', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    const scripts = [...page.body.matchAll(/src="([^"]+\.js)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) {
      const asset = await t.app.inject({ method: 'GET', url: new URL(script, 'http://host/docs/').pathname });
      expect(asset.statusCode, script).toBe(200);
      expect(asset.body.length, script).toBeGreaterThan(0);
    }
    const initializer = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(initializer.body).toContain('"url":"/openapi.json"');
    // No call to the online validator: the page works offline.
    expect(initializer.body).toContain('"validatorUrl":null');
  });
});
