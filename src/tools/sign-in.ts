import { readFileSync, writeFileSync } from 'node:fs';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { signMessage } from './wallet.js';

/**
 * Signs in to a running poolgraph with a keypair file and prints the session as JSON:
 *
 *   npm run --silent sign-in -- wallet.json [http://127.0.0.1:4000/graphql] [--out session.json]
 *
 * Without a URL it signs in to the server `npm start` runs with the same HOST and PORT
 * (so `PORT=4001 npm run --silent sign-in -- wallet.json` follows `PORT=4001 npm start`).
 * `--out <file>` writes the JSON to the file alone: npm prints its banner ("> poolgraph@…
 * sign-in") to stdout unless run with --silent, and the file never has it.
 * The same three steps any client takes: ask for a challenge, sign its message with the
 * wallet, send the signature back.
 */
async function graphql(url: string, query: string, variables: Record<string, unknown>) {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
  } catch (error) {
    // fetch says only "fetch failed"; the cause (ECONNREFUSED, ENOTFOUND) is what helps.
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(
      `Could not reach ${url}: ${cause?.code ?? cause?.message ?? String(error)}. Is the server running there (npm start), on that PORT?`,
    );
  }
  const body = (await response.json()) as { data?: any; errors?: Array<{ message: string; extensions?: unknown }> };
  if (body.errors?.length) throw new Error(body.errors.map((e) => `${e.message} ${JSON.stringify(e.extensions)}`).join('\n'));
  return body.data;
}

function defaultUrl(): string {
  const host = process.env.HOST && process.env.HOST !== '0.0.0.0' && process.env.HOST !== '::' ? process.env.HOST : '127.0.0.1';
  const port = process.env.PORT || '4000';
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}/graphql`;
}

const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const out = outAt >= 0 ? args.splice(outAt, 2)[1] : undefined;
const [file, url = defaultUrl()] = args;
if (!file || (outAt >= 0 && !out)) {
  console.error('usage: npm run --silent sign-in -- <keypair.json> [graphql-url] [--out <session.json>]');
  process.exit(1);
}
const keypair = Keypair.fromSecretKey(Uint8Array.from(JSON.parse(readFileSync(file, 'utf8')) as number[]));
const walletAddress = keypair.publicKey.toBase58();
try {
  const { requestSignInChallenge } = await graphql(url, 'mutation($a: String!) { requestSignInChallenge(walletAddress: $a) { message } }', {
    a: walletAddress,
  });
  const message = requestSignInChallenge.message as string;
  const signature = bs58.encode(signMessage(keypair, new TextEncoder().encode(message)));
  const { signInWithWallet } = await graphql(
    url,
    `
      mutation ($i: SignInWithWalletInput!) {
        signInWithWallet(input: $i) {
          accessToken
          accessTokenExpiresAt
          refreshToken
          refreshTokenExpiresAt
          user {
            id
            username
            walletAddress
          }
        }
      }
    `,
    { i: { walletAddress, message, signature } },
  );
  const session = JSON.stringify(signInWithWallet, null, 2);
  if (out) {
    writeFileSync(out, `${session}\n`, { mode: 0o600 });
    console.error(`Signed in as ${signInWithWallet.user.username}; the session is in ${out}`);
  } else {
    console.log(session);
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
