import { errors, jwtVerify, SignJWT } from 'jose';
import { deriveKey, KEY_LABELS } from '../keys.js';

/**
 * The proof of a built transaction: a tamper-evident, expiring token (HS256) binding the
 * operation, the viewer, every build parameter, the hash of the exact message bytes, and
 * the blockhash the message was built on. Submit accepts a signed transaction only when
 * the proof verifies and every binding matches. Nothing is stored at build time.
 */
export interface ProofClaims {
  operation: string;
  userId: string;
  /** The build parameters as the caller gave them, canonical (sorted keys, decimal strings). */
  params: Record<string, string>;
  /**
   * What the build derived from the state it saw (a revision, a stake delta): submit derives
   * them again and refuses the transaction when the state has moved on since.
   */
  derived: Record<string, string>;
  messageHash: string;
  blockhash: string;
  lastValidBlockHeight: number;
}

export type ProofProblem = 'PROOF_INVALID' | 'PROOF_EXPIRED';

export class ProofError extends Error {
  constructor(
    readonly problem: ProofProblem,
    message: string,
  ) {
    super(message);
  }
}

const AUDIENCE = 'poolgraph:transaction-proof';

/** The proof key: HKDF-SHA256(AUTH_SECRET, info "poolgraph proof v1"). */
export const deriveProofKey = (serviceSecret: Uint8Array) => deriveKey(serviceSecret, KEY_LABELS.proof);

/** Canonical parameters: keys sorted, every value a string, so equal inputs give equal proofs. */
export function canonicalParams(params: Record<string, string | number | bigint>): Record<string, string> {
  return Object.fromEntries(
    Object.keys(params)
      .sort()
      .map((key) => [key, String(params[key])]),
  );
}

export async function signProof(secret: Uint8Array, claims: ProofClaims, expiresAt: Date): Promise<string> {
  return new SignJWT({
    op: claims.operation,
    prm: claims.params,
    drv: claims.derived,
    msg: claims.messageHash,
    bh: claims.blockhash,
    lvbh: claims.lastValidBlockHeight,
  })
    .setProtectedHeader({ alg: 'HS256' })
    .setAudience(AUDIENCE)
    .setSubject(claims.userId)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(secret);
}

/**
 * Verifies a proof and checks it binds `expected` exactly (operation, viewer, parameters);
 * returns the claims, including the message hash and blockhash to check the bytes against.
 */
export async function verifyProof(
  secret: Uint8Array,
  proof: string,
  expected: { operation: string; userId: string; params: Record<string, string> },
  now: Date,
): Promise<ProofClaims> {
  let payload;
  try {
    ({ payload } = await jwtVerify(proof, secret, { audience: AUDIENCE, algorithms: ['HS256'], currentDate: now }));
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw new ProofError('PROOF_EXPIRED', 'The proof has expired; build the transaction again');
    throw new ProofError('PROOF_INVALID', 'The proof is not valid');
  }
  if (payload.op !== expected.operation) throw new ProofError('PROOF_INVALID', 'The proof is for another operation');
  if (payload.sub !== expected.userId) throw new ProofError('PROOF_INVALID', 'The proof belongs to another user');
  const params = payload.prm as Record<string, string> | undefined;
  const keys = Object.keys(expected.params);
  if (!params || Object.keys(params).length !== keys.length || keys.some((key) => params[key] !== expected.params[key])) {
    throw new ProofError('PROOF_INVALID', 'The parameters differ from those the transaction was built with');
  }
  const derived = payload.drv as Record<string, string> | undefined;
  if (
    !derived ||
    typeof derived !== 'object' ||
    typeof payload.msg !== 'string' ||
    typeof payload.bh !== 'string' ||
    typeof payload.lvbh !== 'number'
  ) {
    throw new ProofError('PROOF_INVALID', 'The proof is not valid');
  }
  return {
    operation: expected.operation,
    userId: expected.userId,
    params,
    derived,
    messageHash: payload.msg,
    blockhash: payload.bh,
    lastValidBlockHeight: payload.lvbh,
  };
}
