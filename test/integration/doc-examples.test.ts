import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kind, parse, print } from 'graphql';
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChainFixture, startChainFixture } from '../support/chain-fixture.js';
import { allExamples, type DocExample, fillPlaceholders } from '../support/doc-examples.js';
import { metricSample, startTestApp, testConfig, type TestApp } from '../support/harness.js';
import { signInAs } from '../support/sessions.js';

/**
 * Runs every fenced GraphQL, shell, JavaScript and TypeScript example of README.md and
 * docs/ against a served app on the embedded defaults' stack (PGlite with the demo data,
 * a devchain), in reading order, as a reader would: shell blocks in bash from the
 * repository, scripts with tsx, GraphQL over HTTP signed in with the wallet the examples
 * create. Only the address (port 4000) and `wallet.json` (a scratch directory) are moved.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const examples = allExamples();
const runnable = examples.filter((example) => !example.skip);

interface Outcome {
  code: number | null;
  output: string;
}

function run(command: string, args: string[], env: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000, maxBuffer: 8 << 20 },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` });
      },
    );
  });
}

describe('the examples of README.md and docs/', () => {
  let t: TestApp;
  let chain: ChainFixture;
  let base: string;
  let scratch: string;
  let accessToken: string | null = null;
  const placeholders: Record<string, string> = {};

  beforeAll(async () => {
    chain = await startChainFixture();
    // Budgets on (test mode has none), large enough for the suite: the budget examples show their headers.
    const budgets = { RATE_LIMIT_QUERIES_PER_MINUTE: '100000', RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000' };
    const config = testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000', ...budgets });
    t = await startTestApp('pglite', { chain: chain.runtime, config });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    scratch = mkdtempSync(join(tmpdir(), 'poolgraph-doc-examples-'));
    // The README's prediction: the first open pool its query answers, a value in that pool's
    // range, as a reader picks them (stake 10 fits every demo pool: minStake <= 10 <= maxStake).
    const { data } = await t.gql(
      `{ pools(filter: { status: [ACTIVE] }, sort: END_DATE, first: 1) { nodes { id minStake maxStake minOutcome maxOutcome step } } }`,
    );
    const first = data.pools.nodes[0] as Record<string, number>;
    expect(first.minStake! <= 10 && 10 <= first.maxStake!, JSON.stringify(first)).toBe(true);
    const steps = Math.round((first.maxOutcome! - first.minOutcome!) / first.step!);
    placeholders['<its id>'] = String(first.id);
    placeholders['<an ACTIVE pool>'] = String(first.id);
    // Written with the grid's decimals, as a reader would (a float sum could end in ...9999).
    const decimals = Math.max(...[first.minOutcome!, first.step!].map((n) => String(n).split('.')[1]?.length ?? 0));
    placeholders['<a value in its range>'] = String(Number((first.minOutcome! + Math.floor(steps / 2) * first.step!).toFixed(decimals)));
    const streaks = await t.gql(`{ streaks(first: 1) { nodes { id } } }`);
    placeholders['<a streak id>'] = streaks.data.streaks.nodes[0].id;
    // A wallet with no token account yet: a withdrawal to it opens one (the preview shows the rent).
    placeholders['<a new wallet address>'] = Keypair.generate().publicKey.toBase58();
  });
  afterAll(async () => {
    await t?.close();
    await chain?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** The example's text with the server's address and the scratch wallet file in place. */
  function localize(code: string): string {
    return fillPlaceholders(code, placeholders)
      .replaceAll('http://127.0.0.1:4000', base)
      .replaceAll('ws://127.0.0.1:4000', base.replace(/^http/, 'ws'))
      .replace(/\bwallet\.json\b/g, join(scratch, 'wallet.json'));
  }

  function environment(): Record<string, string> {
    const port = new URL(base).port;
    return { PORT: port, HOST: '127.0.0.1', ...(accessToken ? { ACCESS_TOKEN: accessToken } : {}) };
  }

  async function runGraphQL(example: DocExample): Promise<void> {
    const document = parse(localize(example.code));
    const variables = example.variables ? JSON.parse(localize(JSON.stringify(example.variables))) : undefined;
    for (const definition of document.definitions) {
      if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
      const headers = { 'content-type': 'application/json', ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}) };
      const response = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query: print(definition), variables }),
      });
      const body = (await response.json()) as { data?: unknown; errors?: unknown[] };
      expect(body.errors, `${example.where}: ${print(definition)}`).toBeUndefined();
      expect(body.data, example.where).toBeTypeOf('object');
    }
  }

  async function runShell(example: DocExample): Promise<void> {
    const outcome = await run('bash', ['-e', '-o', 'pipefail', '-c', localize(example.code)], environment());
    expect(outcome.code, `${example.where} exited with ${outcome.code}:\n${outcome.output}`).toBe(0);
    expect(outcome.output, example.where).not.toMatch(/"errors"\s*:/);
    const token = /"accessToken":\s*"([^"]+)"/.exec(outcome.output)?.[1];
    if (token) accessToken = token;
  }

  function scriptFile(example: DocExample): string {
    // Under node_modules/.cache so that the script's imports resolve as in the repository.
    const dir = join(ROOT, 'node_modules/.cache/doc-examples');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${example.where.replace(/[^\w]+/g, '_')}.${example.language === 'ts' ? 'mts' : 'mjs'}`);
    writeFileSync(file, localize(example.code));
    return file;
  }

  async function runScript(example: DocExample): Promise<void> {
    const outcome = await run(process.execPath, ['--import', 'tsx', scriptFile(example)], environment());
    expect(outcome.code, `${example.where} exited with ${outcome.code}:\n${outcome.output}`).toBe(0);
    expect(outcome.output, example.where).not.toMatch(/"errors"\s*:|Error:/);
  }

  /** A script that follows a subscription: it must print the pool the suite creates while it listens. */
  async function followScript(example: DocExample): Promise<void> {
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', scriptFile(example)], {
      cwd: ROOT,
      env: { ...process.env, ...environment() },
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    try {
      await waitFor(
        async () => metricSample((await t.app.inject({ url: '/metrics' })).body, 'poolgraph_subscriptions_open') >= 1,
        () => output,
      );
      const title = `Doc example pool ${Date.now()}`;
      const admin = await signInAs(t, (await t.gql(`{ pools(first: 1) { nodes { createdBy } } }`)).data.pools.nodes[0].createdBy, 'ADMIN');
      const created = await t.gql(
        `mutation($i: CreatePoolInput!) { createPool(input: $i) { id } }`,
        { i: poolInput(title) },
        admin.headers,
      );
      expect(created.errors).toBeUndefined();
      await waitFor(
        async () => output.includes(title) || /POOL_CREATED/.test(output),
        () => output,
      );
      expect(output, example.where).not.toMatch(/Error:/);
    } finally {
      child.kill();
    }
  }

  it('has something to run, and every block it does not run says why', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(10);
    for (const example of examples.filter((e) => e.skip)) expect(example.skip!.length, example.where).toBeGreaterThan(20);
  });

  for (const example of runnable) {
    it(`runs ${example.language} at ${example.where}`, async () => {
      if (example.language === 'graphql') await runGraphQL(example);
      else if (example.language === 'sh') await runShell(example);
      else if (example.follow) await followScript(example);
      else await runScript(example);
    }, 90_000);
  }
});

async function waitFor(condition: () => Promise<boolean> | boolean, output: () => string, deadlineMs = 30_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`timed out; the script printed:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function poolInput(title: string) {
  const now = Date.now();
  return {
    title,
    description: 'Created by the doc-examples suite while a subscription example listens.',
    resolutionSource: 'none',
    minStake: 1,
    maxStake: 100,
    maxRoi: 3,
    minOutcome: 0,
    maxOutcome: 1000,
    precision: 1,
    step: 1,
    predictionStartDate: new Date(now - 3_600_000).toISOString(),
    predictionEndDate: new Date(now + 86_400_000).toISOString(),
    referenceDate: new Date(now + 2 * 86_400_000).toISOString(),
    platformFeeRate: 0.02,
  };
}
