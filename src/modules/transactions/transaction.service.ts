import { PublicKey } from '@solana/web3.js';
import { and, eq } from 'drizzle-orm';
import { type ChainSubmissionRow, type PoolRow, predictions, type PredictionRow } from '../../../schema/index.js';
import { predictionAddress, userTokenAccount } from '../../chain/addresses.js';
import { canonicalParams, signProof } from '../../chain/proof.js';
import type { ChainRuntime } from '../../chain/runtime.js';
import {
  type BuiltTransaction,
  buildPlacePrediction,
  buildStakeUpdate,
  buildValueUpdate,
  buildWithdraw,
  type RecentBlockhash,
} from '../../chain/transactions.js';
import { AppError, badInput } from '../../errors.js';
import type { Viewer } from '../auth/viewer.js';
import { toBaseUnits } from '../common/amounts.js';
import { parseId } from '../common/ids.js';
import type { ServiceContext } from '../context.js';
import { parseOutcome, parseStake } from './amounts.js';
import { completeFromProof } from './proof-params.js';
import type { OperationName } from './effects.js';
import { awaitSettled, checkSignedSubmission, coSign, findSubmission, onChain, requireChain, sendOnce, sha256Hex, viewerWallet } from './submission.js';

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
}

export interface SubmittedTransaction {
  signature: string;
  /** The prediction the transaction placed or changed (none for a withdrawal). */
  prediction: PredictionRow | null;
}

/** What an operation makes of its input against the current state. */
interface Prepared {
  /** The caller's parameters, canonical: the proof binds them, submit must repeat them. */
  params: Record<string, string>;
  /** What the build derives from the state (revision, delta): submit derives them again and they must agree. */
  derived: Record<string, string>;
  /** What the effects need once the transaction is confirmed. */
  effects: Record<string, string>;
  /** The change it makes, of which only one transaction may be sent (see chain_submissions.lane). */
  lane: string | null;
  build(recent: RecentBlockhash): BuiltTransaction;
}

interface Signer {
  viewer: Viewer;
  chain: ChainRuntime;
  /** The viewer's wallet: the signer of the transaction and owner of its token account. */
  wallet: PublicKey;
}

type Prepare<TInput> = (ctx: ServiceContext, signer: Signer, input: TInput) => Promise<Prepared>;

interface SignedInput {
  signedTransaction: string;
  proof: string;
}

/** A submit's input: the build parameters may be left out, the proof supplies them. */
type SubmitInput<T> = { [K in keyof T]?: T[K] | null } & SignedInput;

async function signerOf(ctx: ServiceContext): Promise<Signer> {
  const { viewer, wallet } = await viewerWallet(ctx);
  return { viewer, chain: requireChain(ctx), wallet };
}

async function build<TInput>(ctx: ServiceContext, operation: OperationName, prepare: Prepare<TInput>, input: TInput): Promise<PreparedTransaction> {
  const signer = await signerOf(ctx);
  const prepared = await prepare(ctx, signer, input);
  const recent = await onChain(() => signer.chain.client.latestBlockhash());
  const built = prepared.build(recent);
  const expiresAt = new Date(ctx.now.getTime() + signer.chain.proofTtlSeconds * 1000);
  const proof = await signProof(
    signer.chain.proofSecret,
    { operation, userId: signer.viewer.userId, params: prepared.params, derived: prepared.derived, messageHash: built.messageHash, ...recent },
    expiresAt,
  );
  return { transaction: built.transaction, proof, expiresAt };
}

/**
 * Submit: a proof already submitted answers with its submission's outcome (the same
 * signature, effects applied once); a new one is checked, validated against the current
 * state, co-signed and sent once.
 */
