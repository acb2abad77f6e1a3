import * as ed from '@noble/ed25519';
import { generateKeyPair, getAddressFromPublicKey, signBytes } from '@solana/kit';
import { Ed25519Program, Keypair } from '@solana/web3.js';
import bs58 from 'bs58';

/** A wallet as a client holds one: an address, and a way to sign message bytes. */
export interface TestWallet {
  address: string;
  /** Signs UTF-8 `message`; the encoding is the one this wallet's tooling produces. */
  signMessage(message: string): Promise<string>;
}

/** A wallet of @solana/kit (the @solana/web3.js 2 tooling), signing with WebCrypto; base58 signatures. */
export async function kitWallet(): Promise<TestWallet> {
  const keys = await generateKeyPair();
  const address = await getAddressFromPublicKey(keys.publicKey);
  return {
    address,
    signMessage: async (message) => bs58.encode(await signBytes(keys.privateKey, new TextEncoder().encode(message))),
  };
}

/** A wallet of a plain ed25519 library (@noble/ed25519); base64 signatures. */
export async function nobleWallet(): Promise<TestWallet> {
  const secretKey = ed.utils.randomSecretKey();
  const publicKey = await ed.getPublicKeyAsync(secretKey);
  return {
    address: bs58.encode(publicKey),
    signMessage: async (message) => Buffer.from(await ed.signAsync(new TextEncoder().encode(message), secretKey)).toString('base64'),
  };
}

/**
 * A wallet of @solana/web3.js 1.x: a `Keypair`, addressed by `publicKey.toBase58()`; base58
 * signatures. web3.js 1.x has no helper that signs a message; its one public API that signs
 * arbitrary bytes with a keypair's secret key is `Ed25519Program.createInstructionWithPrivateKey`
 * (web3.js's own ed25519, from @noble/curves), which writes the signature into an ed25519
 * verify instruction at the offset the instruction's header names (u16 at byte 2).
 */
export function web3Wallet(): TestWallet & { keypair: Keypair } {
  const keypair = Keypair.generate();
  return {
    keypair,
    address: keypair.publicKey.toBase58(),
    signMessage: async (message) => {
      const { data } = Ed25519Program.createInstructionWithPrivateKey({
        privateKey: keypair.secretKey,
        message: new TextEncoder().encode(message),
      });
      const signatureOffset = data.readUInt16LE(2);
      return bs58.encode(data.subarray(signatureOffset, signatureOffset + 64));
    },
  };
}
