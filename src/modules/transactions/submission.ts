import { createHash } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { and, eq } from 'drizzle-orm';
import { chainSubmissions, type ChainSubmissionRow } from '../../../schema/index.js';
import { signEd25519 } from '../../chain/ed25519.js';
import { type ProofClaims, ProofError, verifyProof } from '../../chain/proof.js';
import { ChainUnavailableError, TransactionRejectedError } from '../../chain/rpc.js';
import type { ChainRuntime } from '../../chain/runtime.js';
import { assertSigningRule, type SigningRule } from '../../chain/signing-rules.js';
import { type WireTransaction, withSignature } from '../../chain/transactions.js';
import { TransactionFormatError, verifySignedTransaction } from '../../chain/verify.js';
import type { Db } from '../../db/client.js';
import { AppError, badInput } from '../../errors.js';
import { requireViewer, type Viewer } from '../auth/viewer.js';
import type { ServiceContext } from '../context.js';
import type { EventPublisher } from '../events/events.js';
import { applyEffects } from './effects.js';
import type { ChainSubmissionOutcome, OperationName, RelayerSpend } from './operations.js';
import { assertWithinSponsorCap, relayerSpendOf } from './relayer-spend.js';

/**
 * The submit half of every on-chain operation: check a signed transaction against its
 * proof, then send it exactly once and apply its effects exactly once. The chain module
 * knows the bytes; this one knows the database; the operations (transaction.service.ts,
 * claim.service.ts) know the domain rules.
 */

/** The chain of the service, or CHAIN_UNAVAILABLE when none is configured. */
export function requireChain(ctx: Pick<ServiceContext, 'chain'>): ChainRuntime {
  if (!ctx.chain) throw new AppError('CHAIN_UNAVAILABLE', 'No chain is configured for this service');
  return ctx.chain;
}

/** The signed-in viewer and their wallet: the signer of their transactions, the owner of their token account. */
export async function viewerWallet(ctx: ServiceContext): Promise<{ viewer: Viewer; wallet: PublicKey }> {
  const viewer = requireViewer(ctx.viewer);
  const user = await ctx.loaders.userById.load(viewer.userId);
  if (!user) throw new AppError('UNAUTHENTICATED', 'The signed-in user no longer exists', { reason: 'TOKEN_INVALID' });
  return { viewer, wallet: new PublicKey(user.walletAddress) };
}

/** Runs a chain call, turning an unreachable chain into CHAIN_UNAVAILABLE. */
export async function onChain<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ChainUnavailableError) throw new AppError('CHAIN_UNAVAILABLE', error.message);
    throw error;
  }
}