async function submit<TInput>(
  ctx: ServiceContext,
  operation: OperationName,
  prepare: Prepare<TInput>,
  input: TInput & SignedInput,
  rawParams: Record<string, string>,
): Promise<ChainSubmissionRow> {
  const signer = await signerOf(ctx);
  const { chain, viewer, wallet } = signer;
  const idempotencyKey = sha256Hex(input.proof);
  const check = { operation, userId: viewer.userId, params: rawParams, proof: input.proof, signedTransaction: input.signedTransaction, user: wallet };

  // The checks run first in every case, so a replay is held to the same proof, viewer, parameters and bytes.
  const { wire, claims } = await checkSignedSubmission(ctx, chain, check);
  if (await findSubmission(ctx.database.db, idempotencyKey)) return awaitSettled(ctx.database.db, idempotencyKey);

  let prepared: Prepared;
  try {
    prepared = await prepare(ctx, signer, input);
    const derivedKeys = Object.keys(prepared.derived);
    if (derivedKeys.length !== Object.keys(claims.derived).length || derivedKeys.some((key) => prepared.derived[key] !== claims.derived[key])) {
      throw new AppError('PROOF_INVALID', 'The prediction has changed since this transaction was built; build it again', { argumentName: 'input.proof' });
    }
  } catch (error) {
    // A concurrent submit of this very proof may have landed meanwhile, changing the state.
    if (await findSubmission(ctx.database.db, idempotencyKey)) return awaitSettled(ctx.database.db, idempotencyKey);
    throw error;
  }
  const { bytes, signature } = coSign(chain, wire);
  return sendOnce(ctx, chain, {
    idempotencyKey,
    lane: prepared.lane,
    operation,
    userId: viewer.userId,
    params: prepared.effects,
    bytes,
    signature,
    lastValidBlockHeight: claims.lastValidBlockHeight,
  });
}

async function predictionOf(ctx: ServiceContext, submission: ChainSubmissionRow): Promise<SubmittedTransaction> {
  const account = submission.params.predictionAccount;
  const [prediction] = account ? await ctx.database.db.select().from(predictions).where(eq(predictions.predictionAccount, account)) : [];
  return { signature: submission.signature, prediction: prediction ?? null };
}

// ---------------------------------------------------------------------------------------
// Validation shared by the operations, in the order a user can fix things

async function loadPool(ctx: ServiceContext, poolId: string, argumentName: string): Promise<PoolRow> {
  const pool = await ctx.loaders.poolById.load(parseId(poolId, argumentName));
  if (!pool) throw new AppError('NOT_FOUND', `No pool has id ${poolId}`, { argumentName });
  return pool;
}

function assertOpen(ctx: ServiceContext, pool: PoolRow): void {
  const now = ctx.now.getTime();
  if (pool.status !== 'ACTIVE' || pool.isClosed) throw new AppError('POOL_CLOSED', `The pool is ${pool.isClosed ? 'closed' : pool.status}; predictions are not accepted`);
  if (now < pool.predictionStartDate.getTime()) throw new AppError('POOL_CLOSED', 'The pool does not take predictions yet');
  if (now >= pool.predictionEndDate.getTime()) throw new AppError('POOL_CLOSED', 'The pool’s prediction window has ended');
}

/** The viewer's own prediction (FORBIDDEN for someone else's), with its pool, open for changes. */
async function ownOpenPrediction(ctx: ServiceContext, viewer: Viewer, predictionId: string): Promise<{ prediction: PredictionRow; pool: PoolRow }> {
  const prediction = await ctx.loaders.predictionById.load(parseId(predictionId, 'input.predictionId'));
  if (!prediction) throw new AppError('NOT_FOUND', `No prediction has id ${predictionId}`, { argumentName: 'input.predictionId' });
  if (prediction.userId !== viewer.userId) throw new AppError('FORBIDDEN', 'The prediction belongs to another user');
  const pool = (await ctx.loaders.poolById.load(prediction.poolId))!;
  assertOpen(ctx, pool);
  return { prediction, pool };
}

/** The whole-token balance check of a transfer out of the viewer's token account. */
async function assertBalance(signer: Signer, units: bigint, argumentName: string): Promise<void> {
  const account = userTokenAccount(signer.chain.accounts.mint, signer.wallet);
  const balance = await onChain(() => signer.chain.client.tokenBalance(account));
  if (balance < units) {
    throw new AppError('INSUFFICIENT_FUNDS', `Your token balance is ${balance} base units; this needs ${units}`, { argumentName, balance: balance.toString() });
  }
}

// ---------------------------------------------------------------------------------------
// Place a prediction

export interface PredictionInput {
  poolId: string;
  stake: number;
  value: number;
}

