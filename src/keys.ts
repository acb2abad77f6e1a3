import { hkdfSync } from 'node:crypto';

/**
 * Labels of the keys derived from the one service secret (AUTH_SECRET), one per job, so
 * no key can stand in for another: a proof never verifies as an access token, and knowing
 * one derived key reveals neither the secret nor the other key (docs/security.md).
 */
export const KEY_LABELS = {
  /** Signs and verifies build proofs (src/chain/proof.ts). */
  proof: 'poolgraph proof v1',
  /** Signs and verifies access and refresh tokens (src/modules/auth/tokens.ts). */
  accessToken: 'poolgraph access token v1',
} as const;

/** HKDF-SHA256 of the service secret under `label`: a 32-byte key for that one job. */
export function deriveKey(serviceSecret: Uint8Array, label: (typeof KEY_LABELS)[keyof typeof KEY_LABELS]): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', serviceSecret, new Uint8Array(0), label, 32));
}
