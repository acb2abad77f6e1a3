import { PublicKey } from '@solana/web3.js';
import type { ChainSubmissionRow, PredictionRow } from '../../../schema/index.js';
import { userTokenAccount } from '../../chain/addresses.js';
import { signProof } from '../../chain/proof.js';
import type { ChainRuntime } from '../../chain/runtime.js';
import type { CustodyTransfer } from '../../chain/signing-rules.js';
import { type BuiltTransaction, messageOf, type RecentBlockhash } from '../../chain/transactions.js';
import { AppError } from '../../errors.js';
import { toTokens } from '../common/amounts.js';
import type { Viewer } from '../auth/viewer.js';
import type { ServiceContext } from '../context.js';
import type { EffectParams, OperationName } from './operations.js';
import { previewOf } from './preview.js';
import type { TransactionPreview } from './preview.type.js';
import {
  awaitSettled,
  checkSignedSubmission,
  coSign,
  findSubmission,
  onChain,
  requireChain,
  sendOnce,
  sha256Hex,
  viewerWallet,
} from './submission.js';

/**
 * The two-step operations: build (validate against the current state, build the message,
 * bind it in a proof) and submit (check the proof and the signed bytes, validate again,
 * then send once and apply the effects once). Each operation is a `prepare` function;
 * build and submit are shared.
 */
export interface PreparedTransaction {
  transaction: string;
  proof: string;
  expiresAt: Date;
  preview: TransactionPreview;
}

export interface SubmittedTransaction {
  signature: string;
  /** The prediction the transaction placed or changed (none for a withdrawal). */
  prediction: PredictionRow | null;
}

/** What an operation makes of its input against the current state. */
export interface Prepared<Op extends OperationName = OperationName> {
  /** The caller's parameters, canonical: the proof binds them, submit must repeat them. */
  params: Record<string, string>;
  /** What the build derives from the state (revision, delta): submit derives them again and they must agree. */
  derived: Record<string, string>;
  /** What the effects need once the transaction is confirmed. */
  effects: EffectParams[Op];
  /** The change it makes, of which only one transaction may be sent (see chain_submissions.lane). */
  lane: string | null;
  /** The one vault-to-user transfer custody may co-sign (a stake decrease), or null. */
  custodyTransfer: CustodyTransfer | null;
  build(recent: RecentBlockhash): BuiltTransaction;
}

export interface Signer {
  viewer: Viewer;
  chain: ChainRuntime;
  /** The viewer's wallet: the signer of the transaction and owner of its token account. */
  wallet: PublicKey;
}

export type Prepare<TInput, Op extends OperationName> = (ctx: ServiceContext, signer: Signer, input: TInput) => Promise<Prepared<Op>>;

export interface SignedInput {
  signedTransaction: string;
  proof: string;
}

/** A submit's input: the build parameters may be left out, the proof supplies them. */
export type SubmitInput<T> = { [K in keyof T]?: T[K] | null } & SignedInput;

async function signerOf(ctx: ServiceContext): Promise<Signer> {
  const { viewer, wallet } = await viewerWallet(ctx);
  return { viewer, chain: requireChain(ctx), wallet };
}

export async function build<TInput, Op extends OperationName>(
  ctx: ServiceContext,
  operation: Op,
  prepare: Prepare<TInput, Op>,
  input: TInput,
): Promise<PreparedTransaction> {
  const signer = await signerOf(ctx);
  const prepared = await prepare(ctx, signer, input);
  const recent = await onChain(() => signer.chain.client.latestBlockhash());
  const built = prepared.build(recent);
  const expiresAt = new Date(ctx.now.getTime() + signer.chain.proofTtlSeconds * 1000);
  const proof = await signProof(
    signer.chain.proofSecret,
    {
      operation,
      userId: signer.viewer.userId,
      params: prepared.params,
      derived: prepared.derived,
      messageHash: built.messageHash,
      ...recent,
    },
    expiresAt,
  );
  return { transaction: built.transaction, proof, expiresAt, preview: await previewOf(signer.chain, built.transaction) };
}

/**
 * Submit: a proof already submitted answers with its submission's outcome (the same
 * signature, effects applied once); a new one is checked, validated against the current
 * state, co-signed and sent once.
 */
export async function submit<TInput, Op extends OperationName>(
  ctx: ServiceContext,
  operation: Op,
  prepare: Prepare<TInput, Op>,
  input: TInput & SignedInput,
  rawParams: Record<string, string>,
): Promise<ChainSubmissionRow> {
  const signer = await signerOf(ctx);
  const { chain, viewer, wallet } = signer;
  const idempotencyKey = sha256Hex(input.proof);
  const check = {
    operation,
    userId: viewer.userId,
    params: rawParams,
    proof: input.proof,
    signedTransaction: input.signedTransaction,
    user: wallet,
  };

  // The checks run first in every case, so a replay is held to the same proof, viewer, parameters and bytes.
  const { wire, claims } = await checkSignedSubmission(ctx, chain, check);
  if (await findSubmission(ctx.database.db, idempotencyKey)) return awaitSettled(ctx.database.db, idempotencyKey);

  let prepared: Prepared<Op>;
  try {
    prepared = await prepare(ctx, signer, input);
    const derivedKeys = Object.keys(prepared.derived);
    if (
      derivedKeys.length !== Object.keys(claims.derived).length ||
      derivedKeys.some((key) => prepared.derived[key] !== claims.derived[key])
    ) {
      throw new AppError('PROOF_INVALID', 'What this transaction was built on has changed since; build it again', {
        argumentName: 'input.proof',
      });
    }
  } catch (error) {
    // A concurrent submit of this very proof may have landed meanwhile, changing the state.
    if (!(await findSubmission(ctx.database.db, idempotencyKey))) throw error;
    const settled = await awaitSettled(ctx.database.db, idempotencyKey);
    forgetReads(ctx);
    return settled;
  }
  // The service signs only the message it builds itself from the records as they are now.
  const expected = prepared.build({ blockhash: claims.blockhash, lastValidBlockHeight: claims.lastValidBlockHeight });
  const { bytes, signature } = coSign(chain, wire, { expectedMessage: messageOf(expected), custodyTransfer: prepared.custodyTransfer });
  const submission = await sendOnce(ctx, chain, {
    idempotencyKey,
    lane: prepared.lane,
    operation,
    userId: viewer.userId,
    params: prepared.effects,
    bytes,
    signature,
    lastValidBlockHeight: claims.lastValidBlockHeight,
  });
  forgetReads(ctx);
  return submission;
}

/**
 * Drops what this request's loaders read before the write, so what the mutation returns
 * (the prediction, its pool's totalVolume) is read after it.
 */
export function forgetReads(ctx: Pick<ServiceContext, 'loaders'>): void {
  for (const loader of Object.values(ctx.loaders)) loader.clearAll();
}

/** The whole-token balance check of a transfer out of the viewer's token account. */
export async function assertBalance(signer: Signer, units: bigint, argumentName: string): Promise<void> {
  const account = userTokenAccount(signer.chain.accounts.mint, signer.wallet);
  const balance = await onChain(() => signer.chain.client.tokenBalance(account));
  if (balance < units) {
    const { decimals } = signer.chain.accounts;
    const [has, needs] = [toTokens(balance, decimals), toTokens(units, decimals)];
    const message = `Your token balance is ${has} tokens; this needs ${needs}`;
    throw new AppError('INSUFFICIENT_FUNDS', message, { argumentName, balance: has, needed: needs });
  }
}