const preparePrediction: Prepare<PredictionInput> = async (ctx, signer, input) => {
  const pool = await loadPool(ctx, input.poolId, 'input.poolId');
  assertOpen(ctx, pool);
  const stake = parseStake(pool, input.stake, 'input.stake');
  const value = parseOutcome(pool, input.value, 'input.value');
  const [existing] = await ctx.database.db
    .select({ id: predictions.id })
    .from(predictions)
    .where(and(eq(predictions.poolId, pool.id), eq(predictions.userId, signer.viewer.userId)));
  if (existing) throw new AppError('ALREADY_PREDICTED', 'You already have a prediction on this pool; update it instead');
  await assertBalance(signer, stake, 'input.stake');
  const vault = new PublicKey(pool.poolAccount);
  const predictor = userTokenAccount(signer.chain.accounts.mint, signer.wallet);
  const { address, bump } = predictionAddress(vault, predictor);
  return {
    params: predictionParams(input),
    derived: {},
    // One prediction per user and pool: a second transaction placing one must never be sent.
    lane: `placePrediction:${pool.id}:${signer.viewer.userId}`,
    effects: { poolId: pool.id, stake: stake.toString(), value, predictorAccount: predictor.toBase58(), predictionAccount: address.toBase58(), bump: String(bump) },
    build: (recent) => buildPlacePrediction(signer.chain.accounts, recent, { user: signer.wallet, vault, poolId: pool.id, stake, value }),
  };
};

const predictionParams = (input: PredictionInput) => canonicalParams({ poolId: input.poolId, stake: input.stake, value: input.value });

export function buildPredictionTransaction(ctx: ServiceContext, input: PredictionInput): Promise<PreparedTransaction> {
  return build(ctx, 'placePrediction', preparePrediction, input);
}

export async function submitPredictionTransaction(ctx: ServiceContext, given: SubmitInput<PredictionInput>): Promise<SubmittedTransaction> {
  const input = completeFromProof(given, { poolId: 'string', stake: 'number', value: 'number' }) as PredictionInput & SignedInput;
  return predictionOf(ctx, await submit(ctx, 'placePrediction', preparePrediction, input, predictionParams(input)));
}

// ---------------------------------------------------------------------------------------
// Update a stake (the new total stake)

export interface StakeUpdateInput {
  predictionId: string;
  stake: number;
}

const prepareStakeUpdate: Prepare<StakeUpdateInput> = async (ctx, signer, input) => {
  const { prediction, pool } = await ownOpenPrediction(ctx, signer.viewer, input.predictionId);
  const stake = parseStake(pool, input.stake, 'input.stake');
  const delta = stake - prediction.stake;
  if (delta === 0n) throw badInput('input.stake', 'input.stake equals the current stake; nothing would change');
  if (delta > 0n) await assertBalance(signer, delta, 'input.stake');
  const revision = prediction.lastAppliedStakeRevision + 1;
  return {
    params: stakeUpdateParams(input),
    derived: { revision: String(revision), delta: delta.toString() },
    lane: `updateStake:${prediction.id}:${revision}`,
    effects: { predictionId: prediction.id, predictionAccount: prediction.predictionAccount, stake: stake.toString(), delta: delta.toString(), revision: String(revision) },
    build: (recent) =>
      buildStakeUpdate(signer.chain.accounts, recent, {
        user: signer.wallet,
        vault: new PublicKey(prediction.poolAccount),
        poolId: pool.id,
        predictionAccount: prediction.predictionAccount,
        stake,
        delta,
        revision,
      }),
  };
};

const stakeUpdateParams = (input: StakeUpdateInput) => canonicalParams({ predictionId: input.predictionId, stake: input.stake });

export function buildStakeUpdateTransaction(ctx: ServiceContext, input: StakeUpdateInput): Promise<PreparedTransaction> {
  return build(ctx, 'updateStake', prepareStakeUpdate, input);
}

export async function submitStakeUpdateTransaction(ctx: ServiceContext, given: SubmitInput<StakeUpdateInput>): Promise<SubmittedTransaction> {
  const input = completeFromProof(given, { predictionId: 'string', stake: 'number' }) as StakeUpdateInput & SignedInput;
  return predictionOf(ctx, await submit(ctx, 'updateStake', prepareStakeUpdate, input, stakeUpdateParams(input)));
}

