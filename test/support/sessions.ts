import { eq } from 'drizzle-orm';
import * as tables from '../../schema/index.js';
import type { TestApp } from './harness.js';
import { kitWallet, type TestWallet } from './wallets.js';

export interface SignedIn {
  userId: string;
  accessToken: string;
  headers: Record<string, string>;
}

/** What a wallet sign-in gives: the session's token, the user it is for, and the headers that send it. */
export interface WalletSession {
  userId: string;
  accessToken: string;
  headers: Record<string, string>;
}

/**
 * The wallet sign-in a client performs: asks for a challenge for `wallet`'s address, signs
 * its message with the wallet's key, and signs in with the signature. Throws on refusal.
 * For suites that need a session; suites testing the sign-in protocol itself spell it out.
 */
export async function walletSignIn(gql: TestApp['gql'], wallet: TestWallet): Promise<WalletSession> {
  const challenge = await gql(`mutation($a: String!) { requestSignInChallenge(walletAddress: $a) { message } }`, { a: wallet.address });
  if (challenge.errors) throw new Error(JSON.stringify(challenge.errors));
  const message = challenge.data.requestSignInChallenge.message as string;
  const session = await gql(`mutation($i: SignInWithWalletInput!) { signInWithWallet(input: $i) { accessToken user { id } } }`, {
    i: { walletAddress: wallet.address, message, signature: await wallet.signMessage(message) },
  });
  if (session.errors) throw new Error(JSON.stringify(session.errors));
  const accessToken = session.data.signInWithWallet.accessToken as string;
  return { userId: session.data.signInWithWallet.user.id as string, accessToken, headers: { authorization: `Bearer ${accessToken}` } };
}

/**
 * Signs in as an existing (demo) user: gives the user a wallet whose key the test holds
 * (streak rewards follow the address by ON UPDATE CASCADE), optionally a role, and signs
 * in with it over HTTP. Run the suite with SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE raised.
 */
export async function signInAs(t: TestApp, userId: string, role?: 'USER' | 'ADMIN'): Promise<SignedIn> {
  const wallet = await kitWallet();
  await t.database.db
    .update(tables.users)
    .set({ walletAddress: wallet.address, ...(role ? { role } : {}) })
    .where(eq(tables.users.id, userId));
  const { accessToken, headers } = await walletSignIn(t.gql, wallet);
  return { userId, accessToken, headers };
}
