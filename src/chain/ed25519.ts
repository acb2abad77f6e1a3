import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';

/**
 * Raw ed25519 with node:crypto: Solana keys are 32-byte public keys and 32-byte seeds
 * (the first half of a 64-byte secret key); node wants them wrapped in DER.
 */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export function verifyEd25519(message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  const key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
  return verify(null, message, key, signature);
}

/** Signs with a Solana secret key (64 bytes: seed then public key) or a bare 32-byte seed. */
export function signEd25519(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, secretKey.subarray(0, 32)]), format: 'der', type: 'pkcs8' });
  return sign(null, message, key);
}
