import { eq } from 'drizzle-orm';
import * as tables from '../../schema/index.js';
import type { TestApp } from './harness.js';
import { kitWallet } from './wallets.js';

export interface SignedIn {
  userId: string;
  accessToken: string;
  headers: Record<string, string>;
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
  const challenge = await t.gql(`mutation($a: String!) { requestSignInChallenge(walletAddress: $a) { message } }`, { a: wallet.address });
  const message = challenge.data.requestSignInChallenge.message as string;
  const session = await t.gql(`mutation($i: SignInWithWalletInput!) { signInWithWallet(input: $i) { accessToken } }`, {
    i: { walletAddress: wallet.address, message, signature: await wallet.signMessage(message) },
  });
  const accessToken = session.data.signInWithWallet.accessToken as string;
  return { userId, accessToken, headers: { authorization: `Bearer ${accessToken}` } };
}
