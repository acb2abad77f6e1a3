import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Keypair, Transaction, VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { signEd25519 } from '../chain/ed25519.js';

/**
 * A small wallet for people using the explorer by hand (and for scripts):
 *
 *   npm run wallet -- create wallet.json            new keypair file (Solana CLI format)
 *   npm run wallet -- address wallet.json           its address
 *   npm run wallet -- sign-message wallet.json      signs the message on stdin; prints base58
 *                                                   (a JSON string, quotes included, as the explorer
 *                                                   shows it, is decoded first)
 *   npm run wallet -- sign-transaction wallet.json  signs the base64 transaction on stdin; prints base64
 */
const USAGE = `usage: npm run wallet -- <create|address|sign-message|sign-transaction> <keypair.json> (input on stdin)`;

function loadKeypair(file: string): Keypair {
  const bytes = JSON.parse(readFileSync(file, 'utf8')) as number[];
  return Keypair.fromSecretKey(Uint8Array.from(bytes));
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  // Terminals and `echo` add a final newline that is not part of the message.
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** Ed25519 signature of `message` by `keypair`. */
export function signMessage(keypair: Keypair, message: Uint8Array): Uint8Array {
  return signEd25519(message, keypair.secretKey);
}

/** Adds `keypair`'s signature to a base64 wire transaction (legacy or v0), leaving other slots as they are. */
export function signTransaction(keypair: Keypair, base64: string): string {
  const bytes = Buffer.from(base64, 'base64');
  try {
    const versioned = VersionedTransaction.deserialize(bytes);
    versioned.sign([keypair]);
    return Buffer.from(versioned.serialize()).toString('base64');
  } catch {
    const legacy = Transaction.from(bytes);
    legacy.partialSign(keypair);
    return legacy.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64');
  }
}

async function main(args: string[]): Promise<void> {
  const [command, file] = args;
  if (!command || !file) throw new Error(USAGE);
  switch (command) {
    case 'create': {
      if (existsSync(file)) throw new Error(`${file} exists; not overwriting a keypair`);
      const keypair = Keypair.generate();
      writeFileSync(file, JSON.stringify(Array.from(keypair.secretKey)), { mode: 0o600 });
      console.log(keypair.publicKey.toBase58());
      return;
    }
    case 'address':
      console.log(loadKeypair(file).publicKey.toBase58());
      return;
    case 'sign-message': {
      const input = await readStdin();
      const message = input.startsWith('"') ? (JSON.parse(input) as string) : input;
      console.log(bs58.encode(signMessage(loadKeypair(file), new TextEncoder().encode(message))));
      return;
    }
    case 'sign-transaction':
      console.log(signTransaction(loadKeypair(file), (await readStdin()).trim()));
      return;
    default:
      throw new Error(USAGE);
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