export const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** The submission recorded under `idempotencyKey`, if any (another request's, or an earlier one). */
export async function findSubmission(db: Db, idempotencyKey: string): Promise<ChainSubmissionRow | null> {
  const [row] = await db.select().from(chainSubmissions).where(eq(chainSubmissions.idempotencyKey, idempotencyKey));
  return row ?? null;
}

export interface SubmissionCheck {
  operation: OperationName;
  userId: string;
  params: Record<string, string>;
  proof: string;
  signedTransaction: string;
  user: PublicKey;
}

/**
 * Proof, viewer, parameters, exact bytes, the user's signature, the relayer's role, and
 * the blockhash: everything is checked before anything is signed, sent or written. Returns
 * the parsed transaction and the proof's claims (what the build derived).
 */
export async function checkSignedSubmission(
  ctx: ServiceContext,
  chain: ChainRuntime,
  check: SubmissionCheck,
): Promise<{ wire: WireTransaction; claims: ProofClaims }> {
  try {
    const claims = await verifyProof(
      chain.proofSecret,
      check.proof,
      { operation: check.operation, userId: check.userId, params: check.params },
      ctx.now,
    );
    const wire = verifySignedTransaction(check.signedTransaction, {
      messageHash: claims.messageHash,
      relayer: chain.accounts.relayer,
      user: check.user,
    });
    if (!(await onChain(() => chain.client.isBlockhashValid(claims.blockhash)))) {
      throw new ProofError('PROOF_EXPIRED', 'The transaction’s blockhash has expired; build it again');
    }
    return { wire, claims };
  } catch (error) {
    if (error instanceof ProofError) throw new AppError(error.problem, error.message, { argumentName: 'input.proof' });
    if (error instanceof TransactionFormatError) throw badInput('input.signedTransaction', error.message);
    throw error;
  }
}

/**
 * Adds the service's signatures (relayer, and custody where the message needs it) to the
 * wire bytes, only once the message passes `rule`: the exact message the operation builds
 * from the records, the relayer as fee payer only, custody authorising nothing but the
 * one transfer the rule allows. A valid proof alone never makes the service sign.
 */
export function coSign(chain: ChainRuntime, wire: WireTransaction, rule: SigningRule): { bytes: Uint8Array; signature: string } {
  try {
    assertSigningRule(wire, chain.accounts, rule);
  } catch (error) {
    if (error instanceof ProofError) throw new AppError(error.problem, error.message, { argumentName: 'input.proof' });
    throw error;
  }
  let bytes = wire.bytes;
  for (const [index, signer] of wire.signers.entries()) {
    const key = signer.equals(chain.keys.relayer.publicKey)
      ? chain.keys.relayer
      : signer.equals(chain.keys.custody.publicKey)
        ? chain.keys.custody
        : null;
    if (key) bytes = withSignature({ ...wire, bytes }, index, signEd25519(wire.message, key.secretKey));
  }
  // A transaction's id is its first signature: the relayer's, as fee payer.
  return { bytes, signature: bs58.encode(bytes.subarray(1, 65)) };
}

/**
 * How long one process owns settling a PENDING submission: the request that sends it (it
 * waits for the chain until the transaction's blockhash expires, about a minute on Solana),
 * or the reconciler that leased it. Past it, another replica's reconciler may take the row.
 */
export const SUBMISSION_LEASE_MS = 120_000;

export interface Submission {
  idempotencyKey: string;
  /** The change only one transaction may make (see chain_submissions.lane); none for claims and withdrawals. */
  lane?: string | null;
  operation: OperationName;
  userId: string;
  /** What the effects need, canonical strings; stored with the submission. */
  params: Record<string, string>;
  /** The wire bytes with every signature in place. */
  bytes: Uint8Array;
  signature: string;
  lastValidBlockHeight: number;
}

/**
 * Exactly once: the submission is recorded (keyed by its proof, or by the claimed record)
 * before it is sent. A request that finds the key taken waits for that submission's outcome
 * instead of sending. Effects are applied by whoever moves the row from PENDING to
 * CONFIRMED, in the same database transaction. A transaction the chain refuses, or that
 * never lands, leaves no row behind: nothing is written. Every send is reported once,
 * with its outcome, to `ctx.onChainSubmission`; a request that only waits is not.
 */
export async function sendOnce(ctx: ServiceContext, chain: ChainRuntime, s: Submission): Promise<ChainSubmissionRow> {
  const db = ctx.database.db;
  await assertWithinSponsorCap(db, chain, s.userId);
  const [recorded] = await db
    .insert(chainSubmissions)
    .values({
      idempotencyKey: s.idempotencyKey,
      lane: s.lane ?? null,
      operation: s.operation,
      userId: s.userId,
      params: s.params,
      signature: s.signature,
      transaction: Buffer.from(s.bytes).toString('base64'),
      lastValidBlockHeight: s.lastValidBlockHeight,
      createdAt: ctx.now,
      updatedAt: ctx.now,
      leaseExpiresAt: new Date(ctx.now.getTime() + SUBMISSION_LEASE_MS),
    })
    // No conflict target: concurrent claims of one record build the same bytes, so the
    // loser may collide on the signature index before the idempotency key's; either
    // collision means another request holds this submission. A collision on the lane alone
    // means another transaction makes the same change: this one is never sent.
    .onConflictDoNothing()
    .returning();
  if (!recorded) {
    if (await findSubmission(db, s.idempotencyKey)) return awaitSettled(db, s.idempotencyKey);
    throw s.operation === 'placePrediction'
      ? new AppError('ALREADY_PREDICTED', 'Another transaction placing your prediction on this pool was submitted first')
      : new AppError('PROOF_INVALID', 'Another transaction changing this prediction was submitted first; build again', {
          argumentName: 'input.proof',
        });
  }

  // Whatever throws before the outcome is known may have reached the chain.
  let outcome: ChainSubmissionOutcome = 'unsettled';
  try {
    try {
      await chain.client.send(s.bytes);
    } catch (error) {
      if (error instanceof TransactionRejectedError) {
        outcome = 'rejected';
        await forget(db, recorded, ctx.events);
        throw new AppError('TRANSACTION_FAILED', `The chain rejected the transaction: ${error.reason}`, { logs: error.logs.slice(-10) });
      }
      if (error instanceof ChainUnavailableError && error.neverSent) {
        outcome = 'unavailable';
        await forget(db, recorded, ctx.events);
        throw new AppError('CHAIN_UNAVAILABLE', error.message);
      }
      // It may have reached the chain: the row stays PENDING for the reconciler to settle.
      throw error instanceof ChainUnavailableError
        ? new AppError('CHAIN_UNAVAILABLE', `${error.message}; the submission will be settled when the chain answers`)
        : error;
    }
    // The only announcement written outside the change's transaction: the change is the
    // send, to the chain, which no database transaction covers. Lost in a crash right here,
    // it is followed by CONFIRMED or FAILED, written with the row's settlement.
    await ctx.events.publish([{ type: 'transactionStatus', signature: s.signature, status: 'SUBMITTED' }]);
    const status = await onChain(() => chain.client.confirm(s.signature, s.lastValidBlockHeight));
    if (!status || status.err) {
      outcome = status ? 'failed' : 'expired';
      // A transaction that landed and failed still cost the relayer its fee: counted, not stored (its row goes).
      const spend = status ? await relayerSpendOf(chain, s.operation, s.signature) : null;
      if (spend) ctx.onRelayerSpend?.(spend);
      await forget(db, recorded, ctx.events);
      throw new AppError(
        'TRANSACTION_FAILED',
        status ? 'The transaction failed on-chain' : 'The transaction did not land before its blockhash expired',
        {
          error: status?.err ?? 'BlockhashExpired',
        },
      );
    }
    outcome = 'confirmed';
    const spend = await relayerSpendOf(chain, s.operation, s.signature);
    if (spend) ctx.onRelayerSpend?.(spend);
    return await applyConfirmed(db, recorded, ctx.clock(), ctx.events, spend);
  } finally {
    ctx.onChainSubmission?.({ operation: s.operation, outcome });
  }
}

/** Removes a submission that did not land (still PENDING), so a retry can record it again. */
export async function forget(db: Db, submission: ChainSubmissionRow, events: EventPublisher): Promise<void> {
  await db.transaction(async (tx) => {
    const t = tx as unknown as Db;
    const removed = await t
      .delete(chainSubmissions)
      .where(and(eq(chainSubmissions.id, submission.id), eq(chainSubmissions.status, 'PENDING')))
      .returning({ id: chainSubmissions.id });
    if (removed.length) await events.publishIn(t, [{ type: 'transactionStatus', signature: submission.signature, status: 'FAILED' }]);
  });
}

/** Waits for a submission recorded by another request to settle, then answers like it. */
export async function awaitSettled(db: Db, idempotencyKey: string, timeoutMs = 30_000): Promise<ChainSubmissionRow> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await findSubmission(db, idempotencyKey);
    if (row?.status === 'CONFIRMED') return row;
    if (!row || row.status === 'FAILED' || row.status === 'EXPIRED')
      throw new AppError('TRANSACTION_FAILED', 'The transaction of this submission did not land');
    if (Date.now() > deadline)
      throw new AppError('CHAIN_UNAVAILABLE', 'The transaction is still pending; submit again later for its outcome');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Moves a submission to CONFIRMED, applies its effects and writes their events in one
 * database transaction; the guarded status update makes every later caller (a concurrent
 * submit, another replica's reconciler) a no-op that announces nothing.
 */
export async function applyConfirmed(
  db: Db,
  submission: ChainSubmissionRow,
  now: Date,
  events: EventPublisher,
  spend: RelayerSpend | null,
): Promise<ChainSubmissionRow> {
  return db.transaction(async (tx) => {
    const t = tx as unknown as Db;
    const [confirmed] = await t
      .update(chainSubmissions)
      .set({
        status: 'CONFIRMED',
        confirmedAt: now,
        updatedAt: now,
        ...(spend ? { relayerFeeLamports: spend.feeLamports, relayerSponsoredLamports: spend.sponsoredLamports } : {}),
      })
      .where(and(eq(chainSubmissions.id, submission.id), eq(chainSubmissions.status, 'PENDING')))
      .returning();
    if (!confirmed) return (await t.select().from(chainSubmissions).where(eq(chainSubmissions.id, submission.id)))[0]!;
    const effects = await applyEffects(t, confirmed, now);
    await events.publishIn(t, [{ type: 'transactionStatus', signature: confirmed.signature, status: 'CONFIRMED' }, ...effects]);
    return confirmed;
  });
}
