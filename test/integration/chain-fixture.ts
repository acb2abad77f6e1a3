import { randomBytes } from 'node:crypto';
import { Keypair, LAMPORTS_PER_SOL, PublicKey, Transaction } from '@solana/web3.js';
import { userTokenAccount } from '../../src/chain/addresses.js';
import { signEd25519 } from '../../src/chain/ed25519.js';
import { ChainClient } from '../../src/chain/rpc.js';
import type { ChainRuntime } from '../../src/chain/runtime.js';
import { type Devchain, startDevchain } from '../../src/devchain/index.js';

/** A devchain on a free port with fresh service keys, and the runtime the gateway uses with it. */
export interface ChainFixture {
  devchain: Devchain;
  runtime: ChainRuntime;
  /** Token balance (base units) of `owner`'s stake-mint account, or of a token account. */
  balance(account: PublicKey): Promise<bigint>;
  close(): Promise<void>;
}

export async function startChainFixture(): Promise<ChainFixture> {
  const devchain = await startDevchain({ port: 0 });
  const keys = { relayer: Keypair.generate(), custody: Keypair.generate() };
  await devchain.airdrop(keys.relayer.publicKey, 10n * BigInt(LAMPORTS_PER_SOL));
  const client = new ChainClient(devchain.url);
  const runtime: ChainRuntime = {
    client,
    keys,
    accounts: { mint: devchain.stakeMint, decimals: devchain.stakeMintDecimals, relayer: keys.relayer.publicKey, custody: keys.custody.publicKey },
    proofSecret: randomBytes(32),
    proofTtlSeconds: 90,
  };
  return {
    devchain,
    runtime,
    balance: (account) => client.tokenBalance(account),
    close: () => devchain.close(),
  };
}

/** A user's wallet as the tests drive it: web3.js keypair, message signing, transaction signing. */
export class TestKeypairWallet {
  readonly keypair = Keypair.generate();
  get address() {
    return this.keypair.publicKey.toBase58();
  }
  tokenAccount(mint: PublicKey) {
    return userTokenAccount(mint, this.keypair.publicKey);
  }
  async signMessage(message: string): Promise<string> {
    return Buffer.from(signEd25519(new TextEncoder().encode(message), this.keypair.secretKey)).toString('base64');
  }
  /** What a wallet does with a built transaction: decode, add its signature, encode. */
  signTransaction(base64: string): string {
    const transaction = Transaction.from(Buffer.from(base64, 'base64'));
    transaction.partialSign(this.keypair);
    return transaction.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64');
  }
}
