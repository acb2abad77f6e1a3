import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import * as tables from '../../schema/index.js';
import type { ChainRuntime } from '../../src/chain/runtime.js';
import { TestKeypairWallet } from './chain-fixture.js';
import { walletSignIn } from './sessions.js';
import { type BackendKind, type GraphQLResponse, startEmptyTestApp, testConfig, type TestApp } from './harness.js';

/**
 * A server on an empty database (migrated, no demo data) with a fresh image directory:
 * everything the operator tests see is made through the API.
 */
export interface EmptyApp extends Omit<TestApp, 'seeded'> {
  imageDir: string;
  imageFiles(): Promise<string[]>;
  /** POSTs a multipart upload with one part `file` to /images (query string optional). */
  upload(bytes: Uint8Array, headers?: Record<string, string>, query?: string): Promise<{ status: number; body: any }>;
  /** A signed-in user (through the real wallet sign-in); `admin` sets the role and signs in again, as grant-role does. */
  signIn(options?: { admin?: boolean; wallet?: TestKeypairWallet }): Promise<SignedIn>;
}

export interface SignedIn {
  wallet: TestKeypairWallet;
  userId: string;
  headers: Record<string, string>;
}

export async function startEmptyApp(
  kind: BackendKind,
  options: { chain?: ChainRuntime; clock?: () => Date; env?: Record<string, string> } = {},
): Promise<EmptyApp> {
  const imageDir = await mkdtemp(join(tmpdir(), 'poolgraph-images-'));
  const config = testConfig({ IMAGE_STORAGE_DIR: imageDir, SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000', ...options.env });
  // No custody accounts to sync on an empty database: the chain is only handed to the app.
  const t = await startEmptyTestApp(kind, { config, clock: options.clock, chain: options.chain });
  const signInOnce = (wallet: TestKeypairWallet) => signInWith(t.gql, wallet);

  return {
    ...t,
    imageDir,
    imageFiles: async () => (await readdir(imageDir)).sort(),
    async upload(bytes, headers = {}, query = '') {
      const boundary = '----poolgraphtest';
      const body = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="upload.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        ),
        Buffer.from(bytes),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const response = await t.app.inject({
        method: 'POST',
        url: `/images${query}`,
        payload: body,
        headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      return { status: response.statusCode, body: response.json() };
    },
    async signIn({ admin = false, wallet = new TestKeypairWallet() } = {}) {
      const first = await signInOnce(wallet);
      if (!admin) return first;
      await t.database.db.update(tables.users).set({ role: 'ADMIN' }).where(eq(tables.users.id, first.userId));
      return signInOnce(wallet);
    },
    async close() {
      await t.close();
      await rm(imageDir, { recursive: true, force: true });
    },
  };
}

export type { GraphQLResponse };

/** The real wallet sign-in: a challenge, signed by the wallet's key. */
export async function signInWith(gql: TestApp['gql'], wallet: TestKeypairWallet): Promise<SignedIn> {
  const { userId, headers } = await walletSignIn(gql, wallet);
  return { wallet, userId, headers };
}

/** Build, sign as the wallet does, submit: the two steps a client takes. Returns the submit's payload. */
export async function twoStep(
  gql: TestApp['gql'],
  user: SignedIn,
  build: string,
  submit: string,
  input: Record<string, unknown>,
): Promise<Record<string, any>> {
  const built = await gql(build, { i: input }, user.headers);
  if (built.errors) throw new Error(JSON.stringify(built.errors));
  const prepared = Object.values(built.data)[0] as { transaction: string; proof: string };
  const signedTransaction = await user.wallet.signTransaction(prepared.transaction);
  const submitted = await gql(submit, { i: { ...input, signedTransaction, proof: prepared.proof } }, user.headers);
  if (submitted.errors) throw new Error(JSON.stringify(submitted.errors));
  return Object.values(submitted.data)[0] as Record<string, any>;
}

export const BUILD_PREDICTION = `mutation($i: PredictionTransactionInput!) { buildPredictionTransaction(input: $i) { transaction proof } }`;
export const SUBMIT_PREDICTION = `mutation($i: SubmitPredictionTransactionInput!) { submitPredictionTransaction(input: $i) { signature prediction { id stake } } }`;
export const BUILD_STAKE = `mutation($i: StakeUpdateTransactionInput!) { buildStakeUpdateTransaction(input: $i) { transaction proof } }`;
export const SUBMIT_STAKE = `mutation($i: SubmitStakeUpdateTransactionInput!) { submitStakeUpdateTransaction(input: $i) { signature prediction { id stake } } }`;
export const BUILD_WITHDRAW = `mutation($i: WithdrawTransactionInput!) { buildWithdrawTransaction(input: $i) { transaction proof } }`;
export const SUBMIT_WITHDRAW = `mutation($i: SubmitWithdrawTransactionInput!) { submitWithdrawTransaction(input: $i) { signature } }`;

export { makePng } from './png-fixture.js';
