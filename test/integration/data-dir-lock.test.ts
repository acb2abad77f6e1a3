import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from '../support/ports.js';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirLockedError, lockDataDir } from '../../src/db/data-dir-lock.js';
import { openConfiguredDatabase } from '../../src/db/open.js';
import { DevchainStore } from '../../src/devchain/store.js';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import * as tables from '../../schema/index.js';
import { confirmedSubmissionsUnknownToChain } from '../../src/modules/transactions/ledger-audit.js';
import { startChainFixture } from '../support/chain-fixture.js';
import { backends, createTestDatabase, preparePgliteDataDir } from '../support/harness.js';
import { kitWallet } from '../support/wallets.js';

const scratch = mkdtempSync(join(tmpdir(), 'poolgraph-lock-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('data directory locks', () => {
  it('lets one holder at a time take a directory, and takes over the lock of a process that is gone', () => {
    const dir = join(scratch, 'plain');
    const lock = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(DataDirLockedError);
    expect(() => lockDataDir(dir)).toThrow(new RegExp(`in use by process ${process.pid}`));
    lock.release();
    lockDataDir(dir).release();

    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(gone.stdout);
    writeFileSync(`${dir}.lock`, JSON.stringify({ pid: deadPid, host: hostname(), started: null }));
    const takenOver = lockDataDir(dir);
    expect(JSON.parse(readFileSync(`${dir}.lock`, 'utf8')).pid).toBe(process.pid);
    takenOver.release();
    expect(existsSync(`${dir}.lock`)).toBe(false);
  });

  it('refuses a second embedded chain store on one directory before it reads or rewrites the log', () => {
    const dir = join(scratch, 'chain');
    const first = DevchainStore.open(dir, 100);
    first.store.append({ slot: 7 });
    const log = readFileSync(join(dir, 'devchain.jsonl'));
    expect(() => DevchainStore.open(dir, 100)).toThrow(DataDirLockedError);
    expect(readFileSync(join(dir, 'devchain.jsonl'))).toEqual(log);
    first.store.close();
    const reopened = DevchainStore.open(dir, 100);
    expect(reopened.state.slot).toBe(7);
    reopened.store.close();
  });

  it('refuses a second PGlite on one directory, and frees it on close', { timeout: 180_000 }, async () => {
    const config = { databaseUrl: null, pgliteDataDir: join(scratch, 'pglite'), statementTimeoutMs: 0 };
    // A cluster already there, as after a first start (creating one takes seconds of CPU).
    await preparePgliteDataDir(config.pgliteDataDir);
    const first = await openConfiguredDatabase(config);
    await expect(openConfiguredDatabase(config)).rejects.toThrow(DataDirLockedError);
    await first.close();
    const again = await openConfiguredDatabase(config);
    await again.close();
  });
});

describe.each(backends)('start-up audit of confirmed submissions on %s', (kind) => {
  it('names the CONFIRMED submissions the chain does not know, and only those', { timeout: 180_000 }, async () => {
    const chain = await startChainFixture();
    const { database, drop } = await createTestDatabase(kind);
    try {
      const [user] = await database.db
        .insert(tables.users)
        .values({ username: 'audited', walletAddress: Keypair.generate().publicKey.toBase58() })
        .returning();
      const landed = await chain.devchain.airdrop(Keypair.generate().publicKey, 1_000_000);
      const lost = bs58.encode(Keypair.generate().secretKey);
      const pendingLost = bs58.encode(Keypair.generate().secretKey);
      const row = (signature: string, status: 'CONFIRMED' | 'PENDING') => ({
        idempotencyKey: signature,
        operation: 'withdraw',
        userId: user!.id,
        params: {},
        signature,
        transaction: '',
        lastValidBlockHeight: 1,
        status,
        confirmedAt: status === 'CONFIRMED' ? new Date() : null,
      });
      await database.db
        .insert(tables.chainSubmissions)
        .values([row(landed, 'CONFIRMED'), row(lost, 'CONFIRMED'), row(pendingLost, 'PENDING')]);
      expect(await confirmedSubmissionsUnknownToChain(database, chain.runtime)).toEqual([lost]);
    } finally {
      await drop();
      await chain.close();
    }
  });
});

