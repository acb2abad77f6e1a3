import * as ed from '@noble/ed25519';
import { generateKeyPair, getAddressFromPublicKey, signBytes } from '@solana/kit';
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
    signMessage: async (message) =>
      Buffer.from(await ed.signAsync(new TextEncoder().encode(message), secretKey)).toString('base64'),
  };
}