// ---------------------------------------------------------------------------------------
// Update a predicted value

export interface ValueUpdateInput {
  predictionId: string;
  value: number;
}

const prepareValueUpdate: Prepare<ValueUpdateInput> = async (ctx, signer, input) => {
  const { prediction, pool } = await ownOpenPrediction(ctx, signer.viewer, input.predictionId);
  const value = parseOutcome(pool, input.value, 'input.value');
  if (Number(value) === prediction.prediction) throw badInput('input.value', 'input.value equals the current prediction; nothing would change');
  const revision = prediction.lastAppliedValueRevision + 1;
  return {
    params: valueUpdateParams(input),
    derived: { revision: String(revision) },
    lane: `updateValue:${prediction.id}:${revision}`,
    effects: { predictionId: prediction.id, predictionAccount: prediction.predictionAccount, value, revision: String(revision) },
    build: (recent) =>
      buildValueUpdate(signer.chain.accounts, recent, { user: signer.wallet, poolId: pool.id, predictionAccount: prediction.predictionAccount, value, revision }),
  };
};

const valueUpdateParams = (input: ValueUpdateInput) => canonicalParams({ predictionId: input.predictionId, value: input.value });

export function buildPredictionUpdateTransaction(ctx: ServiceContext, input: ValueUpdateInput): Promise<PreparedTransaction> {
  return build(ctx, 'updateValue', prepareValueUpdate, input);
}

export async function submitPredictionUpdateTransaction(ctx: ServiceContext, given: SubmitInput<ValueUpdateInput>): Promise<SubmittedTransaction> {
  const input = completeFromProof(given, { predictionId: 'string', value: 'number' }) as ValueUpdateInput & SignedInput;
  return predictionOf(ctx, await submit(ctx, 'updateValue', prepareValueUpdate, input, valueUpdateParams(input)));
}

// ---------------------------------------------------------------------------------------
// Withdraw to an external wallet

export interface WithdrawInput {
  toAddress: string;
  amount: number;
}

function parseAddress(text: string, argumentName: string): PublicKey {
  try {
    if (/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(text)) return new PublicKey(text);
  } catch {
    // falls through to the error below
  }
  throw badInput(argumentName, `${argumentName} is not a Solana address`);
}

const prepareWithdraw: Prepare<WithdrawInput> = async (ctx, signer, input) => {
  const to = parseAddress(input.toAddress, 'input.toAddress');
  const { decimals } = signer.chain.accounts;
  const amount = toBaseUnits(input.amount, decimals);
  if (amount === null || amount <= 0n) throw badInput('input.amount', `input.amount must be a positive number of tokens with at most ${decimals} decimals`);
  const minimum = toBaseUnits(ctx.minWithdrawAmount, decimals)!;
  if (amount < minimum) {
    throw new AppError('INSUFFICIENT_FUNDS', `The smallest withdrawal is ${ctx.minWithdrawAmount} tokens`, { argumentName: 'input.amount', minimum: ctx.minWithdrawAmount });
  }
  await assertBalance(signer, amount, 'input.amount');
  return {
    params: withdrawParams(input),
    derived: {},
    lane: null,
    effects: { toAddress: to.toBase58(), amount: amount.toString() },
    build: (recent) => buildWithdraw(signer.chain.accounts, recent, { user: signer.wallet, to, amount }),
  };
};

const withdrawParams = (input: WithdrawInput) => canonicalParams({ toAddress: input.toAddress, amount: input.amount });

export function buildWithdrawTransaction(ctx: ServiceContext, input: WithdrawInput): Promise<PreparedTransaction> {
  return build(ctx, 'withdraw', prepareWithdraw, input);
}

export async function submitWithdrawTransaction(ctx: ServiceContext, given: SubmitInput<WithdrawInput>): Promise<{ signature: string }> {
  const input = completeFromProof(given, { toAddress: 'string', amount: 'number' }) as WithdrawInput & SignedInput;
  const submission = await submit(ctx, 'withdraw', prepareWithdraw, input, withdrawParams(input));
  return { signature: submission.signature };
}