interface Server {
  process: ChildProcess;
  url: string;
  output: () => string;
}

describe('two real processes on the same data directories', () => {
  const dataDir = join(scratch, 'real');
  const env = (port: number) => ({
    ...process.env,
    POOLGRAPH_MODE: 'development',
    PORT: String(port),
    HOST: '127.0.0.1',
    PGLITE_DATA_DIR: join(dataDir, 'pglite'),
    CHAIN_DATA_DIR: join(dataDir, 'chain'),
    AUTH_SECRET_FILE: join(dataDir, 'auth-secret'),
    AUTH_DOMAIN: 'poolgraph.test',
    SEED_DEMO_DATA: 'false',
    LOG_LEVEL: 'warn',
  });
  const started: ChildProcess[] = [];
  afterAll(() => {
    for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
  });

  function run(port: number): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: env(port), stdio: ['ignore', 'pipe', 'pipe'] });
    started.push(child);
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, output: () => output, exited };
  }

  async function serve(): Promise<Server> {
    const { child, output, exited } = run(await freePort());
    const url = await new Promise<string>((resolve, reject) => {
      const check = () => {
        const match = /serving GraphQL at (\S+)\/graphql/.exec(output());
        if (match) resolve(`${match[1]}/graphql`);
      };
      child.stdout!.on('data', check);
      void exited.then((code) => reject(new Error(`the server exited (${code}) before serving:\n${output()}`)));
    });
    return { process: child, url, output };
  }

  async function stop(server: Server): Promise<void> {
    const exited = new Promise((resolve) => server.process.once('exit', resolve));
    server.process.kill('SIGINT');
    await exited;
  }

  const post = async (url: string, query: string, variables?: Record<string, unknown>, token?: string) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as { data?: any; errors?: any[] };
  };

  it('fails the second at once with a clear message; the first keeps serving and persisting', { timeout: 600_000 }, async () => {
    // The directory as after a first start, so the process skips creating the cluster.
    await preparePgliteDataDir(join(dataDir, 'pglite'));
    const first = await serve();
    const wallet = await kitWallet();
    const challenge = await post(first.url, 'mutation($a: String!) { requestSignInChallenge(walletAddress: $a) { message } }', {
      a: wallet.address,
    });
    const message = challenge.data.requestSignInChallenge.message as string;
    const signedIn = await post(
      first.url,
      'mutation($i: SignInWithWalletInput!) { signInWithWallet(input: $i) { accessToken user { id } } }',
      {
        i: { walletAddress: wallet.address, message, signature: await wallet.signMessage(message) },
      },
    );
    const token = signedIn.data.signInWithWallet.accessToken as string;
    const userId = signedIn.data.signInWithWallet.user.id as string;
    const DEV_TOKENS = 'mutation($n: Float!) { requestDevTokens(amount: $n) { balance } }';
    expect((await post(first.url, DEV_TOKENS, { n: 5 }, token)).data.requestDevTokens.balance).toBe(5);

    const second = run(await freePort());
    const code = await second.exited;
    expect(code).not.toBe(0);
    expect(second.output()).toMatch(new RegExp(`data directory .* is in use by process ${first.process.pid}`));
    expect(second.output()).not.toMatch(/serving GraphQL/);

    // The first still serves, and what it confirms now survives its restart.
    expect((await post(first.url, DEV_TOKENS, { n: 2 }, token)).data.requestDevTokens.balance).toBe(7);
    await stop(first);
    const restarted = await serve();
    try {
      expect((await post(restarted.url, '{ viewer { id } }', undefined, token)).data.viewer.id).toBe(userId);
      expect((await post(restarted.url, DEV_TOKENS, { n: 1 }, token)).data.requestDevTokens.balance).toBe(8);
    } finally {
      await stop(restarted);
    }
  });
});
