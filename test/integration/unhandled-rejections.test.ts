import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { metricSample, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';

/**
 * A rejection no code handles is logged with the request whose work created it, counted,
 * and survived. The fault is injected by a route of this test that leaves a rejected
 * promise behind (the service's own routes leave none); the test stands in for main.ts,
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
    app.get('/test/left-behind', async () => {
      // A promise whose work outlives the request and fails later: nothing awaits it.
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

  it('is logged with the id of the request that caused it, counted, and the server keeps answering', async () => {
    for (const id of ['left-behind-1', 'left-behind-2']) {
      const response = await app.inject({ url: '/test/left-behind', headers: { 'x-request-id': id } });
      expect(response.json()).toEqual({ answered: true });
    }
    const deadline = Date.now() + 5000;
    const unhandled = () => lines.filter((line) => String(line.msg).startsWith('unhandled promise rejection'));
    while (unhandled().length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(unhandled().map((line) => [line.level, line.reqId, line.err?.message])).toEqual([
      [50, 'left-behind-1', 'failed after the answer'],
      [50, 'left-behind-2', 'failed after the answer'],
    ]);
    const metrics = await app.inject({ url: '/metrics' });
    expect(metricSample(metrics.body, 'poolgraph_unhandled_rejections_total')).toBe(2);
    expect((await app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ __typename }' } })).json()).toEqual({
      data: { __typename: 'Query' },
    });
  });
});
