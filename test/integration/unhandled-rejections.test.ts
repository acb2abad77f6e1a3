import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { StatementScope } from '../../src/db/statement-scope.js';
import { createApp } from '../../src/server/app.js';
import { metricSample, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';

/**
 * A rejection no code handles is logged, counted, and survived; a failed statement of a
 * request names that request. The faults are injected by routes of this test that leave a
 * rejected promise behind (the service's own routes leave none): a statement of the
 * request's own scoped database, and a bare promise; the test stands in for main.ts,
 * making the app's reporter the process's handler, with vitest's own set aside meanwhile.
 */
describe('an unhandled rejection', () => {
  let t: TestApp;
  let app: FastifyInstance;
  const lines: Array<Record<string, any>> = [];
  let restore: () => void = () => {};

  beforeAll(async () => {
    t = await startEmptyTestApp('pglite');
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
        done();
      },
    });
    app = await createApp({ config: testConfig({ LOG_LEVEL: 'info' }), database: t.database, logStream });
    app.get('/test/left-behind', async (request) => {
      // A statement of the request's whose failure nothing awaits, as an operation's context runs it.
      const database = t.database.scopedTo(new StatementScope(request.id));
      void new Promise((resolve) => setTimeout(resolve, 20)).then(() => database.rows(sql`select 1 / 0`));
      return { answered: true };
    });
    app.get('/test/left-behind-bare', async () => {
      // A promise whose work outlives the request and fails later, outside any statement: nothing awaits it.
      void new Promise((_resolve, reject) => setTimeout(() => reject(new Error('failed after the answer')), 20));
      return { answered: true };
    });
    const others = process.listeners('unhandledRejection');
    process.removeAllListeners('unhandledRejection');
    const report = (reason: unknown) => app.reportUnhandledRejection(reason);
    process.on('unhandledRejection', report);
    restore = () => {
      process.off('unhandledRejection', report);
      for (const listener of others) process.on('unhandledRejection', listener);
    };
  });
  afterAll(async () => {
    restore();
    await app?.close();
    await t?.close();
  });

  it('is logged (a failed statement with the id of its request), counted, and the server keeps answering', async () => {
    for (const [url, id] of [
      ['/test/left-behind', 'left-behind-1'],
      ['/test/left-behind', 'left-behind-2'],
      ['/test/left-behind-bare', 'left-behind-3'],
    ]) {
      const response = await app.inject({ url, headers: { 'x-request-id': id } });
      expect(response.json()).toEqual({ answered: true });
    }
    const deadline = Date.now() + 5000;
    const unhandled = () => lines.filter((line) => String(line.msg).startsWith('unhandled promise rejection'));
    while (unhandled().length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const logged = unhandled().map((line) => [
      line.level,
      line.reqId,
      /division by zero|failed after the answer/.exec(line.err?.message)?.[0],
    ]);
    expect(logged.sort()).toEqual([
      [50, null, 'failed after the answer'],
      [50, 'left-behind-1', 'division by zero'],
      [50, 'left-behind-2', 'division by zero'],
    ]);
    const metrics = await app.inject({ url: '/metrics' });
    expect(metricSample(metrics.body, 'poolgraph_unhandled_rejections_total')).toBe(3);
    expect((await app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ __typename }' } })).json()).toEqual({
      data: { __typename: 'Query' },
    });
  });
});
