import { randomBytes } from 'node:crypto';
import {
  type Address,
  generateKeyPair,
  getAddressFromPublicKey,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
  signBytes,
} from '@solana/kit';
import { Keypair, LAMPORTS_PER_SOL, PublicKey, Transaction } from '@solana/web3.js';
import { userTokenAccount } from '../../src/chain/addresses.js';
import { signEd25519 } from '../../src/chain/ed25519.js';
import { ChainClient } from '../../src/chain/rpc.js';
import { type ChainRuntime, DEFAULT_SPONSOR_CAP_LAMPORTS } from '../../src/chain/runtime.js';
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
    accounts: {
      mint: devchain.stakeMint,
      decimals: devchain.stakeMintDecimals,
      relayer: keys.relayer.publicKey,
      custody: keys.custody.publicKey,
    },
    proofSecret: randomBytes(32),
    proofTtlSeconds: 90,
    sponsorCapLamports: DEFAULT_SPONSOR_CAP_LAMPORTS,
    isDevchain: true,
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
  get publicKey() {
    return this.keypair.publicKey;
  }
  async signMessage(message: string): Promise<string> {
    return Buffer.from(signEd25519(new TextEncoder().encode(message), this.keypair.secretKey)).toString('base64');
  }
  /** What a wallet does with a built transaction: decode, add its signature, encode. */
  async signTransaction(base64: string): Promise<string> {
    const transaction = Transaction.from(Buffer.from(base64, 'base64'));
    transaction.partialSign(this.keypair);
    return transaction.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64');
  }
}

/** A user's wallet built on @solana/kit (WebCrypto keys): decodes and partially signs as kit-based wallets do. */
export class KitWallet {
  private constructor(
    private readonly keys: Awaited<ReturnType<typeof generateKeyPair>>,
    readonly address: Address,
  ) {}

  static async create(): Promise<KitWallet> {
    const keys = await generateKeyPair();
    return new KitWallet(keys, await getAddressFromPublicKey(keys.publicKey));
  }

  get publicKey() {
    return new PublicKey(this.address);
  }
  tokenAccount(mint: PublicKey) {
    return userTokenAccount(mint, this.publicKey);
  }
  async signMessage(message: string): Promise<string> {
    return Buffer.from(await signBytes(this.keys.privateKey, new TextEncoder().encode(message))).toString('base64');
  }
  async signTransaction(base64: string): Promise<string> {
    const transaction = getTransactionDecoder().decode(Buffer.from(base64, 'base64'));
    return getBase64EncodedWireTransaction(await partiallySignTransaction([this.keys], transaction));
  }
}
