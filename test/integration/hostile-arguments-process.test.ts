import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isObjectType } from 'graphql';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { isErrorCode } from '../../src/errors.js';
import { getSchema } from '../../src/server/schema.js';
import { type HostileOperation, hostileOperations } from '../support/argument-corpus.js';
import { metricSample, preparePgliteDataDir } from '../support/harness.js';
import { type ServerProcess, startServerProcess } from '../support/slow-database.js';

interface Answer {
  status: number;
  errors?: Array<{ message: string; extensions?: { code?: string; argumentName?: string } }>;
  data?: unknown;
}

/**
 * A real server process (`node --import tsx/esm src/main.ts`) in production mode, on the demo
 * data, against a corpus of invalid nested page arguments and forged cursors generated from
 * the schema's connection fields: every one is answered with a catalogue code, the process
 * keeps serving, and any rejection that reaches its unhandled-rejection handler is logged
 * naming the request that caused it.
 */
describe('hostile page arguments against a real server process', () => {
  let server: ServerProcess;
  let corpus: HostileOperation[];
  /** Every request id this suite sent, over HTTP and WebSocket. */
  const sent = new Set<string>();

  let dataDir: string;

  beforeAll(async () => {
    corpus = hostileOperations(await getSchema({ devTokens: true }));
    dataDir = join(mkdtempSync(join(tmpdir(), 'poolgraph-hostile-')), 'pglite');
    await preparePgliteDataDir(dataDir, 'demo');
    server = await startServerProcess({
      POOLGRAPH_MODE: 'production',
      AUTH_SECRET: 'Zq7v1Xw3Rk9pLm2Tn8Yb4Hc6Jd0Gf5Se',
      EMBEDDED_CHAIN_IN_PRODUCTION: 'true',
      // The run's demo template, ready: no initdb, no seeding in the process.
      PGLITE_DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      RATE_LIMIT_QUERIES_PER_MINUTE: '0',
      LOAD_SHED_EVENT_LOOP_DELAY_MS: '0',
      LOAD_SHED_DATABASE_WAIT_MS: '0',
    });
  }, 240_000);
  afterAll(() => {
    server?.child.kill('SIGKILL');
    if (dataDir) rmSync(join(dataDir, '..'), { recursive: true, force: true });
  });

  const expectRefused = (operation: HostileOperation, answer: Answer, over: string) => {
    const context = `${over}: ${operation.query} ${JSON.stringify(operation.variables ?? {})} -> ${JSON.stringify(answer)}`;
    // Soft: one wrong answer is reported, and the corpus still runs on to test the process's survival.
    expect.soft(answer.errors?.length, context).toBeGreaterThan(0);
    expect
      .soft(
        answer.errors?.every((error) => isErrorCode(error.extensions?.code)),
        context,
      )
      .toBe(true);
    expect
      .soft(
        answer.errors?.some((error) => error.extensions?.code === 'BAD_USER_INPUT'),
        context,
      )
      .toBe(true);
  };

  it('generates hundreds of operations, covering every connection field of the schema', async () => {
    const schema = await getSchema({ devTokens: true });
    const connections = Object.values(schema.getTypeMap()).flatMap((type) =>
      isObjectType(type) && !type.name.startsWith('__')
        ? Object.values(type.getFields())
            .filter((field) => field.args.some((arg) => arg.name === 'first'))
            .map((field) => `${type.name}.${field.name}`)
        : [],
    );
    expect(corpus.length).toBeGreaterThan(300);
    expect(new Set(corpus.map((operation) => operation.field))).toEqual(new Set(connections));
    // Nested ones are reached through a list, with a read in flight beside them.
    expect(corpus.filter((operation) => operation.nested).length).toBeGreaterThan(200);
  });

  it(
    'answers each over HTTP with a catalogue code, twice (first use, then compiled), and keeps serving',
    { timeout: 600_000 },
    async () => {
      for (const round of [1, 2]) {
        for (const [index, operation] of corpus.entries()) {
          const requestId = `corpus-http-${round}-${index}`;
          sent.add(requestId);
          const response = await fetch(`${server.base}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-request-id': requestId },
            body: JSON.stringify({ query: operation.query, variables: operation.variables }),
          }).catch((error: unknown) => {
            throw new Error(`request ${requestId} failed (${String(error)}): ${operation.query}\n${server.output().slice(-3000)}`);
          });
          expectRefused(operation, { status: response.status, ...((await response.json()) as object) }, `HTTP ${requestId}`);
        }
      }
      await expectStillServing();
    },
  );

  it('answers each over graphql-ws with a catalogue code, and keeps serving', { timeout: 600_000 }, async () => {
    let next = 0;
    const client = createClient({
      url: `${server.base.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      generateID: () => `corpus-${next++}`,
    });
    try {
      for (const operation of corpus) {
        const answer = await new Promise<Answer>((resolve, reject) => {
          let result: Answer = { status: 0 };
          sent.add(`ws-1-corpus-${next}`);
          client.subscribe(
            { query: operation.query, variables: operation.variables },
            {
              next: (value) => (result = { status: 0, ...(value as object) }),
              // graphql-ws hands over the errors that refused an operation as the error itself.
              error: (error) => (Array.isArray(error) ? resolve({ status: 0, errors: error }) : reject(error)),
              complete: () => resolve(result),
            },
          );
        });
        expectRefused(operation, answer, 'WebSocket');
      }
    } finally {
      await client.dispose();
    }
    await expectStillServing();
  });

  it('logs every unhandled rejection that reached the handler with the request that caused it, and counts it', async () => {
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg?: string; reqId?: string | null });
    const unhandled = lines.filter((line) => line.msg?.startsWith('unhandled promise rejection'));
    for (const line of unhandled) expect(sent.has(String(line.reqId)), JSON.stringify(line)).toBe(true);
    const metrics = await (await fetch(`${server.base}/metrics`)).text();
    expect(metricSample(metrics, 'poolgraph_unhandled_rejections_total')).toBe(unhandled.length);
    // Arguments are refused before execution, so none is expected at all.
    expect(unhandled).toEqual([]);
  });

  async function expectStillServing(): Promise<void> {
    expect(server.child.exitCode).toBeNull();
    expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
    const response = await fetch(`${server.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ pools(first: 2) { nodes { id predictions(first: 1) { totalCount } } } }' }),
    });
    const body = (await response.json()) as { data?: { pools: { nodes: unknown[] } }; errors?: unknown };
    expect(body.errors).toBeUndefined();
    expect(body.data!.pools.nodes).toHaveLength(2);
  }
});
